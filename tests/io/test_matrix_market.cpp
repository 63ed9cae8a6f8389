#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/matrix_market.hpp>

#include "common/host_threads.hpp"
#include "common/param_names.hpp"
#include "io/atomic_file.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace prism {
namespace {

namespace fs = std::filesystem;

const std::string kDataDir = PRISM_TEST_DATA_DIR "/mm";
const std::string kBadDir = PRISM_TEST_DATA_DIR "/mm/bad";
const std::string kSharedMatrices = PRISM_SHARED_DIR "/matrices";

std::string data(const std::string& name) {
  return kDataDir + "/" + name;
}

std::vector<double> dense(const CsrMatrix<double>& a) {
  std::vector<double> d(static_cast<std::size_t>(a.rows) * a.cols, 0.0);
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      d[static_cast<std::size_t>(r) * a.cols + a.col_idx[k]] = a.values[k];
    }
  }
  return d;
}

/// The line and message of the InputError `call` throws; line -1 when it throws none.
template <typename Call>
std::pair<long, std::string> input_error(const Call& call) {
  try {
    call();
  } catch (const InputError& e) {
    return {e.line(), e.what()};
  }
  return {-1, "no error"};
}

void expect_same(const CsrMatrix<double>& a, const CsrMatrix<double>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);  // exact: 17 significant digits read back bit for bit
}

bool is_symmetric(const CsrMatrix<double>& a) {
  const CsrMatrix<double> t = transpose(a);
  return a.rows == a.cols && t.row_ptr == a.row_ptr && t.col_idx == a.col_idx &&
         t.values == a.values;
}

// A fresh directory per test, removed afterwards.
class MatrixMarketFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("prism_mm_" + std::to_string(::getpid()) + "_" + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Everything in the directory: a failed write must not leave a temporary file behind.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  fs::path dir_;
};

// ---------------------------------------------------------------------------------------------
// Reading valid files.

TEST(MatrixMarketRead, General) {
  MatrixMarketInfo info;
  const CsrMatrix<double> a = read_matrix_market(data("general.mtx"), &info);
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 4);
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 2, 3, 5}));
  EXPECT_EQ(a.col_idx, (std::vector<index_t>{0, 3, 2, 0, 3}));
  EXPECT_EQ(a.values, (std::vector<double>{1.0, 7.0, 4e-3, -0.125, -2.5}));
  EXPECT_EQ(info.field, MatrixMarketInfo::Field::real);
  EXPECT_EQ(info.symmetry, MatrixMarketInfo::Symmetry::general);
  EXPECT_EQ(info.rows, 3);
  EXPECT_EQ(info.cols, 4);
  EXPECT_EQ(info.stored_entries, 5);
}

TEST(MatrixMarketRead, SymmetricIsExpandedFromEitherTriangle) {
  MatrixMarketInfo info;
  const CsrMatrix<double> a = read_matrix_market(data("symmetric.mtx"), &info);
  EXPECT_EQ(info.symmetry, MatrixMarketInfo::Symmetry::symmetric);
  EXPECT_EQ(info.stored_entries, 5);
  EXPECT_EQ(a.nnz(), 8);
  EXPECT_TRUE(is_symmetric(a));
  EXPECT_EQ(dense(a), (std::vector<double>{4, -1, 0.5, -1, 4, -1, 0.5, -1, 0}));
}

TEST(MatrixMarketRead, Integer) {
  MatrixMarketInfo info;
  const CsrMatrix<double> a = read_matrix_market(data("integer.mtx"), &info);
  EXPECT_EQ(info.field, MatrixMarketInfo::Field::integer);
  EXPECT_EQ(dense(a), (std::vector<double>{3, 0, -7, 12}));
}

TEST(MatrixMarketRead, PatternWhenAllowedHasUnitValues) {
  MatrixMarketInfo info;
  const CsrMatrix<double> a = read_matrix_market(data("pattern.mtx"), &info, true);
  EXPECT_EQ(info.field, MatrixMarketInfo::Field::pattern);
  EXPECT_EQ(dense(a), (std::vector<double>{1, 1, 0, 1, 0, 0, 0, 0, 1}));
}

TEST(MatrixMarketRead, CommentsBlankLinesAndMixedCaseBanner) {
  const CsrMatrix<double> a = read_matrix_market(data("comments.mtx"));
  EXPECT_EQ(dense(a), (std::vector<double>{1.5, 0, 0, 2.5}));
}

