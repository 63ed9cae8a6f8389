#pragma once
// A minimal streaming JSON writer (objects, arrays, strings, numbers, booleans) with
// two-space indentation. Non-finite numbers are written as null, as JSON has no NaN.

#include <string>
#include <string_view>
#include <vector>

namespace prism::io {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The key of the next value inside an object.
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(long long number);
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();

  /// The document; every begin must have been ended.
  const std::string& str() const { return out_; }

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

/// s with JSON string escapes applied (no surrounding quotes).
std::string json_escape(std::string_view s);

}  // namespace prism::io
