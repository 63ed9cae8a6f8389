#pragma once
// The ordered matrices the device IC(0) analysis (kernels/cuda/ic0_analysis.hpp) and the
// factor built from it are tested on: one row, a diagonal, rows of varying length (hubs,
// a clique), grids not a multiple of 32, random patterns, each in natural order, under a
// random permutation and in a color order; and the upload of one into a DeviceOrdered as
// the set-up session would keep it.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "backend/cuda/device_ordered.hpp"
#include "common/test_matrices.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/setup_test_matrices.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace prism::test {

struct OrderedCase {
  std::string name;
  CsrMatrix<double> original;   // the caller's matrix
  CsrMatrix<double> ordered;    // P A P^T
  std::vector<index_t> source;  // ordered entry <- the caller's entry
};

/// Every base matrix in natural order, randomly permuted, and colored (natural and
/// largest-first vertex order).
inline std::vector<OrderedCase> ordered_cases() {
  // The set-up's coloring cases, but for the one with an empty row (IC(0) needs every
  // diagonal).
  std::vector<std::pair<std::string, CsrMatrix<double>>> bases;
  for (NamedMatrix& c : coloring_cases()) {
    if (c.name.find("empty row") == std::string::npos) bases.emplace_back(c.name, std::move(c.a));
  }
  std::vector<OrderedCase> cases;
  for (auto& [name, a] : bases) {
    std::vector<index_t> identity(static_cast<std::size_t>(a.rows));
    std::iota(identity.begin(), identity.end(), 0);
    std::vector<index_t> shuffled = identity;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
    const std::vector<std::pair<std::string, std::vector<index_t>>> orders{
        {"natural", identity},
        {"random permutation", shuffled},
        {"color", color_matrix(a, VertexOrder::natural).permutation},
        {"color largest first", color_matrix(a, VertexOrder::largest_first).permutation}};
    for (const auto& [order, perm] : orders) {
      OrderedCase c{name + ", " + order, a, {}, {}};
      c.ordered = permute_symmetric(a, perm, &c.source);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

/// The matrix of no rows (row_ptr {0}).
inline CsrMatrix<double> empty_matrix() {
  CsrMatrix<double> a;
  a.row_ptr = {0};
  return a;
}

/// c.ordered in device memory as the set-up session keeps it (DeviceOrdered), with the
/// caller's values.
inline backend::cuda::DeviceOrdered upload_ordered(const OrderedCase& c) {
  namespace k = kernels::cuda;
  backend::cuda::DeviceOrdered d;
  d.n = c.ordered.rows;
  d.row_ptr = k::upload_and_wait(c.ordered.row_ptr, nullptr);
  d.col_idx = k::upload_and_wait(c.ordered.col_idx, nullptr);
  d.values = k::upload_and_wait(c.ordered.values, nullptr);
  d.source = k::upload_and_wait(c.source, nullptr);
  d.caller_values = k::upload_and_wait(c.original.values, nullptr);
  return d;
}

}  // namespace prism::test