// The header alone: the reader's info, and the size line's number, without the entries.
TEST(MatrixMarketRead, HeaderGivesTheSizesAndTheSizeLine) {
  const MatrixMarketInfo head = read_matrix_market_header(data("comments.mtx"));
  EXPECT_EQ(head.field, MatrixMarketInfo::Field::real);
  EXPECT_EQ(head.symmetry, MatrixMarketInfo::Symmetry::general);
  EXPECT_EQ(head.rows, 2);
  EXPECT_EQ(head.cols, 2);
  EXPECT_EQ(head.stored_entries, 2);
  EXPECT_EQ(head.size_line, 6);
  for (const char* name : {"comments.mtx", "symmetric.mtx", "symmetric_gz.mtx.gz"}) {
    SCOPED_TRACE(name);
    MatrixMarketInfo info;
    read_matrix_market(data(name), &info);
    const MatrixMarketInfo h = read_matrix_market_header(data(name));
    EXPECT_EQ(h.field, info.field);
    EXPECT_EQ(h.symmetry, info.symmetry);
    EXPECT_EQ(h.rows, info.rows);
    EXPECT_EQ(h.cols, info.cols);
    EXPECT_EQ(h.stored_entries, info.stored_entries);
    EXPECT_EQ(h.size_line, info.size_line);
  }
  EXPECT_THROW(read_matrix_market_header(data("pattern.mtx")), InputError);
  EXPECT_EQ(read_matrix_market_header(data("pattern.mtx"), true).field,
            MatrixMarketInfo::Field::pattern);
}

// A matrix to solve: fewer stored entries than rows fail at the size line, before the
// entries are read; otherwise the same matrix and info as read_matrix_market.
TEST(MatrixMarketRead, MatrixToSolveNeedsAnEntryPerRow) {
  MatrixMarketInfo info;
  EXPECT_EQ(dense(read_matrix_market_to_solve(data("symmetric.mtx"), &info)),
            dense(read_matrix_market(data("symmetric.mtx"))));
  EXPECT_EQ(info.size_line, read_matrix_market_header(data("symmetric.mtx")).size_line);
  const auto [line, message] = input_error(
      [] { read_matrix_market_to_solve(PRISM_TEST_DATA_DIR "/cli/too_few_entries.mtx"); });
  EXPECT_EQ(line, 3) << message;
  EXPECT_NE(message.find("2000000000 rows but only 1 stored entries"), std::string::npos)
      << message;
  EXPECT_THROW(read_matrix_market_to_solve(data("empty_matrix.mtx")), InputError);  // 3 x 2, 0
}

// A bad banner or size line fails the header reader at the same line as the reader.
TEST(MatrixMarketMalformedHeader, FailsAtTheSameLine) {
  const std::vector<std::pair<std::string, long>> bad{
      {"empty.mtx", 1},           {"no_banner.mtx", 1},           {"complex.mtx", 1},
      {"array_matrix.mtx", 1},    {"missing_size_line.mtx", 4},   {"bad_size_line.mtx", 4},
      {"size_line_extra.mtx", 2}, {"symmetric_not_square.mtx", 2}};
  for (const auto& [name, line] : bad) {
    SCOPED_TRACE(name);
    const std::string file = kBadDir + "/" + name;
    EXPECT_EQ(input_error([&] { read_matrix_market_header(file); }).first, line);
  }
}

TEST(MatrixMarketRead, WindowsLineEndings) {
  EXPECT_EQ(dense(read_matrix_market(data("crlf.mtx"))), (std::vector<double>{1.5, 0, 0, 2.5}));
}

TEST(MatrixMarketRead, DuplicatesAreSummed) {
  const CsrMatrix<double> a = read_matrix_market(data("duplicates.mtx"));
  EXPECT_EQ(a.nnz(), 3);
  EXPECT_EQ(dense(a), (std::vector<double>{7, 0, 30, 5}));
}

// A pair stored in both triangles of a symmetric file would count twice (each entry also
// stands for its mirror): an error, not a silently doubled matrix. Either triangle alone,
// or a mix of distinct pairs, stays valid (SymmetricIsExpandedFromEitherTriangle).
TEST(MatrixMarketRead, SymmetricPairInBothTrianglesIsAnError) {
  try {
    read_matrix_market(data("duplicates_symmetric.mtx"));
    FAIL() << "a pair stored in both triangles was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("both (2, 1) and (1, 2) are given"), std::string::npos)
        << e.what();
  }
}

TEST(MatrixMarketRead, GzipMatchesPlain) {
  expect_same(read_matrix_market(data("symmetric_gz.mtx.gz")),
              read_matrix_market(data("symmetric.mtx")));
}

