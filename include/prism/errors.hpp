#pragma once
/// @file
/// Typed exceptions. The library never prints and never exits: every failure is one
/// of these, with a one-line message that names the file and line (inputs), the key
/// (configuration), the row (matrix checks) or the call (backends).

#include <stdexcept>
#include <string>

namespace prism {

/// Base of every exception prism throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A malformed input file (Matrix Market, vector file). Message: "FILE:LINE: what".
class InputError : public Error {
 public:
  InputError(const std::string& file, long line, const std::string& what)
      : Error(line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what),
        file_(file),
        line_(line) {}
  const std::string& file() const noexcept { return file_; }
  /// 1-based line number; 0 when the problem is not tied to one line.
  long line() const noexcept { return line_; }

 private:
  std::string file_;
  long line_;
};

/// An invalid problem description or option (unknown key, wrong type, bad value).
/// Message: "FILE:LINE:COL: what" when it comes from a problem file.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A matrix that prism cannot solve with (not square, not symmetric, non-positive
/// diagonal, ...). The message names the first offending row or entry.
class InvalidMatrixError : public Error {
 public:
  using Error::Error;
};

/// A numerical failure that cannot be recovered (for example an incomplete
/// factorization that breaks down even with the largest allowed diagonal shift).
class NumericalError : public Error {
 public:
  using Error::Error;
};

/// A failing backend call (CUDA runtime, cuBLAS, cuSPARSE). Message names the
/// call, the source file and line and the library's error string.
class BackendError : public Error {
 public:
  using Error::Error;
};

/// The GPU ran out of memory (an allocation of the CUDA runtime, cuBLAS or cuSPARSE
/// failed): the problem is too large for the device's free memory. The message names
/// the call and the device memory free and in all. With `backend: auto`, Solver::setup
/// catches it and sets up on the CPU instead.
class DeviceMemoryError : public BackendError {
 public:
  using BackendError::BackendError;
};

/// Operating-system level failures (cannot open or write a file).
class IoError : public Error {
 public:
  using Error::Error;
};

}  // namespace prism
