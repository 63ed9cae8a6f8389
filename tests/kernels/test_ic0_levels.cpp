// The level plan of an IC(0) factor against an independent reading of its definition:
// every entry in exactly one slot, each slot reading only strictly lower levels and at
// least one of the level just below, the products in the reference's order, and the
// row-walk steps of the color-by-color factorization.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "kernels/ic0_levels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::CsrView;
using prism::kernels::Ic0LevelPlan;

/// The pattern of L (sorted columns, diagonal last) and its IC(0) matches.
struct Lower {
  index_t rows = 0;
  std::vector<index_t> row_ptr{0}, col_idx;
  std::vector<index_t> match_ptr{0};
  std::vector<std::uint16_t> own;
  std::vector<index_t> other;

  index_t nnz() const { return row_ptr.back(); }
  index_t diag(index_t i) const { return row_ptr[i + 1] - 1; }
  CsrView<double> view() const { return {rows, rows, row_ptr.data(), col_idx.data(), nullptr}; }
};

/// Fills the matches of entry (i, k): the entries a of row i left of it and b of row k
/// left of k's diagonal with the same column, found by a merge of the two sorted rows.
void add_matches(Lower& l) {
  l.match_ptr.assign(1, 0);
  l.own.clear();
  l.other.clear();
  for (index_t i = 0; i < l.rows; ++i) {
    for (index_t p = l.row_ptr[i]; p <= l.diag(i); ++p) {
      if (p != l.diag(i)) {
        const index_t k = l.col_idx[p];
        index_t a = l.row_ptr[i], b = l.row_ptr[k];
        while (a < p && b < l.diag(k)) {
          if (l.col_idx[a] < l.col_idx[b]) {
            ++a;
          } else if (l.col_idx[b] < l.col_idx[a]) {
            ++b;
          } else {
            l.own.push_back(static_cast<std::uint16_t>(a - l.row_ptr[i]));
            l.other.push_back(b);
            ++a;
            ++b;
          }
        }
      }
      l.match_ptr.push_back(static_cast<index_t>(l.own.size()));
    }
  }
}

/// Lower triangle (col <= row) of a matrix with sorted columns and a stored diagonal.
Lower lower_of(const CsrMatrix<double>& a) {
  Lower l;
  l.rows = a.rows;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] <= i) l.col_idx.push_back(a.col_idx[k]);
    }
    l.row_ptr.push_back(static_cast<index_t>(l.col_idx.size()));
    EXPECT_EQ(l.col_idx.back(), i) << "row " << i << " lacks its diagonal";
  }
  add_matches(l);
  return l;
}

Lower lower_of(index_t rows, std::vector<index_t> row_ptr, std::vector<index_t> col_idx) {
  Lower l;
  l.rows = rows;
  l.row_ptr = std::move(row_ptr);
  l.col_idx = std::move(col_idx);
  add_matches(l);
  return l;
}

Ic0LevelPlan plan_of(const Lower& l, const std::vector<index_t>& blocks) {
  return prism::kernels::ic0_level_plan(l.view(), l.match_ptr.data(), l.own.data(), l.other.data(),
                                        blocks);
}

/// Steps of the row-by-row walk of row i: an off-diagonal entry comes one step after
/// the entries of its row it multiplies (the first at step 1), the diagonal one after
/// the last of them.
std::vector<long long> row_steps(const Lower& l) {
  std::vector<long long> out(static_cast<std::size_t>(l.rows));
  std::vector<long long> depth(static_cast<std::size_t>(l.nnz()), 0);
  for (index_t i = 0; i < l.rows; ++i) {
    long long longest = 0;
    for (index_t p = l.row_ptr[i]; p < l.diag(i); ++p) {
      long long d = 1;
      for (index_t q = l.match_ptr[p]; q < l.match_ptr[p + 1]; ++q) {
        d = std::max(d, depth[l.row_ptr[i] + l.own[q]] + 1);
      }
      depth[p] = d;
      longest = std::max(longest, d);
    }
    out[i] = longest + 1;
  }
  return out;
}

long long steps_over(const std::vector<long long>& steps, const std::vector<index_t>& blocks) {
  long long sum = 0;
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
    long long longest = 0;
    for (index_t i = blocks[b]; i < blocks[b + 1]; ++i) longest = std::max(longest, steps[i]);
    sum += longest;
  }
  return sum;
}