TEST(MatrixMarketRead, ZeroEntries) {
  const CsrMatrix<double> a = read_matrix_market(data("empty_matrix.mtx"));
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.cols, 2);
  EXPECT_EQ(a.nnz(), 0);
  EXPECT_EQ(a.row_ptr, (std::vector<index_t>{0, 0, 0, 0}));
}

TEST(MatrixMarketRead, LinesLongerThanTheBufferAreReadWhole) {
  // A 5000-character comment, an entry padded with 9000 spaces and a value of 6000 digits.
  const CsrMatrix<double> a = read_matrix_market(data("long_lines.mtx"));
  EXPECT_EQ(dense(a), (std::vector<double>{0.5, 0, 0, 1.0}));
}

TEST(MatrixMarketRead, MissingFileIsAnIoError) {
  try {
    read_matrix_market(data("no_such_file.mtx"));
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open " + data("no_such_file.mtx") + ": No such file or directory");
  }
}

TEST(MatrixMarketReadVector, ArrayReal) {
  EXPECT_EQ(read_vector_market(data("vector_array.mtx")),
            (std::vector<double>{1.0, -2.5, 300.0, 0.1}));
}

TEST(MatrixMarketReadVector, ArrayInteger) {
  EXPECT_EQ(read_vector_market(data("vector_array_integer.mtx")),
            (std::vector<double>{1.0, -2.0, 3.0}));
}

TEST(MatrixMarketReadVector, CoordinateFillsZerosAndSumsDuplicates) {
  EXPECT_EQ(read_vector_market(data("vector_coordinate.mtx")),
            (std::vector<double>{0.0, 2.0, 0.0, 0.0, -4.0}));
}

// ---------------------------------------------------------------------------------------------
// Malformed files: each must throw InputError naming the file, the line and the problem.

enum class Reader { matrix, vector };

struct BadFile {
  std::string name;
  long line;
  std::string word;  // a word of the message naming the problem
  Reader reader = Reader::matrix;
};

std::ostream& operator<<(std::ostream& os, const BadFile& f) {
  return os << f.name;
}

class MatrixMarketMalformed : public ::testing::TestWithParam<BadFile> {};

TEST_P(MatrixMarketMalformed, ThrowsInputErrorWithFileLineAndReason) {
  const BadFile& bad = GetParam();
  const std::string file = kBadDir + "/" + bad.name;
  ASSERT_TRUE(fs::exists(file)) << file;
  try {
    if (bad.reader == Reader::matrix) {
      read_matrix_market(file);
    } else {
      read_vector_market(file);
    }
    FAIL() << "no exception for " << bad.name;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.line(), bad.line) << message;
    EXPECT_NE(message.find(bad.name + ":" + std::to_string(bad.line) + ": "), std::string::npos)
        << message;
    EXPECT_NE(message.find(bad.word), std::string::npos) << message;
  }
}

std::string bad_file_test_name(const ::testing::TestParamInfo<BadFile>& info) {
  return prism::test::param_name(info.param.name);
}

INSTANTIATE_TEST_SUITE_P(
    MatrixMarketBadFiles, MatrixMarketMalformed,
    ::testing::Values(BadFile{"empty.mtx", 1, "banner"}, BadFile{"no_banner.mtx", 1, "banner"},
                      BadFile{"misspelled_banner.mtx", 1, "banner"},
                      BadFile{"short_banner.mtx", 1, "banner"},
                      BadFile{"vector_object.mtx", 1, "object 'vector'"},
                      BadFile{"complex.mtx", 1, "field 'complex'"},
                      BadFile{"array_matrix.mtx", 1, "format 'array'"},
                      BadFile{"skew_symmetric.mtx", 1, "symmetry 'skew-symmetric'"},
                      BadFile{"missing_size_line.mtx", 4, "missing size line"},
                      BadFile{"bad_size_line.mtx", 4, "size line"},
                      BadFile{"size_line_garbage.mtx", 2, "size line"},
                      BadFile{"size_line_extra.mtx", 2, "size line"},
                      BadFile{"symmetric_not_square.mtx", 2, "square"},
                      BadFile{"row_out_of_range.mtx", 5, "row index 4 out of range [1, 3]"},
                      BadFile{"column_out_of_range.mtx", 5, "column index 0 out of range [1, 3]"},
                      BadFile{"bad_index.mtx", 4, "bad row index '2.5'"},
                      BadFile{"too_few_entries.mtx", 8, "too few entries"},
                      BadFile{"too_many_entries.mtx", 7, "more entries than the 3 declared"},
                      BadFile{"non_numeric.mtx", 4, "non-numeric value 'abc'"},
                      BadFile{"nan_value.mtx", 3, "NaN"}, BadFile{"inf_value.mtx", 4, "Inf"},
                      BadFile{"overflow_value.mtx", 4, "Inf"},
                      BadFile{"trailing_garbage.mtx", 4, "trailing characters 'junk'"},
                      BadFile{"missing_value.mtx", 4, "missing value"},
                      BadFile{"non_integer_value.mtx", 4, "non-integer value '2.5'"},
                      BadFile{"long_line_garbage.mtx", 3, "trailing characters 'junk'"},
                      BadFile{"nul_byte.mtx", 3, "NUL"},
                      BadFile{"vector_two_columns.mtx", 2, "exactly 1 column", Reader::vector},
                      BadFile{"vector_too_few.mtx", 6, "too few entries", Reader::vector},
                      BadFile{"vector_too_many.mtx", 5, "more entries", Reader::vector},
                      BadFile{"vector_two_values_on_a_line.mtx", 3, "trailing characters",
                              Reader::vector},
                      BadFile{"vector_column_out_of_range.mtx", 4, "column index 2 out of range",
                              Reader::vector}),
    bad_file_test_name);

