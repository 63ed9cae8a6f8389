#pragma once
/// @file
/// Writing files so that a reader never sees a half-written one.

#include <functional>
#include <iosfwd>
#include <string>

namespace prism::io {

/// Calls `write` with a stream to a fresh temporary file in the directory of `path`, checks
/// the stream, then renames the temporary file over `path`. rename(2) within one directory
/// is atomic on POSIX file systems, so `path` is always either the old file or the complete
/// new one, never a mix, even when two writers race.
///
/// Throws IoError("cannot write PATH: reason") when the temporary file cannot be created,
/// written or renamed; if `write` itself throws, that exception propagates unchanged. In
/// every failing case the temporary file is removed and `path` is left as it was.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace prism::io