/// Checks the plan of `l` against the header's definition; `level`: each entry's level.
void expect_valid_plan(const Lower& l, const Ic0LevelPlan& plan, std::vector<index_t>& level) {
  const index_t nnz = l.nnz();
  const auto slots = static_cast<std::size_t>(nnz);
  level.assign(slots, -1);
  EXPECT_FALSE(plan.level_ptr.empty());
  if (plan.level_ptr.empty()) return;
  EXPECT_EQ(plan.level_ptr.front(), 0);
  EXPECT_EQ(plan.level_ptr.back(), nnz);
  EXPECT_EQ(plan.entry.size(), slots);
  EXPECT_EQ(plan.row.size(), slots);
  EXPECT_EQ(plan.pivot.size(), slots);
  EXPECT_EQ(plan.product_ptr.size(), slots + 1);
  EXPECT_EQ(plan.chain.size(), static_cast<std::size_t>(plan.levels()));
  if (plan.entry.size() != slots || plan.row.size() != slots || plan.pivot.size() != slots ||
      plan.product_ptr.size() != slots + 1 ||
      plan.chain.size() != static_cast<std::size_t>(plan.levels()) ||
      plan.level_ptr.back() != nnz) {
    ADD_FAILURE() << "sizes do not fit; further checks skipped";
    return;
  }
  EXPECT_EQ(plan.product_ptr.front(), 0);
  EXPECT_EQ(plan.product_x.size(), static_cast<std::size_t>(plan.product_ptr.back()));
  EXPECT_EQ(plan.product_y.size(), plan.product_x.size());

  // Every entry exactly once; levels non-empty; storage order within a level.
  index_t widest = 0;
  for (index_t lv = 0; lv < plan.levels(); ++lv) {
    const index_t begin = plan.level_ptr[lv], end = plan.level_ptr[lv + 1];
    EXPECT_LT(begin, end) << "level " << lv << " is empty";
    widest = std::max(widest, end - begin);
    for (index_t s = begin; s < end; ++s) {
      const index_t p = plan.entry[s];
      ASSERT_GE(p, 0);
      ASSERT_LT(p, nnz);
      EXPECT_EQ(level[p], -1) << "entry " << p << " in two slots";
      level[p] = lv;
      if (s > begin) EXPECT_LT(plan.entry[s - 1], p) << "level " << lv << " out of order";
    }
  }
  EXPECT_EQ(plan.widest, widest);
  for (index_t p = 0; p < nnz; ++p) EXPECT_NE(level[p], -1) << "entry " << p << " missing";

  for (index_t s = 0; s < nnz; ++s) {
    const index_t p = plan.entry[s], i = plan.row[s];
    ASSERT_GE(i, 0);
    ASSERT_LT(i, l.rows);
    ASSERT_GE(p, l.row_ptr[i]) << "slot " << s;
    ASSERT_LT(p, l.row_ptr[i + 1]) << "slot " << s;
    const bool diagonal = p == l.diag(i);
    const index_t k = l.col_idx[p];
    EXPECT_EQ(plan.pivot[s], diagonal ? p : l.diag(k)) << "entry " << p;

    // Products: the squares of the row, or the matches in column order.
    std::vector<index_t> x, y;
    if (diagonal) {
      for (index_t e = l.row_ptr[i]; e < p; ++e) {
        x.push_back(e);
        y.push_back(e);
      }
    } else {
      for (index_t q = l.match_ptr[p]; q < l.match_ptr[p + 1]; ++q) {
        x.push_back(l.row_ptr[i] + l.own[q]);
        y.push_back(l.other[q]);
      }
    }
    const index_t t0 = plan.product_ptr[s], t1 = plan.product_ptr[s + 1];
    ASSERT_LE(t0, t1);
    ASSERT_LE(static_cast<std::size_t>(t1), plan.product_x.size());
    EXPECT_EQ(std::vector<index_t>(plan.product_x.begin() + t0, plan.product_x.begin() + t1), x)
        << "entry " << p;
    EXPECT_EQ(std::vector<index_t>(plan.product_y.begin() + t0, plan.product_y.begin() + t1), y)
        << "entry " << p;

    // Reads strictly lower levels, one of them the level just below (level 0: none).
    std::vector<index_t> reads(x);
    reads.insert(reads.end(), y.begin(), y.end());
    if (!diagonal) reads.push_back(plan.pivot[s]);
    const index_t lv = level[p];
    index_t highest = -1;
    for (const index_t r : reads) {
      ASSERT_GE(r, 0);
      ASSERT_LT(r, nnz);
      EXPECT_LT(level[r], lv) << "entry " << p << " reads " << r;
      highest = std::max(highest, level[r]);
    }
    EXPECT_EQ(highest, lv - 1) << "entry " << p << " is not at its lowest level";
    EXPECT_EQ(lv == 0, diagonal && p == l.row_ptr[i]) << "entry " << p;
  }

  for (index_t lv = 0; lv < plan.levels(); ++lv) {
    index_t most = 0;
    for (index_t s = plan.level_ptr[lv]; s < plan.level_ptr[lv + 1]; ++s) {
      most = std::max(most, plan.product_ptr[s + 1] - plan.product_ptr[s]);
    }
    EXPECT_EQ(plan.chain[lv], most) << "level " << lv;
  }
}

