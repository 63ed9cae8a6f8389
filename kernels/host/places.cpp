// The places OpenMP binds its threads to, for common::host_threads().

#include "kernels/host/threaded.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace prism::kernels::host {

int openmp_places() noexcept {
#ifdef _OPENMP
  return omp_get_num_places();
#else
  return 0;
#endif
}

}  // namespace prism::kernels::host
