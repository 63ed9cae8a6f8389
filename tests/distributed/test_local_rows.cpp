// split_local_rows and check_local_rows run over row parts on host threads: their results
// must not depend on the number of threads, and must equal a plain one-loop split (the
// reference below) on awkward ranks: no rows, every row boundary, empty rows, several parts.
// Neither needs MPI, so this runs as an ordinary test.
#include "distributed/local_rows.hpp"

#include <prism/errors.hpp>

#include "common/host_threads.hpp"
#include "common/parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace prism::test {
namespace {

using distributed::LocalCsr;
using distributed::LocalSystem;

constexpr auto kPart = static_cast<std::int64_t>(common::kRowsPerPart);

// n rows; row r couples to its neighbours, to r + shift (mod n) and to a scattered column;
// every 97th row is empty. Columns increase within a row.
DistributedRows global_rows(std::int64_t n, std::int64_t shift) {
  DistributedRows a;
  a.global_rows = a.row_end = n;
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<std::int64_t> cols;
    if (r % 97 != 0) {
      cols = {r, (r + 1) % n, (r + n - 1) % n, (r + shift) % n, (r * 7919 + 13) % n};
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    }
    for (const std::int64_t c : cols) {
      a.col_idx.push_back(c);
      a.values.push_back(1.0 + static_cast<double>(r) * 1e-3 + static_cast<double>(c) * 1e-7);
    }
    a.row_ptr.push_back(static_cast<std::int64_t>(a.col_idx.size()));
  }
  return a;
}

// Rows [begin, end) of `a`, as one rank holds them.
DistributedRows slice(const DistributedRows& a, std::int64_t begin, std::int64_t end) {
  DistributedRows out;
  out.global_rows = a.global_rows;
  out.row_begin = begin;
  out.row_end = end;
  const std::int64_t first = a.row_ptr[begin];
  for (std::int64_t i = begin; i < end; ++i) out.row_ptr.push_back(a.row_ptr[i + 1] - first);
  out.col_idx.assign(a.col_idx.begin() + first, a.col_idx.begin() + a.row_ptr[end]);
  out.values.assign(a.values.begin() + first, a.values.begin() + a.row_ptr[end]);
  return out;
}

// The split in one loop, row by row.
LocalSystem reference_split(const DistributedRowsView& v) {
  LocalSystem s;
  s.rows = static_cast<index_t>(v.row_end - v.row_begin);
  const auto owned = [&](std::int64_t col) { return col >= v.row_begin && col < v.row_end; };
  std::vector<char> is_boundary(static_cast<std::size_t>(s.rows), 0);
  for (index_t i = 0; i < s.rows; ++i) {
    for (std::int64_t k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
      if (!owned(v.col_idx[k])) {
        is_boundary[i] = 1;
        s.ghosts.push_back(v.col_idx[k]);
      }
    }
  }
  std::sort(s.ghosts.begin(), s.ghosts.end());
  s.ghosts.erase(std::unique(s.ghosts.begin(), s.ghosts.end()), s.ghosts.end());
  for (const char boundary : {0, 1}) {
    for (index_t i = 0; i < s.rows; ++i) {
      if (is_boundary[i] == boundary) s.order.push_back(i);
    }
    if (boundary == 0) s.interior_rows = static_cast<index_t>(s.order.size());
  }
  std::vector<index_t> position(static_cast<std::size_t>(s.rows));
  for (index_t k = 0; k < s.rows; ++k) position[s.order[k]] = k;
  const auto column = [&](std::int64_t col) -> index_t {
    if (owned(col)) return position[col - v.row_begin];
    const auto it = std::lower_bound(s.ghosts.begin(), s.ghosts.end(), col);
    return s.rows + static_cast<index_t>(it - s.ghosts.begin());
  };
  s.interior.rows = s.interior_rows;
  s.interior.cols = s.rows;
  s.boundary.rows = s.rows - s.interior_rows;
  s.boundary.cols = s.rows + static_cast<index_t>(s.ghosts.size());
  CsrMatrix<double>& d = s.diagonal_block;
  d.rows = d.cols = s.rows;
  for (index_t k = 0; k < s.rows; ++k) {
    LocalCsr& part = k < s.interior_rows ? s.interior : s.boundary;
    const index_t i = s.order[k];
    std::vector<std::pair<index_t, double>> block_row;
    for (std::int64_t e = v.row_ptr[i]; e < v.row_ptr[i + 1]; ++e) {
      const index_t c = column(v.col_idx[e]);
      part.col_idx.push_back(c);
      part.values.push_back(v.values[e]);
      if (c < s.rows) block_row.emplace_back(c, v.values[e]);
    }
    part.row_ptr.push_back(static_cast<index_t>(part.col_idx.size()));
    std::sort(block_row.begin(), block_row.end());
    for (const auto& [c, value] : block_row) {
      d.col_idx.push_back(c);
      d.values.push_back(value);
    }
    d.row_ptr.push_back(static_cast<index_t>(d.col_idx.size()));
  }
  return s;
}

