#pragma once
// The partition method inside a block (Laszlo, Giles and Appleyard, "Manycore algorithms
// for batch scalar and block tridiagonal solvers", ACM TOMS 42(4), 2016) replaces the
// in-shared PCR steps of Kim et al. (ICPP 2011): one PCR step over every row costs about
// one more memory pass in shared-memory traffic, the partition method's elimination runs
// in registers. Thread q of a unit owns rows lo..hi of it (chunk of n rows) and reduces
// them, with x_lo and x_hi kept as unknowns, to
//   top:    x_lo + a^ x_{lo-1} + c^ x_hi     = d^    (bottom-up elimination)
//   bottom: x_hi + a~ x_lo     + c~ x_{hi+1} = d~    (top-down elimination)
// and every interior row to x_j = d''_j - a''_j x_lo - c''_j x_hi. The 2 p equations of a
// unit form a tridiagonal system in (x_lo, x_hi) of all its chunks; one cyclic-reduction
// step leaves one equation per thread in w_q = x_hi(q), solved by PCR (warp shuffles when
// the unit's threads are one warp segment, else shared memory). Pass 1 merges the p chunks'
// equations instead into the two of the whole unit.
//
// The arithmetic of that method, shared by the kernels: a chunk's elimination, the merge of
// two ranges' boundary equations, the reduced equations, their PCR steps and the back
// substitution. Internal to kernels/cuda/tridiagonal/.

#include <cuda_runtime.h>

