#include "io/market_entries.hpp"

#include <prism/errors.hpp>

#include "common/parallel.hpp"
#include "io/market_tokens.hpp"
#include "matrix/row_buckets.hpp"

#include <algorithm>
#include <cstring>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>

namespace prism::io {
namespace {

// A thread's share of a block is at least this much text (about 30k entry lines), so
// small files are read on one thread.
constexpr std::size_t kPartBytes = std::size_t{1} << 20;
// Text read at a time, per thread: large enough that starting the threads costs little,
// small enough that the text next to the triplets stays a fraction of them.
constexpr std::size_t kBlockBytesPerThread = std::size_t{4} << 20;
// A size line can claim any count; reserve at most this many triplets up front (1 GiB),
// so that a corrupt header fails on its missing entries rather than on a huge allocation.
constexpr long long kMaxReservedTriplets = 1LL << 26;

constexpr long long kUnlimited = std::numeric_limits<long long>::max();

// Whole lines of a block, parsed by one thread.
struct Part {
  char* begin = nullptr;
  char* end = nullptr;  // after the last line's '\n', or at the end of the file's last line
  std::vector<Triplet> triplets;
  long long entries = 0;  // entry lines parsed
  long lines = 0;         // lines parsed, the bad one included
  bool failed = false;    // stopped at its line `lines`, for `reason`
  std::string reason;
  // Symmetric files: whether the part stores entries below and above the diagonal.
  bool lower = false;
  bool upper = false;
};

// Parses the lines of `part` in order until the first bad one: a line that fails to parse,
// the first entry line past `allowed` entries or the first blank or comment line past
// `spare_allowed`. *end is writable: it ends the last line while it is parsed.
void parse_part(Part& part, const EntryFormat& format, long long allowed, long long spare_allowed) {
  long long spare = 0;
  // One search of the whole part: the lines are searched one by one only when it holds a
  // NUL byte somewhere.
  const bool nul =
      std::memchr(part.begin, '\0', static_cast<std::size_t>(part.end - part.begin)) != nullptr;
  for (char* line = part.begin; line < part.end; ++part.lines) {
    char* eol =
        static_cast<char*>(std::memchr(line, '\n', static_cast<std::size_t>(part.end - line)));
    if (eol == nullptr) eol = part.end;
    const char ending = *eol;
    *eol = '\0';
    try {
      if (nul && std::strlen(line) != static_cast<std::size_t>(eol - line)) {
        throw EntryError("line contains a NUL byte (not a text file?)");
      }
      // The same limit as LineReader's, whatever the size of the block holding the line.
      if (static_cast<std::size_t>(eol - line) > kMaxLineBytes) throw EntryError(too_long_line());
      const char* p = skip_space(line);
      if (*p == '\0' || *p == '%') {
        if (++spare > spare_allowed) throw EntryError(too_many_spare_lines(format.declared));
      } else {
        if (part.entries == allowed) {
          throw EntryError("more entries than the " + std::to_string(format.declared) +
                           " declared in the size line");
        }
        const index_t i = parse_index(p, format.rows, "row", eol) - 1;
        const index_t j = parse_index(p, format.cols, "column", eol) - 1;
        const double value = format.field == MatrixMarketInfo::Field::pattern
                                 ? 1.0
                                 : parse_value(p, format.field, eol);
        expect_end_of_entry(p);
        part.triplets.push_back({i, j, value});
        if (format.symmetric && i != j) {
          part.triplets.push_back({j, i, value});
          (i > j ? part.lower : part.upper) = true;
        }
        ++part.entries;
      }
    } catch (const EntryError& e) {
      *eol = ending;
      ++part.lines;
      part.failed = true;
      part.reason = e.what();
      return;
    }
    *eol = ending;
    line = eol + 1;
  }
}

// Cuts text[0, size), whole lines, into at most `parts` parts of whole lines. The parts
// take their triplet vectors from `pool` (cleared, their pages kept from block to block).
std::vector<Part> cut(char* text, std::size_t size, std::size_t parts,
                      std::vector<std::vector<Triplet>>& pool) {
  std::vector<Part> result;
  char* begin = text;
  char* const end = text + size;
  for (std::size_t k = 1; k <= parts && begin < end; ++k) {
    char* stop = end;
    if (k < parts) {
      char* const target = text + size * k / parts;
      if (target <= begin) continue;  // the part before ran past this one's share
      char* const eol = static_cast<char*>(
          std::memchr(target - 1, '\n', static_cast<std::size_t>(end - target + 1)));
      stop = eol == nullptr ? end : eol + 1;
    }
    Part part;
    part.begin = begin;
    part.end = stop;
    if (pool.size() < result.size() + 1) pool.resize(result.size() + 1);
    part.triplets = std::move(pool[result.size()]);
    // About 20 bytes a line: room for the part's triplets without regrowing.
    part.triplets.reserve(static_cast<std::size_t>(stop - begin) / 16);
    result.push_back(std::move(part));
    begin = stop;
  }
  return result;
}

// A text buffer of `capacity` bytes and one more, for the NUL parse_part may write at the
// end. Not zeroed: pages the file does not fill are never touched.
struct Block {
  std::unique_ptr<char[]> text;
  std::size_t capacity = 0;