void expect_valid_plan(const Lower& l, const Ic0LevelPlan& plan) {
  std::vector<index_t> level;
  expect_valid_plan(l, plan, level);
}

std::vector<index_t> one_block(index_t rows) {
  return {0, rows};
}

std::vector<index_t> row_blocks(index_t rows) {
  std::vector<index_t> b(static_cast<std::size_t>(rows) + 1);
  for (index_t i = 0; i <= rows; ++i) b[i] = i;
  return b;
}

// L of a 5 x 5 pattern:      positions:
//   x . . . .                 0
//   x x . . .                 1  2
//   . . x . .                       3
//   x x x x .                 4  5  6  7
//   . x x x x                    8  9 10 11
Lower hand_example() {
  return lower_of(5, {0, 1, 3, 4, 8, 12}, {0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4});
}

TEST(Ic0Levels, HandExampleMatches) {
  const Lower l = hand_example();
  // (3,1) pairs l_30 with l_10; (4,3) pairs l_41, l_42 with l_31, l_32.
  EXPECT_EQ(l.match_ptr, (std::vector<index_t>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 3, 3}));
  EXPECT_EQ(l.own, (std::vector<std::uint16_t>{0, 0, 1}));
  EXPECT_EQ(l.other, (std::vector<index_t>{1, 5, 6}));
}

TEST(Ic0Levels, HandExampleLevels) {
  const Lower l = hand_example();
  const Ic0LevelPlan plan = plan_of(l, one_block(5));
  std::vector<index_t> level;
  ASSERT_NO_FATAL_FAILURE(expect_valid_plan(l, plan, level));
  // l_00, l_22: nothing to read. l_10, l_30 divide by l_00, l_32 and l_42 by l_22. l_11
  // squares l_10. l_31 reads l_11 (2); l_41 divides by l_11. l_33 reads l_31 (3). l_43
  // divides by l_33 (4). l_44 reads l_43 (5).
  EXPECT_EQ(level, (std::vector<index_t>{0, 1, 2, 0, 1, 3, 1, 4, 3, 1, 5, 6}));
  EXPECT_EQ(plan.levels(), 7);
  EXPECT_EQ(plan.level_ptr, (std::vector<index_t>{0, 2, 6, 7, 9, 10, 11, 12}));
  EXPECT_EQ(plan.entry, (std::vector<index_t>{0, 3, 1, 4, 6, 9, 2, 5, 8, 7, 10, 11}));
  EXPECT_EQ(plan.row, (std::vector<index_t>{0, 2, 1, 3, 3, 4, 1, 3, 4, 3, 4, 4}));
  EXPECT_EQ(plan.pivot, (std::vector<index_t>{0, 3, 0, 0, 3, 3, 2, 2, 2, 7, 7, 11}));
  EXPECT_EQ(plan.widest, 4);
  EXPECT_EQ(plan.chain, (std::vector<index_t>{0, 0, 1, 1, 3, 2, 3}));
  // l_43 = (a_43 - l_41 l_31 - l_42 l_32) / l_33; l_44 squares l_41, l_42, l_43.
  const index_t s43 = 10, s44 = 11;
  EXPECT_EQ(std::vector<index_t>(plan.product_x.begin() + plan.product_ptr[s43],
                                 plan.product_x.begin() + plan.product_ptr[s43 + 1]),
            (std::vector<index_t>{8, 9}));
  EXPECT_EQ(std::vector<index_t>(plan.product_y.begin() + plan.product_ptr[s43],
                                 plan.product_y.begin() + plan.product_ptr[s43 + 1]),
            (std::vector<index_t>{5, 6}));
  EXPECT_EQ(plan.product_ptr[s44 + 1] - plan.product_ptr[s44], 3);
  EXPECT_EQ(plan.product_ptr.back(), 1 + 1 + 3 + 2 + 3);
}