template <typename Csr>
void expect_same_csr(const Csr& a, const Csr& b, const std::string& what) {
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.row_ptr, b.row_ptr) << what;
  EXPECT_EQ(a.col_idx, b.col_idx) << what;
  EXPECT_EQ(a.values, b.values) << what;  // copies of the input: equal to the bit
}

void expect_same_system(const LocalSystem& a, const LocalSystem& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.interior_rows, b.interior_rows);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.ghosts, b.ghosts);
  expect_same_csr(a.interior, b.interior, "interior");
  expect_same_csr(a.boundary, b.boundary, "boundary");
  expect_same_csr(a.diagonal_block, b.diagonal_block, "diagonal block");
}

// Splits `rows` on 1 and on 4 host threads; both must equal the reference. Returns it.
LocalSystem expect_split_as_reference(const DistributedRows& rows) {
  const DistributedRowsView view = rows.view();
  distributed::check_local_rows(view);
  LocalSystem expected = reference_split(view);
  for (const int threads : {1, 4}) {
    SCOPED_TRACE("rows [" + std::to_string(rows.row_begin) + ", " + std::to_string(rows.row_end) +
                 ") on " + std::to_string(threads) + " host threads");
    ScopedHostThreads scoped(threads);
    expect_same_system(distributed::split_local_rows(view), expected);
  }
  return expected;
}

TEST(SplitLocalRows, EqualsTheReferenceOnAnyNumberOfThreads) {
  const std::int64_t n = 3 * kPart + 123;
  const DistributedRows a = global_rows(n, 5000);
  // The whole matrix (no ghosts), a middle block over several parts, the last rows.
  EXPECT_EQ(expect_split_as_reference(slice(a, 0, n)).ghosts.size(), 0u);
  const LocalSystem middle = expect_split_as_reference(slice(a, 1000, 1000 + 2 * kPart + 777));
  EXPECT_GT(middle.interior_rows, 0);
  EXPECT_GT(middle.boundary.rows, 2 * kPart / 10);  // the scattered columns: many parts' rows
  expect_split_as_reference(slice(a, n - kPart / 3, n));
}

TEST(SplitLocalRows, ARankWithoutRows) {
  const DistributedRows a = global_rows(1000, 7);
  for (const std::int64_t at : {std::int64_t{0}, std::int64_t{500}, std::int64_t{1000}}) {
    const LocalSystem s = expect_split_as_reference(slice(a, at, at));
    EXPECT_EQ(s.rows, 0);
    EXPECT_EQ(s.diagonal_block.row_ptr, std::vector<index_t>{0});
  }
}

TEST(SplitLocalRows, ARankWhoseRowsAreAllBoundary) {
  // The rank owns the first half; row r (empty ones aside) reaches r + n/2 in the other.
  const std::int64_t half = 2 * kPart + 5;
  const DistributedRows mine = slice(global_rows(2 * half, half), 0, half);
  // global_rows leaves every 97th row empty: give those a lone column in the other half,
  // so that every row of the rank is boundary (its empty rows would be interior).
  DistributedRows patched = mine;
  patched.row_ptr = {0};
  patched.col_idx.clear();
  patched.values.clear();
  for (std::int64_t i = 0; i < half; ++i) {
    if (mine.row_ptr[i] == mine.row_ptr[i + 1]) {
      patched.col_idx.push_back(half + i);
      patched.values.push_back(2.0);
    }
    for (std::int64_t k = mine.row_ptr[i]; k < mine.row_ptr[i + 1]; ++k) {
      patched.col_idx.push_back(mine.col_idx[k]);
      patched.values.push_back(mine.values[k]);
    }
    patched.row_ptr.push_back(static_cast<std::int64_t>(patched.col_idx.size()));
  }
  const LocalSystem s = expect_split_as_reference(patched);
  EXPECT_EQ(s.interior_rows, 0);
  EXPECT_EQ(s.boundary.rows, s.rows);
}

