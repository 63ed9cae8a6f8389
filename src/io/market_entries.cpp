#include "io/market_entries.hpp"

#include <prism/errors.hpp>

#include "common/parallel.hpp"
#include "io/market_tokens.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
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
};

// Parses the lines of `part` in order until the first bad one, or the first entry line
// past `allowed` entries. *end is writable: it ends the last line while it is parsed.
void parse_part(Part& part, const EntryFormat& format, long long allowed) {
  for (char* line = part.begin; line < part.end; ++part.lines) {
    char* eol =
        static_cast<char*>(std::memchr(line, '\n', static_cast<std::size_t>(part.end - line)));
    if (eol == nullptr) eol = part.end;
    const char ending = *eol;
    *eol = '\0';
    try {
      if (std::strlen(line) != static_cast<std::size_t>(eol - line)) {
        throw EntryError("line contains a NUL byte (not a text file?)");
      }
      const char* p = skip_space(line);
      if (*p != '\0' && *p != '%') {
        if (part.entries == allowed) {
          throw EntryError("more entries than the " + std::to_string(format.declared) +
                           " declared in the size line");
        }
        const index_t i = parse_index(p, format.rows, "row") - 1;
        const index_t j = parse_index(p, format.cols, "column") - 1;
        const double value =
            format.field == MatrixMarketInfo::Field::pattern ? 1.0 : parse_value(p, format.field);
        expect_end_of_entry(p);
        part.triplets.push_back({i, j, value});
        if (format.symmetric && i != j) part.triplets.push_back({j, i, value});
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

// Cuts text[0, size), whole lines, into at most `parts` parts of whole lines.
std::vector<Part> cut(char* text, std::size_t size, std::size_t parts) {
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
    // About 20 bytes a line: room for the part's triplets without regrowing.
    part.triplets.reserve(static_cast<std::size_t>(stop - begin) / 16);
    result.push_back(std::move(part));
    begin = stop;
  }
  return result;
}

}  // namespace

std::vector<Triplet> read_coordinate_entries(LineReader& reader, const EntryFormat& format) {
  const std::string& path = reader.path();
  std::vector<Triplet> triplets;
  triplets.reserve(static_cast<std::size_t>(
      std::min(format.symmetric ? 2 * format.declared : format.declared, kMaxReservedTriplets)));

  const auto threads = static_cast<std::size_t>(common::host_threads());
  // Not zeroed: pages the file does not fill are never touched.
  std::size_t capacity = threads * kBlockBytesPerThread;
  std::unique_ptr<char[]> text(new char[capacity + 1]);
  long line = reader.line();  // lines before text[0]
  long long found = 0;
  std::size_t kept = 0;  // text[0, kept): the start of a line carried over
  for (bool at_end = false; !at_end;) {
    const std::size_t room = capacity - kept;
    const std::size_t got = reader.read(text.get() + kept, room);
    at_end = got < room;
    // A broken stream ends with a part of a line: only the whole lines before it count.
    const bool broken = at_end && reader.broken();
    const std::size_t size = kept + got;
    // Whole lines only, unless the file ends: then the rest is its last line.
    std::size_t whole = size;
    if (!at_end || broken) {
      // The last line end (searched from the back: a line is short).
      const char* last = nullptr;
      for (std::size_t k = size; k > 0 && last == nullptr; --k) {
        if (text[k - 1] == '\n') last = &text[k - 1];
      }
      if (broken) {
        whole = last == nullptr ? 0 : static_cast<std::size_t>(last - text.get()) + 1;
      } else if (last == nullptr) {  // a line longer than the block: read more of it
        std::unique_ptr<char[]> larger(new char[2 * capacity + 1]);
        std::memcpy(larger.get(), text.get(), size);
        text = std::move(larger);
        capacity *= 2;
        kept = size;
        continue;
      } else {
        whole = static_cast<std::size_t>(last - text.get()) + 1;
      }
    }

    std::vector<Part> parts =
        cut(text.get(), whole, std::clamp<std::size_t>(whole / kPartBytes, 1, threads));
    common::parallel_for(parts.size(), 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) {
        parse_part(parts[k], format, k == 0 ? format.declared - found : kUnlimited);
      }
    });
    for (Part& part : parts) {
      if (part.failed || found + part.entries > format.declared) {
        // The first bad line of the file lies in this part: parsed again with the exact
        // count left, the part stops where a line-by-line reading stops.
        Part exact;
        exact.begin = part.begin;
        exact.end = part.end;
        parse_part(exact, format, format.declared - found);
        throw InputError(path, line + exact.lines, exact.reason);
      }
      triplets.insert(triplets.end(), part.triplets.begin(), part.triplets.end());
      std::vector<Triplet>().swap(part.triplets);
      found += part.entries;
      line += part.lines;
    }
    kept = size - whole;
    std::memmove(text.get(), text.get() + whole, kept);
    if (at_end) reader.fail_if_broken(line + 1);
  }
  if (found < format.declared) {
    throw InputError(path, line + 1,
                     "too few entries: the size line declares " + std::to_string(format.declared) +
                         ", the file ends after " + std::to_string(found));
  }
  return triplets;
}

}  // namespace prism::io
