// CSR views (int32 and int64, full or one triangle) turned into prism's storage, the
// contract's breaks named with 0-based positions and their fix, and the assembly helpers.

#include <prism/csr_view.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <gtest/gtest.h>

#include "common/test_matrices.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace prism {
namespace {

using test::random_symmetric;

// A matrix's arrays in the caller's index type, and a view of them.
template <typename Index>
struct Arrays {
  Index n = 0;
  std::vector<Index> row_ptr, col_idx;
  std::vector<double> values;

  explicit Arrays(const CsrMatrix<double>& a)
      : n(a.rows),
        row_ptr(a.row_ptr.begin(), a.row_ptr.end()),
        col_idx(a.col_idx.begin(), a.col_idx.end()),
        values(a.values) {}
  CsrView<Index> view(Storage storage) const {
    return {n, n, row_ptr.data(), col_idx.data(), values.data(), storage};
  }
};

void expect_same(const CsrMatrix<double>& a, const CsrMatrix<double>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);  // bit for bit
}

/// What `call` throws as InvalidMatrixError, or "no error".
template <typename Call>
std::string invalid_message(const Call& call) {
  try {
    call();
  } catch (const InvalidMatrixError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CsrView, TrianglesExpandToTheFullMatrixInBothIndexTypes) {
  const CsrMatrix<double> a = random_symmetric(200, 700, 5);
  const CsrMatrix<double> lower = lower_triangle(a);
  const CsrMatrix<double> upper = transpose(lower);
  expect_same(expand_triangle(Arrays<std::int64_t>(lower).view(Storage::lower)), a);
  expect_same(expand_triangle(Arrays<std::int32_t>(lower).view(Storage::lower)), a);
  expect_same(expand_triangle(Arrays<std::int64_t>(upper).view(Storage::upper)), a);
  expect_same(to_csr_matrix(Arrays<std::int64_t>(a).view(Storage::full)), a);
  expect_same(to_csr_matrix(view_of(a)), a);
}

TEST(CsrView, ExpandTriangleWithEmptyRowsAndADiagonalOnly) {
  // Row 1 empty; row 2 holds only an off-diagonal entry.
  const std::vector<std::int64_t> row_ptr{0, 1, 1, 2};
  const std::vector<std::int64_t> col_idx{0, 0};
  const std::vector<double> values{4.0, -1.0};
  const CsrMatrix<double> full = expand_triangle(
      CsrView64{3, 3, row_ptr.data(), col_idx.data(), values.data(), Storage::lower});
  EXPECT_EQ(full.row_ptr, (std::vector<index_t>{0, 2, 2, 3}));
  EXPECT_EQ(full.col_idx, (std::vector<index_t>{0, 2, 0}));
  EXPECT_EQ(full.values, (std::vector<double>{4.0, -1.0, -1.0}));
  EXPECT_NE(invalid_message([&] { expand_triangle(view_of(full)); }).find("not full"),
            std::string::npos);
}

TEST(CsrView, BrokenContractsAreNamedFromZeroWithTheFix) {
  const CsrMatrix<double> a = poisson2d(4, 4);
  Arrays<std::int64_t> one_based(a);
  for (auto& p : one_based.row_ptr) ++p;
  for (auto& c : one_based.col_idx) ++c;
  const std::string shifted =
      invalid_message([&] { to_csr_matrix(one_based.view(Storage::full)); });
  EXPECT_NE(shifted.find("row_ptr[0] is 1, not 0"), std::string::npos) << shifted;
  EXPECT_NE(shifted.find("0-based"), std::string::npos) << shifted;

  Arrays<std::int64_t> bad_column(a);
  bad_column.col_idx[a.row_ptr[2]] = 16;  // row 2's first entry
  const std::string column =
      invalid_message([&] { to_csr_matrix(bad_column.view(Storage::full)); });
  EXPECT_NE(column.find("row 2, column 16"), std::string::npos) << column;
  EXPECT_NE(column.find("[0, 15]"), std::string::npos) << column;

  Arrays<std::int32_t> decreasing(a);
  decreasing.row_ptr[3] = decreasing.row_ptr[2] - 1;
  const std::string pointers =
      invalid_message([&] { to_csr_matrix(decreasing.view(Storage::full)); });
  EXPECT_NE(pointers.find("row_ptr[3]"), std::string::npos) << pointers;

  const std::string side =
      invalid_message([&] { to_csr_matrix(Arrays<std::int64_t>(a).view(Storage::lower)); });
  EXPECT_NE(side.find("row 0, column 1) lies above the diagonal"), std::string::npos) << side;
  EXPECT_NE(side.find("storage full"), std::string::npos) << side;
}

TEST(CsrView, SizesBeyond32BitIndicesAreRefusedBeforeAnyEntryIsRead) {
  const std::int64_t big = std::int64_t{1} << 31;
  const std::string rows = invalid_message([&] {
    to_csr_matrix(CsrView64{big, big, nullptr, nullptr, nullptr});
  });
  EXPECT_NE(rows.find("2147483648 rows do not fit prism's 32-bit indices"), std::string::npos)
      << rows;
  // One row claiming 2^31 entries: the arrays behind it are never read.
  const std::vector<std::int64_t> row_ptr{0, big};
  const std::vector<std::int64_t> col_idx{0};
  const std::vector<double> values{1.0};
  const std::string entries = invalid_message([&] {
    to_csr_matrix(CsrView64{1, 1, row_ptr.data(), col_idx.data(), values.data()});
  });
  EXPECT_NE(entries.find("2147483648 entries do not fit"), std::string::npos) << entries;
}

TEST(CsrView, UnsortedDuplicatesAreRefusedThenMerged) {
  // Row 0: (0, 4), (1, -1), (0, 1) duplicated and out of order; row 1: (1, 4), (0, -1).
  std::vector<std::int64_t> row_ptr{0, 3, 5};
  std::vector<std::int64_t> col_idx{0, 1, 0, 1, 0};
  std::vector<double> values{4.0, -1.0, 1.0, 4.0, -1.0};
  const auto view = [&] { return CsrView64{2, 2, row_ptr.data(), col_idx.data(), values.data()}; };
  const std::string message = invalid_message([&] { to_csr_matrix(view()); });
  EXPECT_NE(message.find("columns of row 0 are not sorted and unique"), std::string::npos)
      << message;
  EXPECT_NE(message.find("sort_and_merge_duplicates"), std::string::npos) << message;

  sort_and_merge_duplicates(row_ptr, col_idx, values);
  EXPECT_EQ(row_ptr, (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(col_idx, (std::vector<std::int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(values, (std::vector<double>{5.0, -1.0, -1.0, 4.0}));
  EXPECT_EQ(to_csr_matrix(view()).values, values);

  CsrMatrix<double> from_triplets = sort_and_merge_duplicates(
      2, 2, {{1, 0, -1.0}, {0, 0, 4.0}, {0, 1, -1.0}, {0, 0, 1.0}, {1, 1, 4.0}});
  EXPECT_EQ(from_triplets.values, (std::vector<double>{5.0, -1.0, -1.0, 4.0}));

  std::vector<std::int32_t> bad_ptr{0, 3};
  std::vector<std::int32_t> bad_col{0};
  std::vector<double> bad_val{1.0};
  EXPECT_NE(invalid_message([&] {
              sort_and_merge_duplicates(bad_ptr, bad_col, bad_val);
            }).find("inconsistent"),
            std::string::npos);
}

}  // namespace
}  // namespace prism
