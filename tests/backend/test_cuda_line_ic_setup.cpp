// Line IC's set-up on the GPU from the ordered matrix kept there (kernels/cuda/
// line_ic_setup.hpp, Backend::make_line_ic_on_backend) against the host's
// (kernels/reference/line_ic_setup.cpp, what precond/line_ic.cpp runs): the same split
// (patterns, sources, the first pair of coupled rows of one color), the same factor bit
// for bit at every shift (failed rows and pivots included), and line_ic set up on the kept
// matrix applying bit for bit as line_ic set up on the host's P A P^T, with the same
// reports and errors. Matrices in the solver's line-multicolor order (find_lines,
// order_lines, color_lines). Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/lines.hpp>

#include "backend/backend.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "backend/setup.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/line_ic_setup.hpp"
#include "kernels/line_ic_setup.hpp"
#include "kernels/setup_test_matrices.hpp"
#include "precond/preconditioner.hpp"
#include "solver/line_order.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels;
namespace kc = prism::kernels::cuda;

/// A matrix in the caller's order with its line-multicolor order.
struct LinedCase {
  std::string name;
  CsrMatrix<double> a;
  std::vector<index_t> permutation;  // permutation[new] = old
  prism::BlockPartition lines;       // in the new order
  std::vector<index_t> color_ptr;
};

/// The solver's order for line_ic: find_lines, order_lines, color_lines.
LinedCase lined(const std::string& name, const CsrMatrix<double>& a) {
  prism::solver::LineOrder order = prism::solver::order_lines(prism::find_lines(a));
  prism::solver::color_lines(a, order, prism::VertexOrder::natural);
  return {name, a, order.permutation, order.lines, order.color_ptr};
}

/// a with its couplings between different lines scaled by `factor` (still symmetric).
CsrMatrix<double> scale_couplings(const LinedCase& c, double factor) {
  std::vector<index_t> line_of(static_cast<std::size_t>(c.a.rows));
  for (index_t l = 0; l < c.lines.count(); ++l) {
    for (index_t i = c.lines.ptr[l]; i < c.lines.ptr[l + 1]; ++i) line_of[c.permutation[i]] = l;
  }
  CsrMatrix<double> s = c.a;
  for (index_t i = 0; i < s.rows; ++i) {
    for (index_t p = s.row_ptr[i]; p < s.row_ptr[i + 1]; ++p) {
      if (line_of[s.col_idx[p]] != line_of[i]) s.values[p] *= factor;
    }
  }
  return s;
}

std::vector<LinedCase> cases() {
  std::vector<LinedCase> c;
  c.push_back(lined("anisotropic3d along x", prism::anisotropic3d(9, 6, 5, 1.0, 1e-3, 1e-2)));
  c.push_back(lined("anisotropic3d along z", prism::anisotropic3d(5, 6, 33, 1e-2, 1e-3, 1.0)));
  c.push_back(lined("anisotropic3d 37x21x18", prism::anisotropic3d(37, 21, 18, 1.0, 1e-2, 1e-2)));
  c.push_back(lined("stretched3d", prism::stretched3d(7, 5, 40, 100.0)));
  c.push_back(lined("lines of one row (poisson3d)", prism::poisson3d(7, 6, 5)));
  // One line of all rows: a chain in its natural order, one color.
  const CsrMatrix<double> chain = prism::anisotropic3d(1, 1, 70, 1.0, 1.0, 1.0);
  LinedCase one{"one line of all rows", chain, {}, {}, {0, 1}};
  for (index_t i = 0; i < chain.rows; ++i) one.permutation.push_back(i);
  one.lines.ptr = {0, chain.rows};
  c.push_back(std::move(one));
  c.push_back(lined("rotated3d", prism::rotated3d(11, 9, 6, 1.0, 1e-2, 1e-2)));
  // Irregular: short lines, many colors, rows of varying length.
  c.push_back(lined("random symmetric 1999", prism::test::random_symmetric(1999, 9000, 4)));
  c.push_back(lined("elasticity3d", prism::elasticity3d(3, 4, 3, 1, {1.0})));
  // Pivots that need a shift: couplings between lines (here every coupling) 2.5 times A's,
  // so the unshifted factorization breaks down.
  LinedCase shifted = lined("poisson3d, couplings x2.5", prism::poisson3d(7, 6, 5));
  shifted.a = scale_couplings(shifted, 2.5);
  c.push_back(std::move(shifted));
  LinedCase anisotropic =
      lined("anisotropic3d, couplings x40", prism::anisotropic3d(6, 5, 9, 1e-2, 1e-2, 1.0));
  anisotropic.a = scale_couplings(anisotropic, 40.0);
  c.push_back(std::move(anisotropic));
  // A negative diagonal entry in a middle row.
  LinedCase negative = lined("negative diagonal", prism::anisotropic3d(5, 6, 9, 1e-2, 1e-3, 1.0));
  const index_t row = negative.a.rows / 2;
  for (index_t p = negative.a.row_ptr[row]; p < negative.a.row_ptr[row + 1]; ++p) {
    if (negative.a.col_idx[p] == row) negative.a.values[p] = -negative.a.values[p];
  }
  c.push_back(std::move(negative));
  return c;
}