  explicit Block(std::size_t bytes) : text(new char[bytes + 1]), capacity(bytes) {}
  // At least `bytes` of room, text[0, keep) kept.
  void reserve(std::size_t bytes, std::size_t keep) {
    if (bytes <= capacity) return;
    std::unique_ptr<char[]> larger(new char[bytes + 1]);
    std::memcpy(larger.get(), text.get(), keep);
    text = std::move(larger);
    capacity = bytes;
  }
};

// Starts reader.read(data, size) on a thread of its own, or runs it now where none may
// or can start: the future holds the count either way.
std::future<std::size_t> read_ahead(LineReader& reader, char* data, std::size_t size,
                                    bool own_thread) {
  const auto read = [&reader, data, size] { return reader.read(data, size); };
  if (own_thread) {
    try {
      return std::async(std::launch::async, read);
    } catch (const std::system_error&) {
      // no thread: read in turn below
    }
  }
  std::promise<std::size_t> done;
  done.set_value(read());
  return done.get_future();
}

// A symmetric file whose entries lie on both sides of the diagonal (allowed: each entry
// stands for itself and its mirror) must not store a pair twice, as (i, j) and (j, i):
// the coupling would be counted twice, a silently doubled matrix. `triplets` holds each
// stored off-diagonal entry followed by its mirror.
/// The line of entry `ordinal` (0-based, in file order), read again from the file: only
/// an error needs it, so the fast parse keeps no line numbers.
long line_of_entry(const std::string& path, long long ordinal) {
  LineReader reader(path);
  long long entry = -1;  // the size line is the first data line
  while (const char* line = reader.next()) {
    const char* p = skip_space(line);
    if (*p == '\0' || *p == '%') continue;
    if (entry == ordinal) return reader.line();
    ++entry;
  }
  return 0;
}

void check_one_of_each_pair(const std::string& path, const std::vector<Triplet>& triplets) {
  struct Stored {
    index_t row, col;  // (j, i) of a stored (i, j), i < j
    long long entry;   // its place in the file
    bool operator<(const Stored& o) const { return std::tie(row, col) < std::tie(o.row, o.col); }
  };
  std::vector<Stored> above;
  long long entry = 0;
  for (std::size_t k = 0; k < triplets.size(); ++k, ++entry) {
    const Triplet& t = triplets[k];
    if (t.row == t.col) continue;
    if (t.row < t.col) above.push_back({t.col, t.row, entry});
    ++k;  // its mirror
  }
  std::sort(above.begin(), above.end());
  entry = 0;
  for (std::size_t k = 0; k < triplets.size(); ++k, ++entry) {
    const Triplet& t = triplets[k];
    if (t.row == t.col) continue;
    const auto match = std::lower_bound(above.begin(), above.end(), Stored{t.row, t.col, 0});
    if (t.row > t.col && match != above.end() && match->row == t.row && match->col == t.col) {
      throw InputError(path, line_of_entry(path, std::max(entry, match->entry)),
                       "a symmetric file stores each pair once, but both (" +
                           std::to_string(t.row + 1) + ", " + std::to_string(t.col + 1) +
                           ") and (" + std::to_string(t.col + 1) + ", " +
                           std::to_string(t.row + 1) +
                           ") are given: each stands for its mirror too, so the pair would "
                           "count twice (write the file as 'general', or one triangle only)");
    }
    ++k;  // its mirror
  }
}

// What streaming the entry lines found.
struct Streamed {
  long line = 0;        // the last line read
  long long found = 0;  // entry lines
  bool lower = false;   // symmetric files: entries lie below the diagonal
  bool upper = false;   // and above it
};

// The whole lines of text[0, size) as the reader left them: all of it at the end of the
// file; else up to the last line end (none: the line goes on into the next block, unless
// it is already too long); a broken stream keeps only its whole lines.
std::size_t whole_lines(const LineReader& reader, const char* text, std::size_t size, bool at_end,
                        bool broken, long line) {
  if (at_end && !broken) return size;
  // The last line end, searched from the back (a line is short); no memrchr (GNU).
  std::size_t k = size;
  while (k > 0 && text[k - 1] != '\n') --k;
  if (k == 0 && !broken && size > kMaxLineBytes) reader.fail_long_line(line + 1);
  return k;
}

// Reads the entry lines after the size line block by block, parses each block's parts on
// host threads while the next block is read on a thread of its own, and hands the parsed
// parts to take(parts) in file order. Throws at the first bad line in file order.
template <typename Take>
Streamed stream_entries(LineReader& reader, const EntryFormat& format, const Chunking& chunking,
                        const Take& take) {
  const std::string& path = reader.path();
  const auto threads = static_cast<std::size_t>(common::host_threads());
  const std::size_t block_bytes = std::max<std::size_t>(
      chunking.block_bytes != 0 ? chunking.block_bytes : threads * kBlockBytesPerThread, 1);
  const std::size_t part_bytes =
      std::max<std::size_t>(chunking.part_bytes != 0 ? chunking.part_bytes : kPartBytes, 1);
  // Two blocks: the host threads parse one while the next is read into the other (for a
  // .gz file, inflated: zlib's inflate runs on one thread), unless there is one thread.
  Block current(block_bytes), next(block_bytes);
  std::vector<std::vector<Triplet>> pool;
  Streamed s;
  s.line = reader.line();     // lines before current.text[0]
  long long spare_lines = 0;  // blank and comment lines
  const long long spare_allowed = kMaxSpareLines + format.declared;
  std::size_t kept = 0;  // current.text[0, kept): the start of a line carried over
  std::size_t got = reader.read(current.text.get(), current.capacity);
  for (;;) {
    const bool at_end = got < current.capacity - kept;
    // A broken stream ends with a part of a line: only the whole lines before it count.
    const bool broken = at_end && reader.broken();
    const std::size_t size = kept + got;
    char* const text = current.text.get();
    const std::size_t whole = whole_lines(reader, text, size, at_end, broken, s.line);
    // The rest of the last line starts the next block, which is read meanwhile.
    const std::size_t rest = size - whole;
    std::future<std::size_t> ahead;
    if (!at_end) {
      next.reserve(rest + block_bytes, 0);
      std::memcpy(next.text.get(), text + whole, rest);
      ahead = read_ahead(reader, next.text.get() + rest, next.capacity - rest, threads > 1);
    }

    std::vector<Part> parts =
        cut(text, whole, std::clamp<std::size_t>(whole / part_bytes, 1, threads), pool);
    common::parallel_for(parts.size(), 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) {
        if (k == 0) {
          parse_part(parts[k], format, format.declared - s.found, spare_allowed - spare_lines);
        } else {
          parse_part(parts[k], format, kUnlimited, kUnlimited);
        }
      }
    });
    for (Part& part : parts) {
      if (part.failed || s.found + part.entries > format.declared ||
          spare_lines + (part.lines - part.entries) > spare_allowed) {
        // The first bad line of the file lies in this part: parsed again with the exact
        // counts left, the part stops where a line-by-line reading stops. (A read ahead
        // finishes first: its future waits in its destructor.)
        Part exact;
        exact.begin = part.begin;
        exact.end = part.end;
        parse_part(exact, format, format.declared - s.found, spare_allowed - spare_lines);
        throw InputError(path, s.line + exact.lines, exact.reason);
      }
      s.lower = s.lower || part.lower;
      s.upper = s.upper || part.upper;
      s.found += part.entries;
      s.line += part.lines;
      spare_lines += part.lines - part.entries;
    }
    take(parts);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      pool[k] = std::move(parts[k].triplets);
      pool[k].clear();
    }
    if (at_end) {
      reader.fail_if_broken(s.line + 1);
      return s;
    }
    got = ahead.get();
    kept = rest;
    std::swap(current, next);
  }
}

}  // namespace