TEST(MatrixMarketMalformedTruncatedGzip, FailsAtTheLineWhereDataStops) {
  // The line depends on where the compressed stream was cut, so check only the reason.
  try {
    read_matrix_market(kBadDir + "/truncated.mtx.gz");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_GT(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("corrupt compressed data"), std::string::npos) << e.what();
  }
}

TEST(MatrixMarketMalformedPattern, RejectedUnlessAllowed) {
  const auto [line, message] = input_error([] { read_matrix_market(data("pattern.mtx")); });
  EXPECT_EQ(line, 1) << message;
  EXPECT_NE(message.find("pattern.mtx:1: pattern matrices have no values"), std::string::npos)
      << message;
  EXPECT_NE(message.find("prism info"), std::string::npos) << message;
}

TEST(MatrixMarketMalformedPattern, NeverAVector) {
  EXPECT_THROW(read_vector_market(data("pattern.mtx")), InputError);
}

TEST(MatrixMarketMalformedVector, SymmetricIsRejected) {
  EXPECT_THROW(read_vector_market(data("symmetric.mtx")), InputError);
}

// ---------------------------------------------------------------------------------------------
// Writing.

CsrMatrix<double> random_matrix(index_t rows, index_t cols, int count, unsigned seed,
                                bool symmetric) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<index_t> row(0, rows - 1);
  std::uniform_int_distribution<index_t> col(0, cols - 1);
  // Values over many binades, so that any loss of digits would show.
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::vector<Triplet> triplets;
  for (int k = 0; k < count; ++k) {
    const index_t i = row(rng);
    const index_t j = col(rng);
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    triplets.push_back({i, j, v});
    if (symmetric && i != j) triplets.push_back({j, i, v});
  }
  return csr_from_triplets(rows, cols, triplets);
}

// Numbers are read as strtod and strtol read them, whichever parser takes them: the
// fast one for plain decimals, the C library for a '+' sign, hexadecimal or underflow.
TEST_F(MatrixMarketFiles, ValuesReadAsStrtodReadsThem) {
  const std::vector<std::string> values{"1",
                                        "-0",
                                        "0.5",
                                        ".5",
                                        "5.",
                                        "1E5",
                                        "1e+05",
                                        "+2.5",
                                        "+7",
                                        "0x1p3",
                                        "-0X1.8p-1",
                                        "1e-400",
                                        "4.9406564584124654e-324",
                                        "2.2250738585072014e-308",
                                        "1.7976931348623157e308",
                                        "0.1000000000000000055511151231257827021181583404541015625",
                                        "123456789012345678901234567890",
                                        "3.14159265358979323846264338327950288"};
  std::ofstream(path("v.mtx")) << [&] {
    std::string text = "%%MatrixMarket matrix coordinate real general\n1 " +
                       std::to_string(values.size()) + " " + std::to_string(values.size()) + "\n";
    for (std::size_t k = 0; k < values.size(); ++k) {
      text += (k % 2 == 0 ? "+1 " : "1 ") + std::to_string(k + 1) + " " + values[k] + "\n";
    }
    return text;
  }();
  const CsrMatrix<double> a = read_matrix_market(path("v.mtx"));
  ASSERT_EQ(a.values.size(), values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    EXPECT_EQ(a.values[k], std::strtod(values[k].c_str(), nullptr)) << values[k];
  }
  EXPECT_TRUE(std::signbit(a.values[1]));  // "-0"
}

// A file of about 10 MB: entry lines with comments and blank lines between them, its
// matrix built directly, and the line of every entry.
struct BigFile {
  std::string text;
  CsrMatrix<double> matrix;
  std::vector<long> entry_line;  // 1-based line of entry k
  std::size_t header_lines = 0;
};

