#pragma once
/// @file
/// Model SPD problems: finite-difference / finite-volume Laplacians on regular grids
/// with homogeneous Dirichlet boundaries (the boundary unknowns eliminated), and linear
/// elasticity with trilinear finite elements; the grid spacing scaled out. Unknowns are
/// numbered x fastest, then y, then z.

#include <prism/csr_matrix.hpp>

#include <vector>

namespace prism {

/// 2D Poisson, 5-point stencil: 4 on the diagonal, -1 to each neighbour.
CsrMatrix<double> poisson2d(index_t nx, index_t ny);

/// 3D Poisson with the 7-point stencil (6 / -1) or the 27-point stencil (26 / -1 to
/// all 26 neighbours).
CsrMatrix<double> poisson3d(index_t nx, index_t ny, index_t nz, int stencil = 7);

/// Anisotropic diffusion: -cx u_xx - cy u_yy (5-point), coefficients > 0.
CsrMatrix<double> anisotropic2d(index_t nx, index_t ny, double cx, double cy);

/// Anisotropic diffusion: -cx u_xx - cy u_yy - cz u_zz (7-point), coefficients > 0.
CsrMatrix<double> anisotropic3d(index_t nx, index_t ny, index_t nz, double cx, double cy,
                                double cz);

/// Jumping coefficients (layered media): -div(k grad u) with k constant in each of
/// `layers` equal slabs along the last axis (y in 2D, z in 3D), slab s taking
/// coefficients[s % coefficients.size()]. Finite volumes with the harmonic mean of
/// the two cell coefficients on each face. nz == 0 gives the 2D (5-point) problem,
/// otherwise 3D (7-point).
CsrMatrix<double> layered(index_t nx, index_t ny, index_t nz, int layers,
                          const std::vector<double>& coefficients);

/// A stretched grid (a boundary layer): -laplace(u) by cell-centred finite volumes on the
/// unit cube with nx x ny uniform cells across and nz cells along z whose heights grow
/// geometrically from the wall z = 0, the wall cell `aspect` times flatter than it is
/// wide (hx / h_0 = aspect, >= nz / nx; the growth rate fills [0, 1]). Near the wall the z
/// couplings are aspect^2 times the x and y ones, so lines along z carry them. 7-point,
/// homogeneous Dirichlet boundaries.
CsrMatrix<double> stretched3d(index_t nx, index_t ny, index_t nz, double aspect);

/// Anisotropic diffusion whose strong direction is a diagonal of the x-y plane, not a
/// grid axis: -div(K grad u) with K = c_diagonal t t^T + c_antidiagonal s s^T + cz e_z e_z^T,
/// t = (1, 1, 0) / sqrt(2), s = (1, -1, 0) / sqrt(2) (anisotropic3d turned 45 degrees about
/// z). K's x-y block is min(c_diagonal, c_antidiagonal) I plus |c_diagonal - c_antidiagonal|
/// / 2 along the stronger of t and s; the first is the 5-point stencil, the second the
/// second difference to the two diagonal neighbours along that direction, so every coupling
/// is negative: a 9-point M-matrix (7-point when the two coefficients are equal), SPD,
/// whose strong couplings run along the grid's diagonals. Grid spacing scaled out,
/// homogeneous Dirichlet boundaries, coefficients > 0.
CsrMatrix<double> rotated3d(index_t nx, index_t ny, index_t nz, double c_diagonal,
                            double c_antidiagonal, double cz);

/// Linear elasticity (Poisson ratio 0.3) on a brick of nx x ny x nz trilinear (Q1)
/// hexahedra, clamped on the face z = 0: the stiffness matrix of a finite element code,
/// 3 unknowns per node (the x, y, z displacements, node by node), up to 81 entries a row.
/// Young's modulus is constant in each of `layers` equal slabs of elements along z, slab
/// s taking youngs_moduli[s % youngs_moduli.size()]. 3 (nx + 1)(ny + 1) nz unknowns.
/// Assembled on the host threads (PRISM_HOST_THREADS caps them); the matrix is the same
/// bit for bit whatever their number.
CsrMatrix<double> elasticity3d(index_t nx, index_t ny, index_t nz, int layers,
                               const std::vector<double>& youngs_moduli);

}  // namespace prism