TEST(Ic0Levels, HandExampleSteps) {
  const Lower l = hand_example();
  // Row walks: row 0: l_00 (1). Row 1: l_10, l_11 (2). Row 2: l_22 (1). Row 3: l_30 and
  // l_32, then l_31 (after l_30), then l_33 (3). Row 4: l_41 and l_42, then l_43, then
  // l_44 (3).
  EXPECT_EQ(row_steps(l), (std::vector<long long>{1, 2, 1, 3, 3}));
  EXPECT_EQ(plan_of(l, one_block(5)).steps, 3);
  EXPECT_EQ(plan_of(l, row_blocks(5)).steps, 1 + 2 + 1 + 3 + 3);
  EXPECT_EQ(plan_of(l, {0, 2, 5}).steps, 2 + 3);
  EXPECT_EQ(plan_of(l, {0, 3, 4, 5}).steps, 2 + 3 + 3);
}

TEST(Ic0Levels, EmptyMatrixHasNoLevels) {
  const Lower l = lower_of(0, {0}, {});
  const Ic0LevelPlan plan = plan_of(l, {0});
  EXPECT_EQ(plan.levels(), 0);
  EXPECT_TRUE(plan.entry.empty());
  EXPECT_TRUE(plan.chain.empty());
  EXPECT_EQ(plan.product_ptr, (std::vector<index_t>{0}));
  EXPECT_EQ(plan.widest, 0);
  EXPECT_EQ(plan.steps, 0);
}

TEST(Ic0Levels, DiagonalIsOneLevel) {
  for (const index_t n : {1, 33}) {
    SCOPED_TRACE(n);
    std::vector<index_t> ptr(static_cast<std::size_t>(n) + 1), col(static_cast<std::size_t>(n));
    for (index_t i = 0; i <= n; ++i) ptr[i] = i;
    for (index_t i = 0; i < n; ++i) col[i] = i;
    const Lower l = lower_of(n, ptr, col);
    const Ic0LevelPlan plan = plan_of(l, one_block(n));
    expect_valid_plan(l, plan);
    EXPECT_EQ(plan.levels(), 1);
    EXPECT_EQ(plan.level_ptr, (std::vector<index_t>{0, n}));
    EXPECT_EQ(plan.entry, col);
    EXPECT_EQ(plan.pivot, col);
    EXPECT_EQ(plan.chain, (std::vector<index_t>{0}));
    EXPECT_EQ(plan.widest, n);
    EXPECT_TRUE(plan.product_x.empty());
    EXPECT_EQ(plan.steps, 1);
    EXPECT_EQ(plan_of(l, row_blocks(n)).steps, n);
  }
}

struct Case {
  std::string name;
  CsrMatrix<double> a;
  std::vector<index_t> blocks;  // the color blocks, or one block in natural order
};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto both = [&](const std::string& name, const CsrMatrix<double>& a) {
    const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
    out.push_back({name + "_color", prism::permute_symmetric(a, c.permutation), c.color_ptr});
    out.push_back({name + "_natural", a, one_block(a.rows)});
  };
  both("n1", prism::poisson2d(1, 1));
  both("poisson2d_7x5", prism::poisson2d(7, 5));
  both("poisson3d27_4x3x3", prism::poisson3d(4, 3, 3, 27));
  both("elasticity3d_2x2x2", prism::elasticity3d(2, 2, 2, 1, {1.0}));
  const CsrMatrix<double> p = prism::poisson2d(9, 6);
  const auto lmc = prism::level_cyclic_coloring(p, 4);
  out.push_back(
      {"poisson2d_9x6_lmc4", prism::permute_symmetric(p, lmc.permutation), lmc.color_ptr});
  return out;
}

TEST(Ic0Levels, GeneratedMatricesFollowTheDefinition) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Lower l = lower_of(c.a);
    const Ic0LevelPlan plan = plan_of(l, c.blocks);
    expect_valid_plan(l, plan);
    // Entries of different rows share levels (the wavefront), so there are fewer
    // levels than entries once there is more than one row.
    if (c.a.rows > 1) EXPECT_LT(plan.levels(), l.nnz());
  }
}

TEST(Ic0Levels, StepsSumTheLongestRowOfEachBlock) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Lower l = lower_of(c.a);
    const std::vector<long long> rows = row_steps(l);
    const long long longest = *std::max_element(rows.begin(), rows.end());
    long long total = 0;
    for (const long long r : rows) total += r;
    const long long blocked = plan_of(l, c.blocks).steps;
    const long long whole = plan_of(l, one_block(c.a.rows)).steps;
    const long long each = plan_of(l, row_blocks(c.a.rows)).steps;
    EXPECT_EQ(blocked, steps_over(rows, c.blocks));
    EXPECT_EQ(whole, longest);
    EXPECT_EQ(each, total);
    EXPECT_LE(whole, blocked);
    EXPECT_LE(blocked, each);
    EXPECT_GE(each, whole);
  }
}

}  // namespace
