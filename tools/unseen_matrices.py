#!/usr/bin/env python3
"""SPD matrices of kinds the benchmark suite does not have, with problem files to solve them.

    python3 tools/unseen_matrices.py OUT_DIR [--scale S] [--only NAME,NAME]

Writes OUT_DIR/NAME.mtx (symmetric Matrix Market) and two problem files per matrix,
NAME-ic0.yaml (the default preconditioner) and NAME-jacobi.yaml, each solving b = A·1 to
1e-8 with timing: total. Seeded, so a scale always gives the same matrices. Needs NumPy and
SciPy. The matrices (scale 1 / 3):
  tet_elasticity         P1 linear elasticity on a Delaunay tetrahedral mesh of jittered
                         points, Young's modulus log-uniform over 10^3, clamped at z = 0
                         (11.5k / 325k unknowns, 3 a node, rows of 10 to 75 entries)
  tet_elasticity_scaled  the same matrix as D A D, D = 10^U(-4, 4) (rows scaled over 16
                         orders of magnitude)
  p2_jump                P2 Laplacian on a Delaunay triangulation of random points,
                         coefficient 10^4 in 12 discs (60k / 540k unknowns, rows of 5 to
                         50 entries)
  shell6                 6 unknowns a node on a square grid: kron(L, B) + 10^-6 I, B SPD
                         6 x 6 with soft rotations (9.6k / 86k unknowns, 54 entries a row)
  powerlaw               Laplacian of a preferential-attachment graph plus 10^-3 I (20k /
                         180k unknowns, mean 7 entries a row, hubs of up to 319 / 797)
  dense60, one           a dense SPD 60 x 60 matrix and the 1 x 1 matrix [4]
"""
import argparse
import os

import numpy as np
import scipy.sparse as sp
from scipy.spatial import Delaunay

rng = np.random.default_rng(1234)


def write_mm(path, A):
    A = sp.tril(sp.csr_matrix(A)).tocoo()
    order = np.lexsort((A.row, A.col))
    r, c, v = A.row[order] + 1, A.col[order] + 1, A.data[order]
    n = A.shape[0]
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"{n} {n} {len(v)}\n")
        chunk = 200000
        for s in range(0, len(v), chunk):
            e = min(len(v), s + chunk)
            lines = [f"{a} {b} {x:.17g}" for a, b, x in zip(r[s:e].tolist(), c[s:e].tolist(), v[s:e].tolist())]
            f.write("\n".join(lines))
            f.write("\n")
    print(f"{os.path.basename(path)}: n={n} stored={len(v)} nnz={2 * len(v) - n}", flush=True)