/// c's colors with the first two (or the last two) merged: lines of one color coupled
/// (when there are two colors).
std::vector<index_t> merged_colors(const std::vector<index_t>& color_ptr, bool last = false) {
  std::vector<index_t> merged = color_ptr;
  if (merged.size() >= 3) merged.erase(last ? merged.end() - 2 : merged.begin() + 1);
  return merged;
}

struct Ordered {
  CsrMatrix<double> m;          // P A P^T
  std::vector<index_t> source;  // ordered entry <- the caller's entry
};

Ordered order(const LinedCase& c) {
  Ordered o;
  o.m = prism::permute_symmetric(c.a, c.permutation, &o.source);
  return o;
}

k::CsrView<double> pattern(const CsrMatrix<double>& m) {
  return {m.rows, m.cols, m.row_ptr.data(), m.col_idx.data(), nullptr};
}

template <typename T>
std::vector<T> download(const kc::DeviceBuffer<T>& b) {
  return kc::download_and_wait(b, nullptr);
}

std::uint64_t bits(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out;
  for (double x : v) out.push_back(bits(x));
  return out;
}

/// The device split of o.m equals the reference's; returns the reference's.
k::LineIcSplit expect_same_split(const Ordered& o, const std::vector<index_t>& line_ptr,
                                 const std::vector<index_t>& color_ptr) {
  const k::LineIcSplit want = k::reference::line_ic_split(pattern(o.m), line_ptr, color_ptr);
  const kc::DeviceBuffer<index_t> row_ptr = kc::upload_and_wait(o.m.row_ptr, nullptr);
  const kc::DeviceBuffer<index_t> col_idx = kc::upload_and_wait(o.m.col_idx, nullptr);
  const kc::DeviceLineIcSplit got = kc::line_ic_split_device(
      {o.m.rows, o.m.cols, row_ptr.data(), col_idx.data(), nullptr}, line_ptr, color_ptr, nullptr);
  EXPECT_EQ(got.coupled_row, want.coupled_row);
  EXPECT_EQ(got.coupled_col, want.coupled_col);
  EXPECT_EQ(download(got.line_ptr), line_ptr);
  EXPECT_EQ(download(got.line_of), k::reference::line_ic_line_of(line_ptr));
  if (want.coupled_row >= 0) return want;
  EXPECT_EQ(download(got.lower_ptr), want.lower_ptr);
  EXPECT_EQ(download(got.lower_col), want.lower_col);
  EXPECT_EQ(download(got.lower_source), want.lower_source);
  EXPECT_EQ(download(got.upper_ptr), want.upper_ptr);
  EXPECT_EQ(download(got.upper_col), want.upper_col);
  EXPECT_EQ(download(got.upper_source), want.upper_source);
  EXPECT_EQ(download(got.diagonal_source), want.diagonal_source);
  EXPECT_EQ(download(got.sub_source), want.sub_source);
  return want;
}

TEST(CudaLineIcSetup, SplitIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const LinedCase& c : cases()) {
    SCOPED_TRACE(c.name);
    const Ordered o = order(c);
    const k::LineIcSplit s = expect_same_split(o, c.lines.ptr, c.color_ptr);
    EXPECT_EQ(s.coupled_row, -1);
    // The first two colors as one: the first coupled pair of rows, as the host names it.
    for (const bool last : {false, true}) {
      if (c.color_ptr.size() < 3) break;
      const k::LineIcSplit bad =
          expect_same_split(o, c.lines.ptr, merged_colors(c.color_ptr, last));
      EXPECT_GE(bad.coupled_row, 0);
    }
  }
  // No rows.
  Ordered empty;
  empty.m.row_ptr = {0};
  expect_same_split(empty, {0}, {0});
}

