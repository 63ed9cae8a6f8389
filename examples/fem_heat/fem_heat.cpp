// prism inside a finite element time loop: the heat equation u_t = div(k grad u) + f on
// the unit square (insulated boundary), P1 elements on a jittered triangulation whose
// nodes are numbered in random order, implicit Euler:
//   (M / dt + K(t)) u_{n+1} = M / dt u_n + F.
// The conductivity k changes every step, so the matrix gets new values on the same
// pattern: set up once, refactor every step, solve three load cases (heat sources in
// three places) per step. Checked on the way: every solve converges with its true
// residual, and heat is conserved: with an insulated boundary 1^T K = 0, so
// 1^T M u_{n+1} = 1^T M u_n + dt 1^T F to the solver's tolerance.
//   fem_heat [N]   (an N x N grid of nodes; default 60)
#include <prism/prism.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace {

struct Mesh {
  std::vector<double> x, y;                   // node coordinates
  std::vector<std::array<int, 3>> triangles;  // node numbers
};

/// An n x n grid of the unit square, interior nodes jittered, each cell cut into two
/// triangles, the nodes renumbered at random (as an unstructured mesher leaves them).
Mesh make_mesh(int n, std::mt19937& rng) {
  const double h = 1.0 / (n - 1);
  std::uniform_real_distribution<double> jitter(-0.3 * h, 0.3 * h);
  std::vector<int> number(static_cast<std::size_t>(n) * n);
  std::iota(number.begin(), number.end(), 0);
  std::shuffle(number.begin(), number.end(), rng);
  Mesh m;
  m.x.resize(number.size());
  m.y.resize(number.size());
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const bool inside = i > 0 && j > 0 && i < n - 1 && j < n - 1;
      m.x[number[j * n + i]] = i * h + (inside ? jitter(rng) : 0.0);
      m.y[number[j * n + i]] = j * h + (inside ? jitter(rng) : 0.0);
    }
  }
  for (int j = 0; j + 1 < n; ++j) {
    for (int i = 0; i + 1 < n; ++i) {
      const int a = number[j * n + i], b = number[j * n + i + 1];
      const int c = number[(j + 1) * n + i], d = number[(j + 1) * n + i + 1];
      m.triangles.push_back({a, b, d});
      m.triangles.push_back({a, d, c});
    }
  }
  return m;
}

/// The system matrix's pattern from the elements, and for each element entry (3 x 3 per
/// triangle) where it lands in the CSR values: the assembly map an FEM code keeps.
struct Assembly {
  prism::CsrMatrix<double> a;
  std::vector<std::size_t> at;
};

Assembly make_assembly(const Mesh& m) {
  std::vector<prism::Triplet> t;
  for (const auto& tri : m.triangles) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) t.push_back({tri[r], tri[c], 1.0});
    }
  }
  Assembly s;
  const auto n = static_cast<prism::index_t>(m.x.size());
  s.a = prism::csr_from_triplets(n, n, t);
  for (const prism::Triplet& e : t) {
    const auto first = s.a.col_idx.begin() + s.a.row_ptr[e.row];
    const auto last = s.a.col_idx.begin() + s.a.row_ptr[e.row + 1];
    s.at.push_back(
        static_cast<std::size_t>(std::lower_bound(first, last, e.col) - s.a.col_idx.begin()));
  }
  return s;
}

/// Conductivity at a point and time: a slab across the middle whose conductivity swings
/// between 1 and 199 over a period.
double conductivity(double x, double, double t) {
  const double pi = 3.14159265358979323846;
  return std::abs(x - 0.5) < 0.15 ? 100.0 + 99.0 * std::sin(2.0 * pi * t) : 1.0;
}

/// Fills values with M / dt + K(t) and mass with the lumped row sums of M (1^T M).
void assemble(const Mesh& m, double dt, double t, Assembly& s, std::vector<double>& mass) {
  std::fill(s.a.values.begin(), s.a.values.end(), 0.0);
  std::fill(mass.begin(), mass.end(), 0.0);
  std::size_t k = 0;
  for (const auto& tri : m.triangles) {
    const double x[3] = {m.x[tri[0]], m.x[tri[1]], m.x[tri[2]]};
    const double y[3] = {m.y[tri[0]], m.y[tri[1]], m.y[tri[2]]};
    const double area2 = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    const double area = 0.5 * std::abs(area2);
    const double b[3] = {y[1] - y[2], y[2] - y[0], y[0] - y[1]};  // gradients times 2A
    const double c[3] = {x[2] - x[1], x[0] - x[2], x[1] - x[0]};
    const double kk = conductivity((x[0] + x[1] + x[2]) / 3, (y[0] + y[1] + y[2]) / 3, t);
    for (int r = 0; r < 3; ++r) {
      for (int q = 0; q < 3; ++q) {
        const double stiffness = kk * (b[r] * b[q] + c[r] * c[q]) / (4.0 * area);
        const double m_rq = area / 12.0 * (r == q ? 2.0 : 1.0);
        s.a.values[s.at[k++]] += m_rq / dt + stiffness;
        mass[tri[r]] += m_rq;
      }
    }
  }
}

