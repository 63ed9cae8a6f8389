#pragma once
/// @file
/// The CG scalars a backend keeps next to its vectors: one array of kCgScalarCount
/// doubles, so that the device forms alpha and beta itself and an iteration needs no host
/// round trip. The slots are declared once here, for host and device code alike; the
/// backend's Scalar enum (src/backend/backend.hpp) names the same slots.

namespace prism::kernels {

inline constexpr int kCgRz = 0;     ///< r . z of the iteration in progress
inline constexpr int kCgRzNew = 1;  ///< r . z of the next iteration, before beta is formed
inline constexpr int kCgPq = 2;     ///< p . q with q = A p
inline constexpr int kCgRr = 3;     ///< r . r, the squared residual norm
inline constexpr int kCgAlpha = 4;  ///< alpha = rz / pq
inline constexpr int kCgScalarCount = 5;

}  // namespace prism::kernels