/// Operands of an attempt, on the host and on the device.
struct Operands {
  std::vector<index_t> line_of;
  CsrMatrix<double> lower;
  std::vector<double> diagonal, below, sub, inverse_diagonal, band_diagonal, band_off;
  kc::DeviceBuffer<index_t> d_line_ptr, d_line_of, d_lower_ptr, d_lower_col;
  kc::DeviceBuffer<double> d_lower, d_diagonal, d_below, d_sub, d_inverse, d_band_diagonal,
      d_band_off;
  kc::DeviceBuffer<int> d_failed{1};
  kc::DeviceBuffer<double> d_failure{2};

  Operands(const Ordered& o, const k::LineIcSplit& s, const std::vector<index_t>& line_ptr) {
    const auto n = static_cast<std::size_t>(o.m.rows);
    const auto gather = [&](const std::vector<index_t>& from) {
      std::vector<double> to(from.size());
      for (std::size_t p = 0; p < from.size(); ++p)
        to[p] = from[p] >= 0 ? o.m.values[from[p]] : 0.0;
      return to;
    };
    line_of = k::reference::line_ic_line_of(line_ptr);
    lower.rows = lower.cols = o.m.rows;
    lower.row_ptr = s.lower_ptr;
    lower.col_idx = s.lower_col;
    lower.values = gather(s.lower_source);
    diagonal = gather(s.diagonal_source);
    below = gather(s.sub_source);
    sub.assign(n, 0.0);
    inverse_diagonal.assign(n, 0.0);
    band_diagonal.assign(n, 0.0);
    band_off.assign(n, 0.0);
    d_line_ptr = kc::upload_and_wait(line_ptr, nullptr);
    d_line_of = kc::upload_and_wait(line_of, nullptr);
    d_lower_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
    d_lower_col = kc::upload_and_wait(lower.col_idx, nullptr);
    d_lower = kc::upload_and_wait(lower.values, nullptr);
    d_diagonal = kc::upload_and_wait(diagonal, nullptr);
    d_below = kc::upload_and_wait(below, nullptr);
    d_sub = kc::upload_and_wait(sub, nullptr);
    d_inverse = kc::upload_and_wait(inverse_diagonal, nullptr);
    d_band_diagonal = kc::upload_and_wait(band_diagonal, nullptr);
    d_band_off = kc::upload_and_wait(band_off, nullptr);
  }
  k::LineIcAttemptView host(const std::vector<index_t>& line_ptr) {
    return {
        lower.rows,
        line_ptr.data(),
        line_of.data(),
        {lower.rows, lower.cols, lower.row_ptr.data(), lower.col_idx.data(), lower.values.data()},
        diagonal.data(),
        below.data(),
        sub.data(),
        inverse_diagonal.data(),
        band_diagonal.data(),
        band_off.data()};
  }
  k::LineIcAttemptView device() {
    return {lower.rows,
            d_line_ptr.data(),
            d_line_of.data(),
            {lower.rows, lower.cols, d_lower_ptr.data(), d_lower_col.data(), d_lower.data()},
            d_diagonal.data(),
            d_below.data(),
            d_sub.data(),
            d_inverse.data(),
            d_band_diagonal.data(),
            d_band_off.data()};
  }
};