namespace prism::kernels::cuda::tridiagonal {

// The boundary equations of a chunk of cl >= 1 rows with x_lo and x_hi kept as unknowns
// (file comment): top: x_lo + A x_{lo-1} + C x_hi = D, bottom: x_hi + a x_lo + c x_{hi+1} = d.
template <typename T>
struct Boundary {
  T ta = 0, tc = 0, td = 0;
  T ba = 0, bc = 0, bd = 0;
};

// Partition elimination of the chunk in registers: returns its boundary equations and
// leaves every interior row as x_j = rd_j - ra_j x_lo - rc_j x_hi. Needs cl >= 2 except
// for a one-row chunk, whose top equation is the row and bottom one x_hi = x_lo.
template <typename T, int L>
__device__ Boundary<T> partition_chunk(int cl, T (&ra)[L], const T (&rb)[L], T (&rc)[L],
                                       T (&rd)[L]) {
  Boundary<T> e;
  if (cl == 1) {
    const T r = T(1) / rb[0];
    e.ta = ra[0] * r;
    e.tc = rc[0] * r;  // 0 when the row ends its unit (its c moved or dropped)
    e.td = rd[0] * r;
    e.ba = -1;
    return e;
  }
  // Top-down with x_lo kept (rows 1..n-1): x_j + c'_j x_{j+1} + a'_j x_lo = d'_j,
  //   r = 1 / (b_j - a_j c'_{j-1}), c'_j = c_j r, a'_j = -a_j a'_{j-1} r,
  //   d'_j = (d_j - a_j d'_{j-1}) r   (row 1: r = 1 / b_1, a'_1 = a_1 r).
#pragma unroll
  for (int j = 1; j < L; ++j) {
    if (j == 1) {
      const T r = T(1) / rb[1];
      rd[1] *= r;
      ra[1] *= r;
      rc[1] *= r;
    } else if (j < cl) {
      const T r = T(1) / (rb[j] - ra[j] * rc[j - 1]);
      rd[j] = (rd[j] - ra[j] * rd[j - 1]) * r;
      ra[j] = -ra[j] * ra[j - 1] * r;
      rc[j] *= r;
    }
    if (j < cl) {  // the last row's values stay: the bottom equation
      e.ba = ra[j];
      e.bc = rc[j];
      e.bd = rd[j];
    }
  }
  // Bottom-up with x_hi kept (rows n-3..1): x_j = d''_j - a''_j x_lo - c''_j x_hi,
  //   d''_j = d'_j - c'_j d''_{j+1}, a''_j = a'_j - c'_j a''_{j+1}, c''_j = -c'_j c''_{j+1}.
#pragma unroll
  for (int j = L - 3; j >= 1; --j) {
    if (j <= cl - 3) {
      rd[j] -= rc[j] * rd[j + 1];
      ra[j] -= rc[j] * ra[j + 1];
      rc[j] = -rc[j] * rc[j + 1];
    }
  }
  // Row lo with x_{lo+1} substituted (for n = 2, x_{lo+1} is x_hi itself).
  T a1 = 0, c1 = -1, d1 = 0;
  if (cl >= 3) {
    a1 = ra[1];
    c1 = rc[1];
    d1 = rd[1];
  }
  const T r0 = T(1) / (rb[0] - rc[0] * a1);
  e.ta = ra[0] * r0;
  e.tc = -rc[0] * c1 * r0;
  e.td = (rd[0] - rc[0] * d1) * r0;
  return e;
}

// The boundary equations of two adjacent row ranges S1 = [L1, R1] and S2 = [L2 = R1 + 1, R2]
// merged into those of [L1, R2]: the interface unknowns x_R1 and x_L2 are eliminated from
// S1's bottom and S2's top equation (den = 1 - A2 c1),
//   x_R1 = (d1 - c1 D2 - a1 x_L1 + c1 C2 x_R2) / den,
//   x_L2 = (D2 - A2 d1 + A2 a1 x_L1 - C2 x_R2) / den,
// and substituted into S1's top and S2's bottom equation, each renormalized to a unit
// coefficient on its own unknown (block cyclic reduction of the two ranges).
template <typename T>
__device__ Boundary<T> merge_boundaries(const Boundary<T>& s1, const Boundary<T>& s2) {
  const T rden = T(1) / (T(1) - s2.ta * s1.bc);
  const T ur = (s1.bd - s1.bc * s2.td) * rden;  // x_R1 = ur - ar x_L1 + cr x_R2
  const T ar = s1.ba * rden;
  const T cr = s1.bc * s2.tc * rden;
  const T ul = (s2.td - s2.ta * s1.bd) * rden;  // x_L2 = ul + al x_L1 - cl x_R2
  const T al = s2.ta * s1.ba * rden;
  const T cl = s2.tc * rden;
  Boundary<T> e;
  const T rs = T(1) / (T(1) - s1.tc * ar);
  e.ta = s1.ta * rs;
  e.tc = s1.tc * cr * rs;
  e.td = (s1.td - s1.tc * ur) * rs;
  const T rt = T(1) / (T(1) - s2.ba * cl);
  e.ba = s2.ba * al * rt;
  e.bc = s2.bc * rt;
  e.bd = (s2.bd - s2.ba * ul) * rt;
  return e;
}

// The reduced-system equation of a chunk (one per thread, unknown w_q = x_hi(q)), scaled
// to a unit diagonal: x_lo(q) from its own top equation and x_lo(q+1) from the next chunk's
// (na, nc, nd; zero for the unit's last chunk) substituted into its bottom equation
// (solve_kernel comment), then divided by B.
template <typename T>
__device__ void reduced_equation(const Boundary<T>& e, T na, T nc, T nd, T& a, T& c, T& d) {
  const T r = T(1) / (T(1) - e.ba * e.tc - e.bc * na);
  a = -e.ba * e.ta * r;
  c = -e.bc * nc * r;
  d = (e.bd - e.ba * e.td - e.bc * nd) * r;
}

// The PCR step of pcr_step (below) with two more right-hand sides f and g, eliminated
// alongside d (cluster_solve_kernel).
template <typename T>
__device__ void pcr_step3(T& a, T& c, T& d, T& f, T& g, T am, T cm, T dm, T fm, T gm, T ap, T cp,
                          T dp, T fp, T gp) {
  const T r = T(1) / (T(1) - cm * a - ap * c);
  const T na = -am * a * r;
  const T nc = -cp * c * r;
  d = (d - dm * a - dp * c) * r;
  f = (f - fm * a - fp * c) * r;
  g = (g - gm * a - gp * c) * r;
  a = na;
  c = nc;
}

// One PCR step of equation (a, 1, c, d) with its neighbours at distance h, (am, 1, cm, dm)
// before and (ap, 1, cp, dp) after it (the null equation 0, 1, 0, 0 outside the unit), all
// scaled to a unit diagonal: with k1 = a and k2 = c the eliminated equation is
//   (-am a) x_{q-2h} + (1 - cm a - ap c) x_q + (-cp c) x_{q+2h} = d - dm a - dp c,
// scaled back to a unit diagonal by one reciprocal: the unscaled step (k1 = a / bm,
// k2 = c / bp) takes two divisions and exchanges b too.
template <typename T>
__device__ void pcr_step(T& a, T& c, T& d, T am, T cm, T dm, T ap, T cp, T dp) {
  T f = 0, g = 0;  // unused: the compiler drops their arithmetic
  pcr_step3(a, c, d, f, g, am, cm, dm, T(0), T(0), ap, cp, dp, T(0), T(0));
}

// Interior rows of a partitioned chunk from its reduced solution: x_hi = w, x_lo from the
// top equation with wm = x_hi of the chunk before, x_j = d''_j - a''_j x_lo - c''_j x_hi.
template <typename T, int L>
__device__ void back_substitute(const Boundary<T>& e, int cl, T w, T wm, const T (&ra)[L],
                                const T (&rc)[L], T (&rd)[L]) {
  const T xlo = e.td - e.ta * wm - e.tc * w;
#pragma unroll
  for (int j = 0; j < L; ++j) {
    rd[j] = j == 0 ? xlo : (j == cl - 1 ? w : rd[j] - ra[j] * xlo - rc[j] * w);
  }
}

}  // namespace prism::kernels::cuda::tridiagonal
