#include <prism/errors.hpp>
#include <prism/solver.hpp>

#include "backend/cpu_backend.hpp"
#include "precond/preconditioner.hpp"

#include <gtest/gtest.h>

namespace {

TEST(PreconditionerRegistry, ListsTheBuiltInPreconditioners) {
  const std::vector<std::string> names = prism::preconditioner_names();
  EXPECT_EQ(names, (std::vector<std::string>{"none", "jacobi", "ic0", "block_ic", "line_jacobi",
                                             "line_ic", "user"}));
  const prism::precond::Registry& r = prism::precond::Registry::instance();
  EXPECT_TRUE(r.uses_blocks("block_ic"));
  EXPECT_FALSE(r.uses_blocks("ic0"));
  EXPECT_TRUE(r.uses_lines("line_jacobi"));
  EXPECT_TRUE(r.uses_lines("line_ic"));
  EXPECT_EQ(r.partition("line_ic"), prism::precond::Partition::colored_lines);
  EXPECT_FALSE(r.uses_lines("block_ic"));
  EXPECT_EQ(r.partition("unknown"), prism::precond::Partition::none);
}

TEST(PreconditionerRegistry, CreatesEachByName) {
  auto backend = prism::backend::make_cpu_backend();
  for (const std::string& name : prism::preconditioner_names()) {
    auto p = prism::precond::Registry::instance().create(name, *backend, {});
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->name(), name);
  }
}

TEST(PreconditionerRegistry, UnknownNameListsTheValidOnes) {
  auto backend = prism::backend::make_cpu_backend();
  try {
    prism::precond::Registry::instance().create("ilu", *backend, {});
    FAIL() << "expected ConfigError";
  } catch (const prism::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'ilu'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("none, jacobi, ic0"), std::string::npos) << msg;
  }
}

TEST(PreconditionerRegistry, SolverRejectsUnknownPreconditionerAtConstruction) {
  prism::SolverConfig config;
  config.backend = prism::BackendKind::cpu;
  config.preconditioner.type = "amg";
  EXPECT_THROW(prism::Solver{config}, prism::ConfigError);
}

}  // namespace
