// The Matrix Market reader with its text cut anywhere: blocks and parts of a few bytes put
// the cuts inside numbers, at line ends, between a CR and its LF, inside comments. On 1 to
// 3 host threads, plain and gzipped, every cutting gives the matrix of the sequential
// reading (one block, one thread) bit for bit, or its error word for word at its line.

#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/matrix_market.hpp>

#include "common/host_threads.hpp"
#include "io/market_entries.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace prism {
namespace {

namespace fs = std::filesystem;

// A matrix or the error reading it gave.
struct Outcome {
  CsrMatrix<double> matrix;
  bool failed = false;
  long line = 0;
  std::string message;
};

Outcome read(const std::string& path, const io::Chunking& chunking) {
  Outcome out;
  try {
    out.matrix = io::read_matrix_market_chunked(path, nullptr, false, chunking);
  } catch (const InputError& e) {
    out.failed = true;
    out.line = e.line();
    // The plain and the gzipped file fail alike but for their names.
    out.message = e.what();
    for (std::size_t at; (at = out.message.find(path)) != std::string::npos;) {
      out.message.replace(at, path.size(), "FILE");
    }
  }
  return out;
}

void expect_same(const Outcome& got, const Outcome& want) {
  ASSERT_EQ(got.failed, want.failed) << got.message << " / " << want.message;
  if (want.failed) {
    EXPECT_EQ(got.line, want.line);
    EXPECT_EQ(got.message, want.message);
    return;
  }
  EXPECT_EQ(got.matrix.rows, want.matrix.rows);
  EXPECT_EQ(got.matrix.cols, want.matrix.cols);
  EXPECT_EQ(got.matrix.row_ptr, want.matrix.row_ptr);
  EXPECT_EQ(got.matrix.col_idx, want.matrix.col_idx);
  EXPECT_EQ(got.matrix.values, want.matrix.values);  // bit for bit: the same sums in order
}

class MatrixMarketChunks : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("prism_chunks_" + std::to_string(::getpid()) + "_" + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The text as a plain file and as a .gz file.
  std::vector<std::string> write(const std::string& text) const {
    const std::string plain = (dir_ / "m.mtx").string();
    const std::string gz = (dir_ / "m.mtx.gz").string();
    std::ofstream(plain, std::ios::binary) << text;
    gzFile out = gzopen(gz.c_str(), "wb");
    EXPECT_NE(out, nullptr);
    EXPECT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    EXPECT_EQ(gzclose(out), Z_OK);
    return {plain, gz};
  }

  // Every cutting of `text` reads as the sequential reading does; returns that outcome.
  Outcome expect_any_cut_alike(const std::string& text) const {
    const std::size_t size = text.size();
    const std::size_t entries = size - text.find('\n', text.find("\n3 ") + 1) - 1;
    Outcome want;
    for (const std::string& path : write(text)) {
      SCOPED_TRACE(path);
      {
        const test::ScopedHostThreads one(1);
        const Outcome sequential = read(path, {});
        if (path.size() < 4 || path.substr(path.size() - 3) != ".gz") want = sequential;
        expect_same(sequential, want);  // plain and gzipped alike
      }
      // Blocks of 1 byte to the whole entry text, exactly, and one past; parts of 1 byte
      // (a part a line) and of whole blocks.
      const std::vector<std::size_t> blocks{1,  2,           3,       5,           7,   13,
                                            64, entries - 1, entries, entries + 1, size};
      for (const int threads : {1, 2, 3}) {
        const test::ScopedHostThreads scoped(threads);
        for (const std::size_t block : blocks) {
          for (const std::size_t part : {std::size_t{1}, std::size_t{9}, size}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + ", block " + std::to_string(block) +
                         ", part " + std::to_string(part));
            expect_same(read(path, {block, part}), want);
          }
        }
      }
    }
    return want;
  }

  fs::path dir_;
};

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";
const std::string kSymmetric = "%%MatrixMarket matrix coordinate real symmetric\n";

// The size line holds "3 " in every text here: the cuts are counted from the line after.
const std::string kEntries =
    "1 1 1.5\n"
    "% a comment 1 2 3\n"
    "\n"
    "  2\t1   -0.125e-3\r\n"
    "3 3 0x1p-3\r\n"
    "   \r\n"
    "2 2 123456789.987654321\n"
    "3 1 1e-310\n"
    "1 1 0.1\n"  // a duplicate: summed in file order
    "3 2 +7";    // the last line without a line end

TEST_F(MatrixMarketChunks, GeneralWithCommentsBlanksAndCrlf) {
  const Outcome want = expect_any_cut_alike(kGeneral + "% header comment\n3 3 7\n" + kEntries);
  ASSERT_FALSE(want.failed) << want.message;
  EXPECT_EQ(want.matrix.nnz(), 6);
  EXPECT_EQ(want.matrix.values[0], 1.5 + 0.1);
}

TEST_F(MatrixMarketChunks, SymmetricLowerTriangle) {
  const Outcome want = expect_any_cut_alike(kSymmetric + "3 3 7\n" + kEntries);
  ASSERT_FALSE(want.failed) << want.message;
  EXPECT_EQ(want.matrix.nnz(), 9);
}

// Entries in both triangles, no pair twice: valid, and read a second time for the check.
TEST_F(MatrixMarketChunks, SymmetricBothTrianglesDistinctPairs) {
  const Outcome want = expect_any_cut_alike(kSymmetric + "3 3 4\n1 2 1\n3 1 2\r\n2 2 3\n2 3 4\n");
  ASSERT_FALSE(want.failed) << want.message;
  EXPECT_EQ(want.matrix.nnz(), 7);
}

