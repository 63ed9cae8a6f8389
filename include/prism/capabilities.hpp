#pragma once
/// @file
/// What this build of prism offers: the registered preconditioners and whether the CUDA
/// backend can run here (for `backend: auto` and for listings such as `prism options`).

#include <string>
#include <vector>

namespace prism {

/// Names of the registered preconditioners ("none", "jacobi", "ic0").
std::vector<std::string> preconditioner_names();

/// True when prism was built with CUDA and a CUDA device is usable.
bool cuda_available();

}  // namespace prism