BigFile big_file(bool symmetric, long long declared_offset = 0) {
  constexpr index_t kRows = 3000;
  constexpr long kEntries = 400000;
  std::mt19937 rng(11);
  std::uniform_int_distribution<index_t> row(1, kRows);
  std::uniform_real_distribution<double> value(-1e3, 1e3);
  BigFile f;
  f.text = std::string("%%MatrixMarket matrix coordinate real ") +
           (symmetric ? "symmetric" : "general") + "\n% a big file\n" + std::to_string(kRows) +
           " " + std::to_string(kRows) + " " + std::to_string(kEntries + declared_offset) + "\n";
  long line = 3;
  std::vector<Triplet> triplets;
  char buffer[64];
  for (long k = 0; k < kEntries; ++k) {
    if (k % 1000 == 999) {
      f.text += "% comment line\n";
      ++line;
    }
    if (k % 777 == 1) {
      f.text += "   \n";
      ++line;
    }
    index_t i = row(rng);
    index_t j = row(rng);
    if (symmetric && j > i) std::swap(i, j);
    const double v = value(rng);
    std::snprintf(buffer, sizeof(buffer), k % 5 == 0 ? "%d %d %.17g\n" : " %d\t%d  %.6e \r\n", i, j,
                  v);
    f.text += buffer;
    f.entry_line.push_back(++line);
    const double read = std::strtod(std::strchr(std::strchr(buffer + 1, ' ') + 1, ' '), nullptr);
    triplets.push_back({i - 1, j - 1, k % 5 == 0 ? v : read});
    if (symmetric && i != j) triplets.push_back({j - 1, i - 1, triplets.back().value});
  }
  f.text += "% the end\n";
  f.matrix = csr_from_triplets(kRows, kRows, triplets);
  return f;
}

// The text with line `line` (1-based) replaced.
std::string with_line(const std::string& text, long line, const std::string& replacement) {
  std::size_t begin = 0;
  for (long l = 1; l < line; ++l) begin = text.find('\n', begin) + 1;
  const std::size_t end = text.find('\n', begin);
  return text.substr(0, begin) + replacement + text.substr(end);
}

// Read on 1 to 4 host threads (4 to 16 MiB blocks, up to 4 parts each): the same matrix,
// the same as built directly.
TEST_F(MatrixMarketFiles, BigFilesReadAlikeOnAnyNumberOfThreads) {
  for (const bool symmetric : {false, true}) {
    SCOPED_TRACE(symmetric ? "symmetric" : "general");
    const BigFile f = big_file(symmetric);
    ASSERT_GT(f.text.size(), std::size_t{9} << 20);
    std::ofstream(path("big.mtx"), std::ios::binary) << f.text;
    for (const int threads : {1, 2, 3, 4}) {
      SCOPED_TRACE(threads);
      const test::ScopedHostThreads scoped(threads);
      expect_same(read_matrix_market(path("big.mtx")), f.matrix);
    }
  }
}