// check_local_rows' message on 1 and on 4 host threads (the same on both), or "" when none.
std::string check_message(const DistributedRows& rows) {
  std::string first;
  for (const int threads : {1, 4}) {
    ScopedHostThreads scoped(threads);
    std::string message;
    try {
      distributed::check_local_rows(rows.view());
    } catch (const InvalidMatrixError& e) {
      message = e.what();
    }
    if (threads == 1) first = message;
    EXPECT_EQ(message, first) << "on " << threads << " host threads";
  }
  return first;
}

class CheckLocalRows : public ::testing::Test {
 protected:
  // Rows [begin, begin + 3 parts) of a valid matrix: rank numbering starts past 0.
  const std::int64_t begin = 100;
  const DistributedRows good = slice(global_rows(4 * kPart, 11), begin, begin + 3 * kPart);

  std::int64_t entry_of(std::int64_t local_row) const { return good.row_ptr[local_row]; }
  std::string row(std::int64_t local_row) const {
    return "row " + std::to_string(begin + local_row);
  }
};

TEST_F(CheckLocalRows, TheFirstBadRowWinsOverParts) {
  ASSERT_EQ(check_message(good), "");
  const std::int64_t early = kPart / 2 + 1;  // the first part
  const std::int64_t late = 5 * kPart / 2;   // the last part
  DistributedRows rows = good;
  rows.col_idx[entry_of(late)] = -3;
  const std::string late_message =
      row(late) + ": column -3 outside [0, " + std::to_string(good.global_rows) + ")";
  EXPECT_EQ(check_message(rows), late_message);
  rows.values[entry_of(early) + 1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(check_message(rows), row(early) + ", column " +
                                     std::to_string(rows.col_idx[entry_of(early) + 1]) +
                                     ": value is not finite");
}

TEST_F(CheckLocalRows, AnEntryBeforeADecreaseWins) {
  const std::int64_t early = 3 * kPart / 2;  // the middle part
  const std::int64_t late = 5 * kPart / 2;
  DistributedRows rows = good;
  rows.row_ptr[late + 1] = rows.row_ptr[late] - 1;
  const std::string decrease = row(late) + ": row_ptr decreases (" +
                               std::to_string(rows.row_ptr[late]) + " then " +
                               std::to_string(rows.row_ptr[late + 1]) + ")";
  EXPECT_EQ(check_message(rows), decrease);
  const std::int64_t a = rows.col_idx[entry_of(early)];
  const std::int64_t b = rows.col_idx[entry_of(early) + 1];
  std::swap(rows.col_idx[entry_of(early)], rows.col_idx[entry_of(early) + 1]);
  EXPECT_EQ(check_message(rows), row(early) + ": column " + std::to_string(a) + " after column " +
                                     std::to_string(b) +
                                     ": the columns of a row must increase "
                                     "(sort_and_merge_duplicates() sorts them)");
}

TEST_F(CheckLocalRows, ADecreaseBeforeAnEntryWins) {
  const std::int64_t early = kPart / 3;
  DistributedRows rows = good;
  rows.col_idx[entry_of(5 * kPart / 2)] = good.global_rows;  // a later, entry defect
  rows.row_ptr[early + 1] = rows.row_ptr[early] - 2;
  EXPECT_EQ(check_message(rows), row(early) + ": row_ptr decreases (" +
                                     std::to_string(rows.row_ptr[early]) + " then " +
                                     std::to_string(rows.row_ptr[early + 1]) + ")");
}

TEST_F(CheckLocalRows, RowsEndingPastTheEntriesAreNotRead) {
  // Row `early` ends past the last entry, so a later row decreases: that row is named,
  // and the entries that do not exist are not read.
  const std::int64_t early = kPart + 7;
  DistributedRows rows = good;
  rows.row_ptr[early + 1] = rows.row_ptr.back() + 1000;
  EXPECT_EQ(check_message(rows), row(early + 1) + ": row_ptr decreases (" +
                                     std::to_string(rows.row_ptr[early + 1]) + " then " +
                                     std::to_string(rows.row_ptr[early + 2]) + ")");
}

}  // namespace
}  // namespace prism::test
