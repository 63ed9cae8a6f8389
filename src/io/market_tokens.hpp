#pragma once
/// @file
/// The tokens of a Matrix Market line: indices and values, read exactly as strtol and
/// strtod read them. The functions work on one NUL-terminated line and throw
/// EntryError with the reason; the caller adds the file and line (InputError).

#include <prism/matrix_market.hpp>
#include <prism/types.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>

namespace prism::io {

/// Why a line is not a valid entry; the reader turns it into an InputError at the line.
class EntryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

inline const char* skip_space(const char* p) {
  while (is_space(*p)) ++p;
  return p;
}

inline bool ends_token(char c) {
  return c == '\0' || is_space(c);
}

/// The token at p, shortened for error messages.
inline std::string token_at(const char* p) {
  p = skip_space(p);
  const char* end = p;
  while (!ends_token(*end)) ++end;
  constexpr std::ptrdiff_t kMaxShown = 40;
  if (end - p > kMaxShown) return std::string(p, kMaxShown) + "...";
  return std::string(p, end);
}

/// The end of the token at p, or `line_end` (the NUL ending its line) where the caller
/// knows it: a number never runs over a blank or a NUL, so std::from_chars reads the same
/// number from either, and the line's tokens need no scan of their own.
inline const char* token_limit(const char* p, const char* line_end) {
  if (line_end != nullptr) return line_end;
  while (!ends_token(*p)) ++p;
  return p;
}

/// strtol, faster: std::from_chars for a plain decimal token, strtol for anything else
/// (a '+' sign, out of range), so both accept and reject alike; errno as strtol leaves it
/// (reset first). Returns the end of the number, or p where there is none.
inline const char* parse_long(const char* p, long& value, const char* line_end = nullptr) {
  errno = 0;
  const auto [next, error] = std::from_chars(p, token_limit(p, line_end), value);
  if (error == std::errc() && ends_token(*next)) return next;
  char* tail = nullptr;
  value = std::strtol(p, &tail, 10);
  return tail;
}

/// strtod, faster: std::from_chars (libstdc++ 12 on: fast_float, correctly rounded as
/// strtod) for a plain decimal token, strtod for anything else (a '+' sign, hexadecimal,
/// "inf", "nan", out of range), so both accept, round and reject alike. Returns the end
/// of the number, or p where there is none.
inline const char* parse_double(const char* p, double& value, const char* line_end = nullptr) {
#if defined(__cpp_lib_to_chars)
  const auto [next, error] = std::from_chars(p, token_limit(p, line_end), value);
  if (error == std::errc() && ends_token(*next)) return next;
#else
  (void)line_end;
#endif
  char* tail = nullptr;
  value = std::strtod(p, &tail);
  return tail;
}

/// A 1-based index in [1, limit] at p (after blanks); `what` is "row" or "column".
/// Moves p past it. `line_end`: the NUL that ends p's line, where known.
inline index_t parse_index(const char*& p, long long limit, const char* what,
                           const char* line_end = nullptr) {
  p = skip_space(p);
  if (*p == '\0') throw EntryError(std::string("missing ") + what + " index");
  long value = 0;
  const char* end = parse_long(p, value, line_end);
  if (end == p || !ends_token(*end)) {
    throw EntryError(std::string("bad ") + what + " index '" + token_at(p) + "' (not an integer)");
  }
  if (errno == ERANGE || value < 1 || value > limit) {
    throw EntryError(std::string(what) + " index " + token_at(p) + " out of range [1, " +
                     std::to_string(limit) + "]");
  }
  p = end;
  return static_cast<index_t>(value);
}

/// A value of a real or integer file at p (after blanks); moves p past it. NaN, Inf and
/// overflow fail. `line_end`: the NUL that ends p's line, where known.
inline double parse_value(const char*& p, MatrixMarketInfo::Field field,
                          const char* line_end = nullptr) {
  p = skip_space(p);
  if (*p == '\0') throw EntryError("missing value");
  if (field == MatrixMarketInfo::Field::integer) {
    char* end = nullptr;
    errno = 0;
    const long long integer = std::strtoll(p, &end, 10);
    if (end == p || !ends_token(*end)) {
      throw EntryError("non-integer value '" + token_at(p) + "' in an integer matrix");
    }
    if (errno == ERANGE) throw EntryError("integer value '" + token_at(p) + "' out of range");
    p = end;
    return static_cast<double>(integer);
  }
  double value = 0.0;
  const char* end = parse_double(p, value, line_end);
  if (end == p || !ends_token(*end)) throw EntryError("non-numeric value '" + token_at(p) + "'");
  // strtod accepts "nan" and "inf" and turns overflow such as 1e999 into inf.
  if (!std::isfinite(value)) throw EntryError("value '" + token_at(p) + "' is NaN or Inf");
  p = end;
  return value;
}

/// Fails unless only blanks follow p.
inline void expect_end_of_entry(const char* p) {
  p = skip_space(p);
  if (*p != '\0') throw EntryError("trailing characters '" + token_at(p) + "' after the entry");
}

}  // namespace prism::io