// The big file gzipped: read alike on 1, 2 and 4 threads (with more than one, the next
// block is inflated while the threads parse one: 8 MiB blocks on 2 threads, so two of
// them here), and cut short, it fails at the same line every time.
TEST_F(MatrixMarketFiles, BigGzipFilesReadAlikeAndFailAlikeOnAnyNumberOfThreads) {
  const BigFile f = big_file(true);
  const std::string gz = path("big.mtx.gz");
  {
    gzFile out = gzopen(gz.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    ASSERT_EQ(gzwrite(out, f.text.data(), static_cast<unsigned>(f.text.size())),
              static_cast<int>(f.text.size()));
    ASSERT_EQ(gzclose(out), Z_OK);
  }
  std::string compressed;
  {
    std::ifstream in(gz, std::ios::binary);
    compressed.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(path("cut.mtx.gz"), std::ios::binary)
      << compressed.substr(0, compressed.size() * 9 / 10);
  long first_line = 0;
  for (const int threads : {1, 2, 4}) {
    SCOPED_TRACE(threads);
    const test::ScopedHostThreads scoped(threads);
    expect_same(read_matrix_market(gz), f.matrix);
    const auto [line, message] = input_error([&] { read_matrix_market(path("cut.mtx.gz")); });
    EXPECT_NE(message.find("corrupt compressed data"), std::string::npos) << message;
    EXPECT_GT(line, f.entry_line[300000]);  // past the first 8 MiB block
    if (first_line == 0) first_line = line;
    EXPECT_EQ(line, first_line);
  }
}

// The first bad line of the file is reported, at its line, whatever part of which block
// of the text it falls in.
TEST_F(MatrixMarketFiles, BigFilesReportTheFirstBadLine) {
  const BigFile f = big_file(false);
  const long last = f.entry_line.back();
  struct Case {
    std::string name;
    std::string text;
    long line;
    std::string word;
  };
  const std::vector<Case> cases{
      {"early", with_line(f.text, f.entry_line[10], "5 x 1.0"), f.entry_line[10],
       "bad column index 'x'"},
      {"middle", with_line(f.text, f.entry_line[200001], "1 1 1.0 junk"), f.entry_line[200001],
       "trailing characters 'junk'"},
      {"two, the first wins",
       with_line(with_line(f.text, f.entry_line[390000], "1 9999 1"), f.entry_line[250000],
                 "1 1 nan"),
       f.entry_line[250000], "NaN"},
      {"last", with_line(f.text, last, "7"), last, "missing column index"},
      {"NUL byte", with_line(f.text, f.entry_line[300000], std::string("1 1 2\0 3", 8)),
       f.entry_line[300000], "NUL"},
      {"too many", big_file(false, -1000).text, f.entry_line[399000], "more entries than the"},
      {"too many before a bad line",
       with_line(big_file(false, -100000).text, f.entry_line[350000], "bad"), f.entry_line[300000],
       "more entries than the 300000"},
      {"too few", big_file(false, 3).text, last + 2, "too few entries"}};
  for (const Case& c : cases) {
    std::ofstream(path("bad.mtx"), std::ios::binary) << c.text;
    for (const int threads : {1, 2, 4}) {
      SCOPED_TRACE(c.name + ", threads " + std::to_string(threads));
      const test::ScopedHostThreads scoped(threads);
      const auto [line, message] = input_error([&] { read_matrix_market(path("bad.mtx")); });
      EXPECT_EQ(line, c.line) << message;
      EXPECT_NE(message.find(c.word), std::string::npos) << message;
    }
  }
}

TEST_F(MatrixMarketFiles, RoundTripGeneral) {
  const CsrMatrix<double> a = random_matrix(31, 45, 400, 7, false);
  write_matrix_market(path("a.mtx"), a);
  MatrixMarketInfo info;
  expect_same(read_matrix_market(path("a.mtx"), &info), a);
  EXPECT_EQ(info.symmetry, MatrixMarketInfo::Symmetry::general);
  EXPECT_EQ(info.stored_entries, a.nnz());
}

TEST_F(MatrixMarketFiles, RoundTripSymmetricStoresTheLowerTriangle) {
  const CsrMatrix<double> a = random_matrix(33, 33, 300, 8, true);
  write_matrix_market(path("s.mtx"), a, true);
  MatrixMarketInfo info;
  expect_same(read_matrix_market(path("s.mtx"), &info), a);
  EXPECT_EQ(info.symmetry, MatrixMarketInfo::Symmetry::symmetric);
  EXPECT_EQ(info.stored_entries, lower_triangle(a).nnz());
}

TEST_F(MatrixMarketFiles, WrittenFileHasTheDocumentedHeader) {
  write_matrix_market(path("s.mtx"), read_matrix_market(data("symmetric.mtx")), true);
  std::ifstream in(path("s.mtx"));
  std::string banner, size;
  std::getline(in, banner);
  std::getline(in, size);
  EXPECT_EQ(banner, "%%MatrixMarket matrix coordinate real symmetric");
  EXPECT_EQ(size, "3 3 5");

  write_vector_market(path("v.mtx"), {0.1});
  std::ifstream vin(path("v.mtx"));
  std::stringstream text;
  text << vin.rdbuf();
  EXPECT_EQ(text.str(), "%%MatrixMarket matrix array real general\n1 1\n0.10000000000000001\n");
}

TEST_F(MatrixMarketFiles, RoundTripEmptyMatrix) {
  const CsrMatrix<double> a = csr_from_triplets(4, 2, {});
  write_matrix_market(path("e.mtx"), a);
  expect_same(read_matrix_market(path("e.mtx")), a);
}

TEST_F(MatrixMarketFiles, RoundTripVector) {
  std::vector<double> x{0.1, -1.0 / 3.0, 1e-310, 6.02214076e23, 0.0, -0.0, 1.0};
  write_vector_market(path("x.mtx"), x);
  const std::vector<double> y = read_vector_market(path("x.mtx"));
  ASSERT_EQ(y.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(y[i], x[i]) << i;
    EXPECT_EQ(std::signbit(y[i]), std::signbit(x[i])) << i;
  }
}

TEST_F(MatrixMarketFiles, RoundTripEmptyVector) {
  write_vector_market(path("x.mtx"), {});
  EXPECT_TRUE(read_vector_market(path("x.mtx")).empty());
}

TEST_F(MatrixMarketFiles, OverwritesAnExistingFile) {
  write_vector_market(path("x.mtx"), {1.0, 2.0});
  write_vector_market(path("x.mtx"), {3.0});
  EXPECT_EQ(read_vector_market(path("x.mtx")), std::vector<double>{3.0});
  EXPECT_EQ(listing(), std::vector<std::string>{"x.mtx"});
}

TEST_F(MatrixMarketFiles, SymmetricWriteOfNonSquareThrows) {
  EXPECT_THROW(write_matrix_market(path("a.mtx"), csr_from_triplets(2, 3, {}), true),
               InvalidMatrixError);
  EXPECT_TRUE(listing().empty());
}

TEST_F(MatrixMarketFiles, WriteIntoMissingDirectoryThrowsAndLeavesNoFile) {
  const std::string target = path("missing/a.mtx");
  try {
    write_matrix_market(target, csr_from_triplets(1, 1, {{0, 0, 1.0}}));
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + target + ": No such file or directory");
  }
  EXPECT_THROW(write_vector_market(target, {1.0}), IoError);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(listing().empty());
}

TEST_F(MatrixMarketFiles, FailedRenameRemovesTheTemporaryFile) {
  // A directory in the way makes the final rename fail after the data was written.
  fs::create_directories(path("taken.mtx/inside"));
  try {
    write_vector_market(path("taken.mtx"), {1.0, 2.0});
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + path("taken.mtx") + ": "),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(listing(), std::vector<std::string>{"taken.mtx"});
}

// ---------------------------------------------------------------------------------------------
// write_file_atomically itself (internal, shared by every writer in prism).

// Output targets are written, not replaced: a link keeps pointing where it did, a device
// stays a device, a read-only file is left alone, and a name at the length limit works.
// A line of several MiB (one endless comment, a decompression bomb) is an error at that
// line, in the header and among the entries alike: no line is read into memory whole.
TEST_F(MatrixMarketFiles, EndlessLineIsAnErrorNotAnUnboundedRead) {
  const prism::test::ScopedHostThreads one(1);  // blocks of a known size
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  {
    std::ofstream out(path("header.mtx"));
    out << banner << "% " << std::string(std::size_t{2} << 20, 'x') << "\n1 1 1\n1 1 1\n";
  }
  {
    std::ofstream out(path("entries.mtx"));
    out << banner << "1 1 1\n1 1 1" << std::string(std::size_t{9} << 20, ' ') << "\n";
  }
  for (const auto& [name, line] : {std::pair<const char*, long>{"header.mtx", 2},
                                   std::pair<const char*, long>{"entries.mtx", 3}}) {
    try {
      read_matrix_market(path(name));
      FAIL() << name << " was read";
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find("line longer than 1 MiB"), std::string::npos)
          << e.what();
    }
  }
}