// Per shift of a ladder: the same verdict (row, pivot, diagonal) and, after a success, the
// same factor and band bit for bit.
TEST(CudaLineIcSetup, AttemptIsEquivalentToReferenceBitForBit) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const LinedCase& c : cases()) {
    SCOPED_TRACE(c.name);
    const Ordered o = order(c);
    const k::LineIcSplit s = k::reference::line_ic_split(pattern(o.m), c.lines.ptr, c.color_ptr);
    ASSERT_EQ(s.coupled_row, -1);
    Operands ops(o, s, c.lines.ptr);
    int failures = 0, successes = 0;
    for (double shift = 0.0; shift < 1e3; shift = shift == 0.0 ? 1e-3 : 4.0 * shift) {
      SCOPED_TRACE("shift " + std::to_string(shift));
      double pivot = 0.0;
      const index_t row = k::reference::line_ic_attempt_lines(ops.host(c.lines.ptr), 0,
                                                              c.lines.count(), shift, pivot);
      ASSERT_EQ(cudaMemset(ops.d_failed.data(), kc::kLineIcNoFailureByte, sizeof(int)),
                cudaSuccess);
      for (std::size_t color = 0; color + 1 < c.color_ptr.size(); ++color) {
        kc::line_ic_attempt_lines(ops.device(), c.color_ptr[color], c.color_ptr[color + 1], shift,
                                  ops.d_failed.data(), nullptr);
      }
      kc::line_ic_failure(ops.d_failed.data(), ops.d_inverse.data(), ops.d_diagonal.data(),
                          ops.d_failure.data(), nullptr);
      const int failed = download(ops.d_failed)[0];
      if (row >= 0) {
        ++failures;
        ASSERT_EQ(failed, row);
        const std::vector<double> failure = download(ops.d_failure);
        EXPECT_EQ(bits(failure[0]), bits(pivot));
        EXPECT_EQ(bits(failure[1]), bits(ops.diagonal[row]));
        if (!(ops.diagonal[row] > 0.0)) break;  // no shift helps (the ladder stops)
        continue;
      }
      ++successes;
      EXPECT_EQ(failed, kc::kLineIcNoFailure);
      EXPECT_EQ(bits(download(ops.d_sub)), bits(ops.sub));
      EXPECT_EQ(bits(download(ops.d_inverse)), bits(ops.inverse_diagonal));
      EXPECT_EQ(bits(download(ops.d_band_diagonal)), bits(ops.band_diagonal));
      // Sigma(i, i + 1) is written inside lines only (the rest is never read).
      const std::vector<double> off = download(ops.d_band_off);
      for (index_t l = 0; l < c.lines.count(); ++l) {
        for (index_t i = c.lines.ptr[l]; i + 1 < c.lines.ptr[l + 1]; ++i) {
          ASSERT_EQ(bits(off[i]), bits(ops.band_off[i])) << "row " << i;
        }
      }
      if (successes == 2) break;
    }
    if (c.name.find("couplings x") != std::string::npos) EXPECT_GT(failures, 0);
    if (c.name.find("negative") != std::string::npos) {
      EXPECT_EQ(successes, 0);
    } else {
      EXPECT_GT(successes, 0);
    }
  }
}

/// The ordered matrix kept on the device by a set-up session (the solver's path).
std::unique_ptr<prism::backend::OrderedMatrix> keep(prism::backend::Backend& gpu,
                                                    const LinedCase& c) {
  auto session = gpu.begin_setup(c.a);
  EXPECT_TRUE(session);
  if (!session) return nullptr;
  EXPECT_TRUE(session->check(prism::MatrixCheck::pattern, 0.0));
  return session->permute_kept(c.permutation);
}

std::unique_ptr<prism::precond::Preconditioner> line_ic(prism::backend::Backend& backend,
                                                        const LinedCase& c,
                                                        const std::vector<index_t>& color_ptr) {
  auto m = prism::precond::Registry::instance().create("line_ic", backend,
                                                       prism::PreconditionerOptions{});
  m->set_blocks(c.lines);
  m->set_block_colors(color_ptr);
  return m;
}