def tet_elasticity(npts):
    """P1 linear elasticity on a Delaunay tet mesh of jittered points, E log-uniform over 1e3."""
    m = int(round(npts ** (1 / 3)))
    g = np.stack(np.meshgrid(*[np.linspace(0, 1, m)] * 3, indexing="ij"), -1).reshape(-1, 3)
    h = 1.0 / (m - 1)
    inner = np.all((g > 1e-9) & (g < 1 - 1e-9), axis=1)
    g[inner] += rng.uniform(-0.3 * h, 0.3 * h, size=(inner.sum(), 3))
    tets = Delaunay(g).simplices
    X = g[tets]  # (T, 4, 3)
    J = np.stack([X[:, 1] - X[:, 0], X[:, 2] - X[:, 0], X[:, 3] - X[:, 0]], axis=2)  # columns
    det = np.linalg.det(J)
    keep = np.abs(det) > 1e-12 * h ** 3
    tets, J, det = tets[keep], J[keep], det[keep]
    Jinv = np.linalg.inv(J)
    ref = np.array([[-1, -1, -1], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    G = ref @ Jinv  # (T, 4, 3) gradients of the hat functions
    vol = np.abs(det) / 6
    E = 10 ** rng.uniform(0, 3, size=len(tets))
    nu = 0.3
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    # K_ab(i,j) = vol (lam g_a,i g_b,j + mu g_a,j g_b,i + mu delta_ij g_a . g_b)
    gg = np.einsum("tai,tbj->taibj", G, G)
    dot = np.einsum("taj,tbj->tab", G, G)
    K = (lam[:, None, None, None, None] * gg
         + mu[:, None, None, None, None] * gg.transpose(0, 1, 4, 3, 2)
         + mu[:, None, None, None, None] * np.einsum("tab,ij->taibj", dot, np.eye(3)))
    K *= vol[:, None, None, None, None]
    dof = (3 * tets[:, :, None] + np.arange(3)[None, None, :]).reshape(len(tets), 12)
    rows = np.repeat(dof, 12, axis=1).ravel()
    cols = np.tile(dof, (1, 12)).ravel()
    n = 3 * len(g)
    A = sp.csr_matrix((K.reshape(len(tets), 12, 12).ravel(), (rows, cols)), shape=(n, n))
    A = 0.5 * (A + A.T)
    free = np.repeat(g[:, 2] > 1e-9, 3)
    return A[free][:, free]


def p2_jump(npts):
    """P2 Laplacian on a Delaunay triangulation of random points, coefficient 1 / 1e4 in discs."""
    pts = np.vstack([rng.uniform(0, 1, size=(npts, 2)),
                     np.array([[0, 0], [1, 0], [0, 1], [1, 1]], float)])
    tri = Delaunay(pts).simplices
    edges = np.sort(np.vstack([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
    uniq, inv = np.unique(edges, axis=0, return_inverse=True)
    inv = inv.ravel()
    T = len(tri)
    mid = len(pts) + inv.reshape(3, T).T  # edge nodes 01, 12, 20
    nodes = np.hstack([tri, mid])  # 6 nodes a triangle
    P = pts[tri]
    B = np.stack([P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]], axis=2)
    det = np.linalg.det(B)
    keep = np.abs(det) > 1e-14
    nodes, B, det = nodes[keep], B[keep], det[keep]
    Binv = np.linalg.inv(B)
    # 3-point edge-midpoint quadrature (exact for the degree-2 integrand of P2 gradients)
    qp = np.array([[0.5, 0.0], [0.5, 0.5], [0.0, 0.5]])
    Kloc = np.zeros((len(nodes), 6, 6))
    for (x, y) in qp:
        l0 = 1 - x - y
        dref = np.array([
            [-(4 * l0 - 1), -(4 * l0 - 1)],
            [4 * x - 1, 0],
            [0, 4 * y - 1],
            [4 * (l0 - x), -4 * x],
            [4 * y, 4 * x],
            [-4 * y, 4 * (l0 - y)],
        ])
        Gq = dref @ Binv  # (T, 6, 2)
        Kloc += np.einsum("tai,tbi->tab", Gq, Gq) / 3
    Kloc *= (np.abs(det) / 2)[:, None, None]
    cent = pts[tri[keep]].mean(axis=1)
    centres = rng.uniform(0.1, 0.9, size=(12, 2))
    inside = (np.min(np.linalg.norm(cent[:, None, :] - centres[None], axis=2), axis=1) < 0.06)
    Kloc *= np.where(inside, 1e4, 1.0)[:, None, None]
    n = len(pts) + len(uniq)
    rows = np.repeat(nodes, 6, axis=1).ravel()
    cols = np.tile(nodes, (1, 6)).ravel()
    A = sp.csr_matrix((Kloc.ravel(), (rows, cols)), shape=(n, n))
    A = 0.5 * (A + A.T)
    xy = np.vstack([pts, 0.5 * (pts[uniq[:, 0]] + pts[uniq[:, 1]])])
    bnd = np.any((xy < 1e-12) | (xy > 1 - 1e-12), axis=1)
    return A[~bnd][:, ~bnd]


def shell6(m):
    """6 unknowns a node on an m x m grid: kron(L2D, B) + kron(I, D), B and D SPD 6 x 6."""
    L1 = sp.diags([-np.ones(m - 1), 2 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    I1 = sp.identity(m)
    L2 = sp.kron(L1, I1) + sp.kron(I1, L1) + 0.5 * (sp.kron(sp.diags([np.ones(m - 1), np.ones(m - 1)], [-1, 1]), sp.diags([np.ones(m - 1), np.ones(m - 1)], [-1, 1])))
    M = rng.standard_normal((6, 6))
    Bm = M @ M.T + 0.5 * np.eye(6)
    scale = np.diag([1, 1, 1, 1e-2, 1e-2, 1e-2])  # rotations much softer than translations
    Bm = scale @ Bm @ scale
    Dm = 1e-6 * np.eye(6)
    A = sp.kron(L2, Bm) + sp.kron(sp.identity(m * m), Dm)
    return sp.csr_matrix(A)


def powerlaw(n, k=3):
    """Laplacian of a preferential-attachment graph plus 1e-3 I: a few rows with thousands of entries."""
    src, dst = [], []
    targets = list(range(k))
    repeated = []
    for v in range(k, n):
        chosen = set()
        while len(chosen) < k:
            if repeated and rng.uniform() < 0.9:
                chosen.add(repeated[rng.integers(len(repeated))])
            else:
                chosen.add(int(rng.integers(v)))
        for t in chosen:
            src.append(v)
            dst.append(t)
        repeated.extend(chosen)
        repeated.extend([v] * k)
    w = rng.uniform(0.5, 2.0, size=len(src))
    W = sp.csr_matrix((w, (src, dst)), shape=(n, n))
    W = W + W.T
    d = np.asarray(W.sum(axis=1)).ravel()
    return sp.diags(d + 1e-3) - W


def scaled(A):
    """D A D with D = 10^U(-4, 4): badly scaled rows, the same SPD matrix up to scaling."""
    d = 10 ** rng.uniform(-4, 4, size=A.shape[0])
    D = sp.diags(d)
    return sp.csr_matrix(D @ A @ D)


def dense_spd(n):
    M = rng.standard_normal((n, n))
    return sp.csr_matrix(M @ M.T + n * np.eye(n))


def write_problems(out, name):
    for pc, line in (("ic0", None), ("jacobi", "preconditioner: jacobi")):
        with open(f"{out}/{name}-{pc}.yaml", "w") as f:
            f.write(f"name: {name}-{pc}\nmatrix: {{file: {name}.mtx}}\nrhs: manufactured\n")
            f.write("solver: {tolerance: 1.0e-8, max_iterations: 20000, timing: total}\n")
            if line:
                f.write(line + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--only", default=None, help="comma-separated names")
    args = parser.parse_args()
    out, s = args.out, args.scale
    only = args.only.split(",") if args.only else None
    os.makedirs(out, exist_ok=True)

    def emit(name, matrix):
        write_mm(f"{out}/{name}.mtx", matrix)
        write_problems(out, name)

    # Generated in a fixed order from one seeded generator: --only skips the writing, not
    # the drawing, so a matrix is the same with or without it.
    te = tet_elasticity(4000 * s ** 3)
    te_scaled = scaled(te)
    matrices = [("tet_elasticity", te), ("tet_elasticity_scaled", te_scaled),
                ("p2_jump", p2_jump(15000 * s * s)), ("shell6", shell6(40 * s)),
                ("powerlaw", powerlaw(20000 * s * s)), ("dense60", dense_spd(60)),
                ("one", sp.csr_matrix(np.array([[4.0]])))]
    for name, matrix in matrices:
        if only is None or name in only:
            emit(name, matrix)


if __name__ == "__main__":
    main()