CsrMatrix<double> read_coordinate_matrix(LineReader& reader, const EntryFormat& format,
                                         const Chunking& chunking) {
  const std::string& path = reader.path();
  const long size_line = reader.line();
  RowBuckets buckets(
      static_cast<index_t>(format.rows), static_cast<index_t>(format.cols),
      std::min(format.symmetric ? 2 * format.declared : format.declared, kMaxReservedTriplets));
  std::vector<std::vector<Triplet>*> pieces;
  const Streamed s = stream_entries(reader, format, chunking, [&](std::vector<Part>& parts) {
    pieces.clear();
    for (Part& part : parts) pieces.push_back(&part.triplets);
    buckets.append(pieces);
  });
  if (s.lower && s.upper) {
    // The check needs the entries in file order, which the buckets do not keep: a file
    // that stores entries in both triangles (rare) is read a second time for it.
    LineReader again(path);
    while (again.line() < size_line && again.next() != nullptr) {
    }
    std::vector<Triplet> triplets;
    triplets.reserve(static_cast<std::size_t>(std::min(2 * s.found, kMaxReservedTriplets)));
    stream_entries(again, format, chunking, [&](std::vector<Part>& parts) {
      for (Part& part : parts) {
        triplets.insert(triplets.end(), part.triplets.begin(), part.triplets.end());
      }
    });
    check_one_of_each_pair(path, triplets);
  }
  if (s.found < format.declared) {
    throw InputError(path, s.line + 1,
                     "too few entries: the size line declares " + std::to_string(format.declared) +
                         ", the file ends after " + std::to_string(s.found));
  }
  try {
    return buckets.build();
  } catch (const InvalidMatrixError& e) {
    // Only the size limit can fail here (indices were checked above); blame the file.
    throw InputError(path, 0, e.what());
  }
}

}  // namespace prism::io
