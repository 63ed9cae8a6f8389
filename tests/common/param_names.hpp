#pragma once
// Names of parameterized tests. Without a name generator GoogleTest numbers the
// instantiations and prints a struct parameter as its bytes; names may hold only
// [A-Za-z0-9_] and must be unique within an instantiation.

#include <prism/options.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <tuple>

namespace prism {

/// Prints an Ordering by its name in parameters' descriptions (GoogleTest finds it by
/// argument-dependent lookup), where it would print the enum's bytes.
inline void PrintTo(Ordering ordering, std::ostream* os) {
  *os << to_string(ordering);
}

}  // namespace prism

namespace prism::test {

/// `text` with every character outside [A-Za-z0-9_] replaced by '_'.
inline std::string param_name(std::string text) {
  for (char& c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return text;
}

/// A matrix file's name without its extensions: "bcsstk13.mtx.gz" gives "bcsstk13".
inline std::string file_stem_name(const std::string& file) {
  return param_name(file.substr(0, file.find('.')));
}

/// Names an integer size parameter "n<size>".
struct SizeName {
  template <typename T>
  std::string operator()(const ::testing::TestParamInfo<T>& info) const {
    return "n" + std::to_string(info.param);
  }
};

/// Names a shared/ matrix file parameter by its stem: "bcsstk08".
struct FileStemName {
  template <typename T>
  std::string operator()(const ::testing::TestParamInfo<T>& info) const {
    return file_stem_name(info.param);
  }
};

/// Every preconditioner type (auto too) with both orderings: the parameters of the
/// whole-solve suites.
inline auto all_preconditioners_and_orderings() {
  return ::testing::Combine(::testing::Values("none", "jacobi", "ic0", "block_ic", "auto"),
                            ::testing::Values(Ordering::natural, Ordering::color));
}

/// Names a (preconditioner, ordering) parameter "ic0_color".
inline std::string precond_ordering_name(
    const ::testing::TestParamInfo<std::tuple<std::string, Ordering>>& info) {
  return std::get<0>(info.param) + "_" + std::string(to_string(std::get<1>(info.param)));
}

}  // namespace prism::test