TEST_F(MatrixMarketChunks, SymmetricPairTwiceFailsAtItsSecondLine) {
  const Outcome want = expect_any_cut_alike(kSymmetric + "3 3 4\n1 2 1\n\n3 3 2\n2 1 4\n1 1 1\n");
  ASSERT_TRUE(want.failed);
  EXPECT_EQ(want.line, 6);
  EXPECT_NE(want.message.find("stores each pair once"), std::string::npos) << want.message;
}

// Errors in the first entry line, in the last (no line end), and two errors: the first
// wins, wherever the cuts fall.
TEST_F(MatrixMarketChunks, ErrorsFirstLastAndTheFirstOfTwo) {
  const std::string head = kGeneral + "3 3 7\n";
  struct Case {
    std::string text;
    long line;
    std::string word;
  };
  const std::vector<Case> cases{
      {head + "1 x 1\n" + kEntries, 3, "bad column index 'x'"},
      {head + kEntries.substr(0, kEntries.rfind('\n') + 1) + "3 2 +7 junk", 12, "trailing"},
      {head + kEntries.substr(0, kEntries.rfind('\n') + 1) + "3 4", 12, "column index 4 out"},
      {head + "1 1 1\n1 1 nan\n2 2 2\n3 3 1e999\n", 4, "NaN or Inf"},
      {head + "1 1 1\n" + std::string("2 2 \0 2\n", 8) + "3 3 3\n", 4, "NUL byte"},
      {kGeneral + "3 3 2\n1 1 1\n% c\n2 2 2\n\n3 3 3\n", 7, "more entries than the 2"},
      {head + "1 1 1\r\n2 2 2\n", 5, "too few entries"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.word);
    const Outcome want = expect_any_cut_alike(c.text);
    ASSERT_TRUE(want.failed);
    EXPECT_EQ(want.line, c.line) << want.message;
    EXPECT_NE(want.message.find(c.word), std::string::npos) << want.message;
  }
}

// Many entries over blocks of a few bytes: each block adds a handful to the row buckets.
TEST_F(MatrixMarketChunks, ManyEntriesOverManySmallBlocks) {
  std::string text = kSymmetric + "300 300 3000\n";
  std::vector<Triplet> triplets;
  for (int k = 0; k < 3000; ++k) {
    const index_t i = (k * 37) % 300;
    const index_t j = (k * 11) % (i + 1);
    const double v = 1.0 / (k + 3);
    char line[64];
    std::snprintf(line, sizeof(line), k % 3 == 0 ? "%d %d %.17g\r\n" : "%d %d %.17g\n", i + 1,
                  j + 1, v);
    text += line;
    if (k % 100 == 0) text += "% comment\n\n";
    triplets.push_back({i, j, std::strtod(std::strchr(std::strchr(line, ' ') + 1, ' '), nullptr)});
    if (i != j) triplets.push_back({j, i, triplets.back().value});
  }
  const std::string path = write(text)[0];
  const CsrMatrix<double> want = csr_from_triplets(300, 300, triplets);
  for (const int threads : {1, 2, 3}) {
    const test::ScopedHostThreads scoped(threads);
    for (const std::size_t block : {std::size_t{7}, std::size_t{100}, std::size_t{4096}}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", block " + std::to_string(block));
      expect_same(read(path, {block, 16}), Outcome{want});
    }
  }
}

// A line longer than a block is carried over block by block up to 1 MiB, then fails at
// its line; blank and comment lines still count against their bound.
TEST_F(MatrixMarketChunks, LinesLongerThanABlock) {
  const std::string head = kGeneral + "2 2 2\n1 1 1\n";
  const std::string near_limit = "2 2 2" + std::string((std::size_t{1} << 20) - 16, ' ') + "\n";
  const std::string past_limit = "2 2 2" + std::string((std::size_t{1} << 20) + 16, ' ') + "\n";
  const std::vector<std::string> paths = write(head + near_limit);
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const Outcome got = read(path, {std::size_t{64} << 10, 0});
    ASSERT_FALSE(got.failed) << got.message;
    EXPECT_EQ(got.matrix.nnz(), 2);
  }
  for (const std::string& path : write(head + past_limit)) {
    SCOPED_TRACE(path);
    const Outcome got = read(path, {std::size_t{64} << 10, 0});
    ASSERT_TRUE(got.failed);
    EXPECT_EQ(got.line, 4);
    EXPECT_NE(got.message.find("line longer than 1 MiB"), std::string::npos) << got.message;
  }
}

// Past the bound on blank and comment lines, the error names the line that passes it,
// wherever the blocks and parts end.
TEST_F(MatrixMarketChunks, TooManyBlankLinesFailAtTheLineThatPassesTheBound) {
  const long long declared = 2;
  const std::string text = kGeneral + "2 2 2\n1 1 1\n" +
                           std::string(static_cast<std::size_t>(io::kMaxSpareLines) + 8, '\n') +
                           "2 2 1\n";
  const long want = 3 + static_cast<long>(io::kMaxSpareLines + declared) + 1;
  for (const std::string& path : write(text)) {
    for (const int threads : {1, 2}) {
      const test::ScopedHostThreads scoped(threads);
      for (const io::Chunking chunking : {io::Chunking{}, io::Chunking{4096, 1000}}) {
        SCOPED_TRACE(path + ", threads " + std::to_string(threads) + ", block " +
                     std::to_string(chunking.block_bytes));
        const Outcome got = read(path, chunking);
        ASSERT_TRUE(got.failed);
        EXPECT_EQ(got.line, want) << got.message;
        EXPECT_NE(got.message.find("blank or comment lines"), std::string::npos) << got.message;
      }
    }
  }
}

}  // namespace
}  // namespace prism