/// M u with the consistent mass matrix, element by element.
std::vector<double> mass_times(const Mesh& m, const std::vector<double>& u) {
  std::vector<double> out(u.size(), 0.0);
  for (const auto& tri : m.triangles) {
    const double area = 0.5 * std::abs((m.x[tri[1]] - m.x[tri[0]]) * (m.y[tri[2]] - m.y[tri[0]]) -
                                       (m.x[tri[2]] - m.x[tri[0]]) * (m.y[tri[1]] - m.y[tri[0]]));
    for (int r = 0; r < 3; ++r) {
      for (int q = 0; q < 3; ++q) out[tri[r]] += area / 12.0 * (r == q ? 2.0 : 1.0) * u[tri[q]];
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(3, std::atoi(argv[1])) : 60;
  std::mt19937 rng(7);
  const Mesh mesh = make_mesh(n, rng);
  Assembly sys = make_assembly(mesh);
  const std::size_t nodes = mesh.x.size();
  std::vector<double> mass(nodes);
  const double dt = 0.01;
  assemble(mesh, dt, 0.0, sys, mass);

  prism::SolverConfig config;  // backend auto: the GPU when there is one
  config.solver.tolerance = 1e-10;
  prism::Solver solver(config);
  solver.setup(sys.a);
  int reported = 0;  // the first solve's monitor lines
  solver.set_monitor([&](const prism::IterationRecord& r) {
    if (reported < 1 && r.iteration % 10 == 0) {
      std::printf("  iteration %3d  relative residual %.3e\n", r.iteration, r.relative_residual);
    }
    return true;
  });

  // Three load cases: unit heat sources near three corners (lumped onto nearby nodes).
  const double source_x[3] = {0.2, 0.8, 0.2}, source_y[3] = {0.2, 0.2, 0.8};
  std::vector<std::vector<double>> u(3, std::vector<double>(nodes, 0.0)), f(3);
  for (int c = 0; c < 3; ++c) {
    f[c].assign(nodes, 0.0);
    for (std::size_t i = 0; i < nodes; ++i) {
      const double dx = mesh.x[i] - source_x[c], dy = mesh.y[i] - source_y[c];
      if (dx * dx + dy * dy < 0.01) f[c][i] = mass[i];
    }
  }
  bool ok = true;
  int iterations = 0, solves = 0;
  double worst_drift = 0.0;
  for (int step = 1; step <= 20; ++step) {
    assemble(mesh, dt, step * dt, sys, mass);
    solver.refactor(sys.a);  // new values, same pattern: no new coloring or analysis
    for (int c = 0; c < 3; ++c) {
      std::vector<double> b = mass_times(mesh, u[c]);  // b = M u_n / dt + F
      double heat_before = 0.0, heat_source = 0.0;
      for (std::size_t i = 0; i < nodes; ++i) {
        heat_before += mass[i] * u[c][i];
        heat_source += f[c][i];
        b[i] = b[i] / dt + f[c][i];
      }
      const prism::SolveReport r = solver.solve(b, u[c]);  // u[c]: guess in, solution out
      reported = 1;
      iterations += r.iterations;
      ++solves;
      double heat_after = 0.0;
      for (std::size_t i = 0; i < nodes; ++i) heat_after += mass[i] * u[c][i];
      const double drift = std::abs(heat_after - heat_before - dt * heat_source) / heat_after;
      worst_drift = std::max(worst_drift, drift);
      if (!r.converged() || r.true_relative_residual > 1e-9 || !(drift < 1e-7)) {
        std::printf("step %d case %d: %s, true residual %.2e, heat drift %.2e\n", step, c,
                    prism::status_name(r.status), r.true_relative_residual, drift);
        ok = false;
      }
    }
  }
  std::printf(
      "fem_heat: %zu nodes, %zu triangles, backend %s, %d solves in %d iterations, "
      "worst heat drift %.1e: %s\n",
      nodes, mesh.triangles.size(), solver.backend_name().c_str(), solves, iterations, worst_drift,
      ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
