#pragma once
// Vector kernels of the PCG iteration. Traffic per call, in doubles: dot 2n reads;
// axpy/xpay 2n reads + n writes; cg_update 4n reads + 2n writes.

#include <prism/types.hpp>

namespace prism::kernels::reference {

/// x . y
double dot(index_t n, const double* x, const double* y);

/// y += a x
void axpy(index_t n, double a, const double* x, double* y);

/// y = x + b y
void xpay(index_t n, const double* x, double b, double* y);

/// x += alpha p ; r -= alpha q ; returns r . r (the fused CG update)
double cg_update(index_t n, double alpha, const double* p, const double* q, double* x, double* r);

/// r -= alpha q ; returns r . r (the residual half of the fused CG step, x left alone)
double cg_residual(index_t n, double alpha, const double* q, double* r);

/// The Chronopoulos-Gear step: p = u + beta p; s = w + beta s (with `first`: p = u,
/// s = w); x += alpha p; r -= alpha s; returns r . r
double gear_update(index_t n, double alpha, double beta, bool first, const double* u,
                   const double* w, double* p, double* s, double* x, double* r);

/// sums[0] = r . u, sums[1] = w . u
void gear_dots(index_t n, const double* r, const double* u, const double* w, double sums[2]);

/// y = d .* x (Jacobi with d = 1 / diag(A))
void pointwise_multiply(index_t n, const double* d, const double* x, double* y);

/// y = x
void copy(index_t n, const double* x, double* y);

/// y[i] = x[perm[i]]
void gather(index_t n, const index_t* perm, const double* x, double* y);

/// y[perm[i]] = x[i]
void scatter(index_t n, const index_t* perm, const double* x, double* y);

}  // namespace prism::kernels::reference
