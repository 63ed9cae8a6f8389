// What an FEM code does with an installed prism: assemble, set up once, solve.
#include <prism/prism.hpp>

#include <cstdio>

int main() {
  const prism::CsrMatrix<double> a = prism::poisson2d(20, 20);
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cpu;
  prism::Solver solver(config);
  solver.setup(a);
  std::vector<double> b(static_cast<std::size_t>(a.rows), 1.0), x;
  const prism::SolveReport report = solver.solve(b, x);
  std::printf("consumer: %s after %d iterations, true relative residual %.2e\n",
              prism::status_name(report.status), report.iterations, report.true_relative_residual);
  return report.converged() && report.true_relative_residual < 1e-7 ? 0 : 1;
}
