#pragma once
// The CLI's process-wide allocator setting (the library leaves the allocator alone).

namespace prism::cli {

/// Set-up allocates and frees arrays of tens to hundreds of MB one after another (the
/// text of the matrix, its checks, the permutation, the factor's patterns). glibc serves
/// every block of 32 MiB and more with its own mmap and unmaps it at free, so each new
/// array faults its pages in and the kernel zeroes them again. This asks glibc to serve
/// blocks up to 1 GiB from its heap and to keep up to 1 GiB of freed memory there, so
/// that later arrays reuse the pages. Not done where the user set either value
/// (GLIBC_TUNABLES, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) or off glibc.
void reuse_freed_memory();

}  // namespace prism::cli