// Blank and comment lines beyond 2^20 plus one per declared entry (a small .gz of endless
// blank lines) are an error, in the header, among the entries and in vectors alike; up to
// the bound they are read as before.
TEST_F(MatrixMarketFiles, EndlessBlankLinesAreAnErrorNotAnUnboundedRead) {
  const std::string blanks((std::size_t{1} << 20) + 8, '\n');
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  std::ofstream(path("header.mtx")) << banner << blanks << "1 1 1\n1 1 1\n";
  std::ofstream(path("entries.mtx")) << banner << "2 2 2\n1 1 1\n" << blanks << "2 2 1\n";
  std::ofstream(path("vector.mtx")) << "%%MatrixMarket matrix array real general\n2 1\n1\n"
                                    << blanks << "2\n";
  std::ofstream(path("within.mtx")) << banner << "2 2 2\n1 1 1\n"
                                    << std::string(std::size_t{1} << 19, '\n') << "2 2 1\n";
  const auto fails = [&](const std::string& name, auto read) {
    SCOPED_TRACE(name);
    try {
      read(path(name));
      ADD_FAILURE() << name << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("blank or comment lines"), std::string::npos)
          << e.what();
    }
  };
  fails("header.mtx", [](const std::string& p) { read_matrix_market(p); });
  fails("entries.mtx", [](const std::string& p) { read_matrix_market(p); });
  fails("vector.mtx", [](const std::string& p) { read_vector_market(p); });
  EXPECT_EQ(read_matrix_market(path("within.mtx")).nnz(), 2);
}

