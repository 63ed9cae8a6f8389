#pragma once
// Host memory as the objects that own it count it (SetupReport::host_bytes), and the
// process's resident set as the OS reports it.

#include <prism/csr_matrix.hpp>

#include <cstddef>
#include <vector>

namespace prism::common {

/// The heap bytes a vector holds: its capacity, not its size, since that is what stays
/// allocated.
template <typename T, typename Allocator>
std::size_t bytes_of(const std::vector<T, Allocator>& v) {
  return v.capacity() * sizeof(T);
}

template <typename T>
std::size_t bytes_of(const CsrMatrix<T>& a) {
  return bytes_of(a.row_ptr) + bytes_of(a.col_idx) + bytes_of(a.values);
}

/// Frees what `v` holds (clear() keeps the capacity).
template <typename T, typename Allocator>
void release(std::vector<T, Allocator>& v) {
  std::vector<T, Allocator>().swap(v);
}

/// The process's resident set in bytes (Linux: /proc/self/statm); 0 where the OS does not
/// say.
std::size_t resident_set_bytes();

}  // namespace prism::common
