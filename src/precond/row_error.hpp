// A preconditioner's failure at rows of the matrix it was given: the rows stay data next to
// the message, so that Solver, which owns the ordering and the numbering, can name them as
// its caller does (the caller's row, from 0 or from 1) instead of as the ordered matrix
// numbers them.
#pragma once

#include <prism/errors.hpp>
#include <prism/types.hpp>

#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace prism::precond {

/// A row of the preconditioner's matrix (0-based), named in a RowText.
struct Row {
  index_t index;
};

/// A message with rows in it: text[0] rows[0] text[1] ... rows[n-1] text[n]. Built with <<.
class RowText {
 public:
  template <typename T>
  RowText& operator<<(const T& part) {
    std::ostringstream out;
    out << part;
    text_.back() += out.str();
    return *this;
  }
  RowText& operator<<(Row row) {
    rows_.push_back(row.index);
    text_.emplace_back();
    return *this;
  }
  const std::vector<index_t>& rows() const { return rows_; }
  /// The message with each row r written as name(r).
  std::string format(const std::function<std::string(index_t)>& name) const {
    std::string out = text_[0];
    for (std::size_t k = 0; k < rows_.size(); ++k) out += name(rows_[k]) + text_[k + 1];
    return out;
  }
  /// The message with the rows as the preconditioner's matrix numbers them, from 0.
  std::string format() const {
    return format([](index_t r) { return std::to_string(r); });
  }

 private:
  std::vector<std::string> text_{std::string()};
  std::vector<index_t> rows_;
};

/// What Solver catches: the rows of a RowError, whatever its public type.
class RowFailure {
 public:
  explicit RowFailure(RowText text) : text_(std::move(text)) {}
  virtual ~RowFailure() = default;
  const RowText& text() const { return text_; }
  /// Throws the public type again with `message` (the rows renamed).
  [[noreturn]] virtual void rethrow(const std::string& message) const = 0;

 private:
  RowText text_;
};

/// An E (InvalidMatrixError, NumericalError, ...) whose message names rows of the
/// preconditioner's matrix; what() numbers them from 0 in that matrix's order.
template <typename E>
class RowError : public E, public RowFailure {
 public:
  explicit RowError(RowText text) : E(text.format()), RowFailure(std::move(text)) {}
  [[noreturn]] void rethrow(const std::string& message) const override { throw E(message); }
};

}  // namespace prism::precond
