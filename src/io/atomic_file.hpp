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
/// A symbolic link is written through (its target is replaced, the link stays); a target
/// that is not a regular file (a device such as /dev/null, a FIFO, /dev/stdout on a pipe)
/// is written in place, never replaced; a regular file without write permission is not
/// touched.
///
/// Throws IoError("cannot write PATH: reason") when the temporary file cannot be created,
/// written or renamed, or the target is read-only or a directory; if `write` itself throws, that
/// exception propagates unchanged. In every failing case the temporary file is removed and `path`
/// is left as it was.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace prism::io