TEST_F(MatrixMarketFiles, AtomicWriteGoesThroughALink) {
  write_vector_market(path("real.mtx"), {1.0});
  fs::create_symlink("real.mtx", path("link.mtx"));
  write_vector_market(path("link.mtx"), {2.0, 3.0});
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(path("link.mtx"))));
  EXPECT_EQ(read_vector_market(path("real.mtx")), (std::vector<double>{2.0, 3.0}));
}

TEST_F(MatrixMarketFiles, AtomicWriteNeverReplacesADevice) {
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  write_vector_market("/dev/null", {1.0});
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST_F(MatrixMarketFiles, AtomicWriteLeavesAReadOnlyFileAlone) {
  write_vector_market(path("ro.mtx"), {1.0});
  fs::permissions(path("ro.mtx"), fs::perms::owner_read | fs::perms::group_read);
  try {
    write_vector_market(path("ro.mtx"), {2.0});
    FAIL() << "a read-only file was replaced";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_vector_market(path("ro.mtx")), std::vector<double>{1.0});
  EXPECT_EQ(listing(), std::vector<std::string>{"ro.mtx"});
}

TEST_F(MatrixMarketFiles, AtomicWriteTakesANameAtTheLengthLimit) {
  const std::string name(250, 'a');
  write_vector_market(path(name), {4.0});
  EXPECT_EQ(read_vector_market(path(name)), std::vector<double>{4.0});
}

TEST_F(MatrixMarketFiles, AtomicWriteThatThrowsKeepsTheOldFile) {
  write_vector_market(path("x.mtx"), {1.0});
  EXPECT_THROW(io::write_file_atomically(path("x.mtx"),
                                         [](std::ostream& os) {
                                           os << "half a file";
                                           throw std::runtime_error("stop");
                                         }),
               std::runtime_error);
  EXPECT_EQ(read_vector_market(path("x.mtx")), std::vector<double>{1.0});
  EXPECT_EQ(listing(), std::vector<std::string>{"x.mtx"});
}

TEST_F(MatrixMarketFiles, AtomicWriteOfAFailedStreamThrowsIoError) {
  EXPECT_THROW(io::write_file_atomically(path("y.txt"),
                                         [](std::ostream& os) { os.setstate(std::ios::badbit); }),
               IoError);
  EXPECT_TRUE(listing().empty());
}

TEST_F(MatrixMarketFiles, AtomicWriteGivesTheUsualPermissions) {
  io::write_file_atomically(path("z.txt"), [](std::ostream& os) { os << "z\n"; });
  std::ofstream(path("plain.txt")) << "p\n";
  EXPECT_EQ(fs::status(path("z.txt")).permissions(), fs::status(path("plain.txt")).permissions());
}

// ---------------------------------------------------------------------------------------------
// Real SuiteSparse matrices: SPD, stored as the lower triangle.

struct RealMatrix {
  std::string path;
  index_t n;
  long long stored;
  index_t expanded_nnz;
};

void check_real_matrix(const RealMatrix& m) {
  if (!fs::exists(m.path)) GTEST_SKIP() << m.path << " is not available";
  MatrixMarketInfo info;
  const CsrMatrix<double> a = read_matrix_market(m.path, &info);
  EXPECT_EQ(a.rows, m.n);
  EXPECT_EQ(a.cols, m.n);
  EXPECT_EQ(info.symmetry, MatrixMarketInfo::Symmetry::symmetric);
  EXPECT_EQ(info.stored_entries, m.stored);
  EXPECT_EQ(a.nnz(), m.expanded_nnz);
  EXPECT_TRUE(is_symmetric(a));
  for (double d : diagonal(a)) EXPECT_GT(d, 0.0);
}

TEST(MatrixMarketRealMatrices, Bcsstk08) {
  check_real_matrix({kSharedMatrices + "/bcsstk08.mtx", 1074, 7017, 12960});
}

TEST(MatrixMarketRealMatrices, Bus1138) {
  check_real_matrix({kSharedMatrices + "/1138_bus.mtx", 1138, 2596, 4054});
}

TEST(MatrixMarketRealMatrices, Bcsstk13Gzipped) {
  check_real_matrix({kSharedMatrices + "/bcsstk13.mtx.gz", 2003, 42943, 83883});
}

TEST(MatrixMarketRealMatrices, CopiesInTestDataMatchShared) {
  for (const std::string name : {"bcsstk08.mtx", "1138_bus.mtx"}) {
    const std::string shared = kSharedMatrices + "/" + name;
    if (!fs::exists(shared)) GTEST_SKIP() << shared << " is not available";
    expect_same(read_matrix_market(PRISM_TEST_DATA_DIR "/" + name), read_matrix_market(shared));
  }
}

}  // namespace
}  // namespace prism