/// What `call` throws (its message), or "no error".
template <typename Call>
std::string error_of(const Call& call) {
  try {
    call();
  } catch (const prism::Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<double> apply(prism::backend::Backend& gpu, prism::precond::Preconditioner& m,
                          const std::vector<double>& r) {
  auto rv = gpu.make_vector(static_cast<index_t>(r.size()));
  auto zv = gpu.make_vector(static_cast<index_t>(r.size()));
  gpu.copy_from_host(r, *rv);
  m.apply(*rv, *zv);
  std::vector<double> z;
  gpu.copy_to_host(*zv, z);
  return z;
}

// The engine's verdicts per shift through the kept matrix's map equal the reference's.
TEST(CudaLineIcSetup, EngineAttemptsAsTheReference) {
  PRISM_SKIP_WITHOUT_GPU();
  auto gpu = prism::backend::make_backend(prism::BackendKind::cuda, nullptr);
  for (const LinedCase& c : cases()) {
    SCOPED_TRACE(c.name);
    const Ordered o = order(c);
    const k::LineIcSplit s = k::reference::line_ic_split(pattern(o.m), c.lines.ptr, c.color_ptr);
    Operands ops(o, s, c.lines.ptr);
    auto kept = keep(*gpu, c);
    ASSERT_TRUE(kept);
    auto engine = gpu->make_line_ic_on_backend(*kept, c.lines, c.color_ptr);
    EXPECT_EQ(engine->coupled_rows(), std::make_pair(index_t{-1}, index_t{-1}));
    EXPECT_EQ(engine->lower_nnz(), static_cast<index_t>(s.lower_col.size()));
    EXPECT_EQ(engine->upper_nnz(), static_cast<index_t>(s.upper_col.size()));
    engine->load({kept->given_values(), nullptr});
    for (const double shift : {0.0, 1e-3, 0.5, 8.0}) {
      double pivot = 0.0;
      const index_t row = k::reference::line_ic_attempt_lines(ops.host(c.lines.ptr), 0,
                                                              c.lines.count(), shift, pivot);
      const prism::backend::LineIcStatus status = engine->attempt(shift);
      EXPECT_EQ(status.row, row) << shift;
      if (row >= 0) {
        EXPECT_EQ(bits(status.pivot), bits(pivot)) << shift;
        EXPECT_EQ(bits(status.diagonal), bits(ops.diagonal[row])) << shift;
      }
    }
    if (c.color_ptr.size() >= 3) {
      auto bad = gpu->make_line_ic_on_backend(*kept, c.lines, merged_colors(c.color_ptr));
      const k::LineIcSplit want =
          k::reference::line_ic_split(pattern(o.m), c.lines.ptr, merged_colors(c.color_ptr));
      EXPECT_EQ(bad->coupled_rows(), std::make_pair(want.coupled_row, want.coupled_col));
    }
  }
}

// line_ic on the kept matrix (analyze_on_backend, backend_factorization) against line_ic on
// the host's P A P^T (analyze, factorize), both solving on the GPU: the same apply bit for
// bit, the same report, after set-up and after new values; the same errors.
TEST(CudaLineIcSetup, LineIcOnTheKeptMatrixAppliesAsTheHostPath) {
  PRISM_SKIP_WITHOUT_GPU();
  auto gpu = prism::backend::make_backend(prism::BackendKind::cuda, nullptr);
  for (const LinedCase& c : cases()) {
    SCOPED_TRACE(c.name);
    const Ordered o = order(c);
    auto kept = keep(*gpu, c);
    ASSERT_TRUE(kept);
    auto host = line_ic(*gpu, c, c.color_ptr);
    auto device = line_ic(*gpu, c, c.color_ptr);
    host->analyze(o.m);
    ASSERT_TRUE(device->analyze_on_backend(*kept));
    ASSERT_NE(device->backend_factorization(), nullptr);
    EXPECT_EQ(host->traffic(), device->traffic());
    const std::string host_error = error_of([&] { host->factorize(o.m); });
    const std::string device_error = error_of([&] {
      device->backend_factorization()->factorize({kept->given_values(), nullptr});
    });
    EXPECT_EQ(device_error, host_error);
    if (host_error != "no error") {
      EXPECT_NE(c.name.find("negative"), std::string::npos) << host_error;
      continue;
    }
    EXPECT_EQ(device->info().factorization.retries, host->info().factorization.retries);
    EXPECT_EQ(device->info().factorization.shift, host->info().factorization.shift);
    if (c.name.find("couplings x") != std::string::npos) {
      EXPECT_GT(host->info().factorization.retries, 0);
    }
    const std::vector<double> r = prism::test::random_vector(c.a.rows, 5);
    EXPECT_EQ(bits(apply(*gpu, *device, r)), bits(apply(*gpu, *host, r)));

    // New values on the pattern (the diagonal 1.5 times), through the same map.
    CsrMatrix<double> a2 = c.a;
    for (index_t i = 0; i < a2.rows; ++i) {
      for (index_t p = a2.row_ptr[i]; p < a2.row_ptr[i + 1]; ++p) {
        if (a2.col_idx[p] == i) a2.values[p] *= 1.5;
      }
    }
    Ordered o2 = o;
    for (std::size_t p = 0; p < o2.source.size(); ++p) o2.m.values[p] = a2.values[o2.source[p]];
    host->factorize(o2.m);
    const double* staged = gpu->stage(a2.values);
    device->backend_factorization()->factorize({staged, nullptr});
    EXPECT_EQ(bits(apply(*gpu, *device, r)), bits(apply(*gpu, *host, r)));
    EXPECT_GT(device->host_bytes(), 0u);

    // Lines of one color coupled: the host's message.
    if (c.color_ptr.size() >= 3) {
      auto host_bad = line_ic(*gpu, c, merged_colors(c.color_ptr));
      auto device_bad = line_ic(*gpu, c, merged_colors(c.color_ptr));
      const std::string want = error_of([&] { host_bad->analyze(o.m); });
      EXPECT_NE(want.find("are coupled but lie in different lines of one color"),
                std::string::npos);
      EXPECT_EQ(error_of([&] { device_bad->analyze_on_backend(*kept); }), want);
    }
  }
}

}  // namespace
