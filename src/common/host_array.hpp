#pragma once
// Host arrays whose elements are not written when allocated, so that the threads that
// later read them can write them first: on a NUMA host the OS places a page on the node
// of the thread that first touches it (first touch), where std::vector's value
// initialisation would place every page on the allocating thread's node.

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace prism::common {

/// std::allocator that default-initialises (leaves trivial elements unwritten) where
/// std::vector would value-initialise.
template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector whose resize(n) leaves the new elements unwritten (for double and index_t):
/// the owner writes them, on the threads that will read them.
template <typename T>
using HostArray = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace prism::common
