// Solvers of their own on several threads at once: the same results as one after the
// other (the library's shared state is the preconditioner registry, read only, and
// caches behind locks). On the cuda backend too when a GPU is present.

#include <prism/capabilities.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "common/test_matrices.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

struct Job {
  std::string type;
  prism::CsrMatrix<double> a;
  std::vector<double> b;
  std::vector<double> x;
  int iterations = -1;
};

void run(Job& job, prism::BackendKind backend) {
  prism::SolverConfig c;
  c.backend = backend;
  c.solver.tolerance = 1e-10;
  c.preconditioner.type = job.type;
  prism::Solver solver(c);
  solver.setup(job.a);
  job.x.assign(job.b.size(), 0.0);
  job.iterations = solver.solve(job.b, job.x).iterations;
}

std::vector<Job> jobs() {
  std::vector<Job> out;
  const char* types[] = {"ic0", "jacobi", "block_ic", "line_jacobi", "auto", "ic0"};
  for (int k = 0; k < 6; ++k) {
    Job j;
    j.type = types[k];
    j.a =
        k % 2 == 0 ? prism::poisson3d(14 + k, 13, 12) : prism::elasticity3d(5 + k, 5, 5, 1, {1.0});
    j.b = prism::test::random_vector(j.a.rows, static_cast<unsigned>(k + 1));
    out.push_back(std::move(j));
  }
  return out;
}

TEST(ConcurrentSolvers, EqualTheSameSolvesOneAfterTheOther) {
  std::vector<prism::BackendKind> backends{prism::BackendKind::cpu};
  if (prism::cuda_available()) backends.push_back(prism::BackendKind::cuda);
  for (const prism::BackendKind backend : backends) {
    SCOPED_TRACE(static_cast<int>(backend));
    std::vector<Job> sequential = jobs();
    for (Job& j : sequential) run(j, backend);
    std::vector<Job> concurrent = jobs();
    std::vector<std::thread> threads;
    for (Job& j : concurrent) threads.emplace_back([&j, backend] { run(j, backend); });
    for (std::thread& t : threads) t.join();
    for (std::size_t k = 0; k < concurrent.size(); ++k) {
      SCOPED_TRACE(concurrent[k].type);
      EXPECT_GT(sequential[k].iterations, 0);
      EXPECT_EQ(concurrent[k].iterations, sequential[k].iterations);
      EXPECT_EQ(concurrent[k].x, sequential[k].x);
    }
  }
}

}  // namespace
