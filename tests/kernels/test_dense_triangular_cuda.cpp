// CUDA dense triangular solves against the reference (kernels/reference/dense_triangular.cpp):
// trsv for n in {1, 2, 31, 32, 33, 127, 128, 129, 1000, 4097}, every uplo x op x diag, both
// precisions, every algorithm that applies (single_block for n <= 128, global_sync with 32-,
// 64- and 128-row block rows, with and without explicit diagonal-block inversion, for every
// n, and 32-row block rows split into helper segments), each with lda = n + 3 and n + 4
// (global_sync copies tiles in 16-byte pieces when the columns allow it, element by element
// otherwise: both paths, rows reversed or not, in both precisions); batched trsv with mixed sizes
// (batch of 1 and of 300, n = 0 included); trsm with nrhs in {1, 7, 64, 1000} and m, nrhs on and
// off the 64 tile, alpha in {-0.75, 1, 0}, lda and ldb past m, with and without a caller's
// workspace; a TrsvWorkspace reused across solves of changing size, precision and variant, and
// replayed in a CUDA graph. NaN is planted wherever BLAS must not read (other triangle, unit
// diagonal, lda padding) and the padding rows of B must come back untouched. Matrices and the 16 n
// u bound: see test_dense_triangular.cpp (kappa_inf <= 5; both solutions backward stable). Skips
// without a device.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <prism/errors.hpp>

#include "common/device_copy.hpp"
#include "common/gpu.hpp"
#include "common/param_names.hpp"
#include "kernels/cuda/dense_triangular.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/dense_triangular.hpp"
#include "kernels/dense_triangular_test_matrices.hpp"

namespace {

using prism::index_t;
using prism::kernels::TriDiag;
using prism::kernels::TriOp;
using prism::kernels::TriUplo;
using prism::kernels::cuda::DeviceBuffer;
using prism::kernels::cuda::TrsvAlgorithm;
using prism::kernels::cuda::TrsvOptions;
namespace ref = prism::kernels::reference;
namespace gpu = prism::kernels::cuda;

using prism::test::bound;
using prism::test::download;
using prism::test::kDiags;
using prism::test::kOps;
using prism::test::kUplos;
using prism::test::make_rhs;
using prism::test::make_triangle;
using prism::test::uniform;
using prism::test::variant_name;

// max over columns of ||got_j - want_j||_inf / ||want_j||_inf (inf when got has a NaN).
template <typename T>
double rel_error(const std::vector<T>& got, const std::vector<T>& want, index_t n, index_t nrhs,
                 index_t ldb) {
  double worst = 0;
  for (index_t j = 0; j < nrhs; ++j) {
    double diff = 0, norm = 0;
    for (index_t i = 0; i < n; ++i) {
      const double g = got[i + std::size_t(j) * ldb];
      const double w = want[i + std::size_t(j) * ldb];
      if (std::isnan(g)) return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::abs(g - w));
      norm = std::max(norm, std::abs(w));
    }
    if (norm > 0) worst = std::max(worst, diff / norm);
  }
  return worst;
}

template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& h) {
  DeviceBuffer<T> d(h.size());
  d.upload(h.data(), nullptr);
  return d;
}

template <typename T>
void trsv_one(TriUplo u, TriOp o, TriDiag d, index_t n, index_t lda, const TrsvOptions& options,
              const char* label, DeviceBuffer<unsigned char>& ws) {
  SCOPED_TRACE(::testing::Message() << variant_name(u, o, d) << " n=" << n << " lda=" << lda << " "
                                    << label << " " << 8 * sizeof(T) << "-bit");
  const auto a = make_triangle<T>(u, d, n, lda, 17 * n + 1);
  const auto b = make_rhs<T>(n, 31 * n + 5);
  auto want = b;
  ref::trsv(u, o, d, n, a.data(), lda, want.data());
  auto da = to_device(a);
  auto dx = to_device(b);
  gpu::trsv(u, o, d, n, da.data(), lda, dx.data(), ws.data(), ws.size(), nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_LE(rel_error(download(dx), want, n, 1, n), bound<T>(n));
  // A untouched (NaN compares unequal: compare bit patterns via memcmp).
  const auto a_back = download(da);
  EXPECT_EQ(0, std::memcmp(a_back.data(), a.data(), a.size() * sizeof(T)));
}

template <typename T>
void trsv_case(index_t n, const TrsvOptions& options, const char* label) {
  DeviceBuffer<unsigned char> ws(gpu::trsv_workspace_bytes(n));
  for (index_t pad : {3, 4}) {
    for (TriUplo u : kUplos) {
      for (TriOp o : kOps) {
        for (TriDiag d : kDiags) trsv_one<T>(u, o, d, n, n + pad, options, label, ws);
      }
    }
  }
}

template <typename T>
void trsv_all_algorithms(index_t n) {
  if (n <= gpu::trsv_small_max_n) {
    trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::single_block, false, 4, 0}, "single_block");
  }
  for (int rows : {32, 64, 128}) {
    const std::string label = "global_sync/" + std::to_string(rows);
    trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::global_sync, false, 4, rows}, label.c_str());
    // invert_from_block_row = 0 exercises the inverse on every chunk, even for n <= 32;
    // 5 switches it on in the middle of a 64- or 128-row block row.
    trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::global_sync, true, 0, rows},
                 (label + "+inverse").c_str());
    trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::global_sync, true, 5, rows},
                 (label + "+inverse from 5").c_str());
  }
  // Split 32-row block rows, helpers of 32 tiles (the shortest): rows past 64 tiles get
  // helpers (n = 4097 here), every other n runs through the split kernel without any.
  trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::global_sync, true, 4, 32, 32}, "split 32");
  trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::global_sync, false, 4, 32, 40}, "split 40");
  trsv_case<T>(n, TrsvOptions{TrsvAlgorithm::global_sync, true, 4, 32, -1}, "never split");
  trsv_case<T>(n, TrsvOptions{}, "automatic");
}

// global_sync marks unsolved entries of its published solution with the all-ones NaN. A
// right-hand side holding that very bit pattern (and other NaNs) must still finish, with
// NaN exactly where the reference has it and the reference's values elsewhere.
template <typename T>
void trsv_nan_rhs_case(TriDiag d, const TrsvOptions& options) {
  const index_t n = 300;
  SCOPED_TRACE(::testing::Message() << (d == TriDiag::unit ? "unit" : "non-unit") << " rows "
                                    << options.block_rows << " " << 8 * sizeof(T) << "-bit");
  // Diagonal 2, column 0 below it 0.25, zeros elsewhere: every row from the first NaN
  // (b(77)) on is NaN (0 * NaN in the reference's sums), every row before it finite, rows
  // 64 .. 76 of its 32-row chunk included (an inverted diagonal block's upper zeros must
  // not be multiplied by it).
  std::vector<T> a(std::size_t(n) * n, T(0));
  for (index_t i = 0; i < n; ++i) {
    a[i + std::size_t(i) * n] = T(2);
    if (i > 0) a[i] = T(0.25);
  }
  auto b = make_rhs<T>(n, 7);
  std::vector<unsigned char> ones(sizeof(T), 0xff);
  std::memcpy(&b[77], ones.data(), sizeof(T));  // the all-ones NaN
  b[200] = std::numeric_limits<T>::quiet_NaN();
  std::memcpy(&b[299], ones.data(), sizeof(T));
  auto want = b;
  ref::trsv(TriUplo::lower, TriOp::none, d, n, a.data(), n, want.data());
  DeviceBuffer<unsigned char> ws(gpu::trsv_workspace_bytes(n));
  gpu::TrsvWorkspace ready(n);
  auto da = to_device(a);
  // A plain workspace, then a TrsvWorkspace twice (the second solve finds what the first,
  // with its NaNs, left behind).
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(::testing::Message() << "run " << run);
    auto dx = to_device(b);
    if (run == 0) {
      gpu::trsv(TriUplo::lower, TriOp::none, d, n, da.data(), n, dx.data(), ws.data(), ws.size(),
                nullptr, options);
    } else {
      gpu::trsv(TriUplo::lower, TriOp::none, d, n, da.data(), n, dx.data(), ready, nullptr,
                options);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto got = download(dx);
    for (index_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::isnan(got[i]), std::isnan(want[i])) << "row " << i;
      if (!std::isnan(want[i])) {
        EXPECT_NEAR(double(got[i]), double(want[i]), 1e-5 * std::abs(double(want[i])))
            << "row " << i;
      }
    }
  }
}

TEST(DenseTrsvCudaNan, UnsolvedMarkInRightHandSideFinishes) {
  PRISM_SKIP_WITHOUT_GPU();
  for (TriDiag d : kDiags) {
    for (int rows : {32, 64, 128}) {
      trsv_nan_rhs_case<double>(d, TrsvOptions{TrsvAlgorithm::global_sync, true, 0, rows});
      trsv_nan_rhs_case<double>(d, TrsvOptions{TrsvAlgorithm::global_sync, false, 4, rows});
      trsv_nan_rhs_case<float>(d, TrsvOptions{TrsvAlgorithm::global_sync, true, 0, rows});
    }
  }
}

// A TrsvWorkspace is left ready by each solve (it resets what the solve before used of the
// other copy): one workspace through solves of changing size, precision, variant, block rows
// and split, each against the reference; a leftover mark or stale value would hang or be
// wrong.
template <typename T>
void trsv_workspace_step(gpu::TrsvWorkspace& ws, TriUplo u, TriOp o, index_t n,
                         const TrsvOptions& options) {
  SCOPED_TRACE(::testing::Message()
               << variant_name(u, o, TriDiag::non_unit) << " n=" << n << " rows "
               << options.block_rows << " " << 8 * sizeof(T) << "-bit");
  const index_t lda = n + 4;
  const auto a = make_triangle<T>(u, TriDiag::non_unit, n, lda, 5 * n + 2);
  const auto b = make_rhs<T>(n, 3 * n + 1);
  auto want = b;
  ref::trsv(u, o, TriDiag::non_unit, n, a.data(), lda, want.data());
  auto da = to_device(a);
  auto dx = to_device(b);
  gpu::trsv(u, o, TriDiag::non_unit, n, da.data(), lda, dx.data(), ws, nullptr, options);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_LE(rel_error(download(dx), want, n, 1, n), bound<T>(n));
}

TEST(DenseTrsvCudaWorkspace, StaysReadyAcrossSolves) {
  PRISM_SKIP_WITHOUT_GPU();
  gpu::TrsvWorkspace ws(4097);
  EXPECT_EQ(ws.max_n(), 4097);
  const auto gs = TrsvAlgorithm::global_sync;
  // Large, then small, then large again (entries a small solve does not use stay ready),
  // both precisions on the same bytes, every block-row size, substituted and inverted.
  trsv_workspace_step<double>(ws, TriUplo::lower, TriOp::none, 4097, {gs, true, 4, 32});
  trsv_workspace_step<double>(ws, TriUplo::upper, TriOp::none, 33, {gs, false, 4, 64});
  trsv_workspace_step<float>(ws, TriUplo::lower, TriOp::transpose, 1000, {gs, true, 0, 128});
  trsv_workspace_step<double>(ws, TriUplo::upper, TriOp::transpose, 4097, {gs, true, 4, 64});
  trsv_workspace_step<float>(ws, TriUplo::lower, TriOp::none, 4097, {});
  trsv_workspace_step<double>(ws, TriUplo::lower, TriOp::none, 1, {gs, true, 0, 32});
  trsv_workspace_step<double>(ws, TriUplo::lower, TriOp::none, 2048, {});
  trsv_workspace_step<double>(ws, TriUplo::lower, TriOp::none, 32, {});  // single_block
  trsv_workspace_step<float>(ws, TriUplo::lower, TriOp::none, 48, {});
  trsv_workspace_step<double>(ws, TriUplo::upper, TriOp::none, 129, {gs, false, 4, 32});
  // Split rows: the helpers' partial sums after xpub, reset like it.
  trsv_workspace_step<double>(ws, TriUplo::lower, TriOp::none, 4097, {gs, true, 4, 32, 32});
  trsv_workspace_step<float>(ws, TriUplo::upper, TriOp::transpose, 4000, {gs, true, 4, 32, 40});
  trsv_workspace_step<double>(ws, TriUplo::lower, TriOp::transpose, 4097, {gs, false, 4, 32, 32});
  // Moved: the new owner's workspace is as ready.
  gpu::TrsvWorkspace moved(std::move(ws));
  EXPECT_EQ(moved.max_n(), 4097);
  trsv_workspace_step<float>(moved, TriUplo::upper, TriOp::transpose, 3000, {});
  // Larger than it was made for.
  DeviceBuffer<double> a(4), x(2);
  EXPECT_THROW(gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 4098, a.data(), 4098,
                         x.data(), moved, nullptr),
               prism::ConfigError);
}

// A solve captured in a CUDA graph leaves the workspace ready at the end of each replay, so
// the graph runs again and again with nothing else resetting it (n = 5000: the automatic
// choice splits the last block rows, so helpers' partial sums are reset too).
TEST(DenseTrsvCudaWorkspace, GraphReplaysNeedNoReset) {
  PRISM_SKIP_WITHOUT_GPU();
  const index_t n = 5000;
  gpu::TrsvWorkspace ws(n);
  const auto a = make_triangle<double>(TriUplo::lower, TriDiag::non_unit, n, n, 77);
  const auto b = make_rhs<double>(n, 78);
  auto want = b;
  ref::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, n, a.data(), n, want.data());
  auto da = to_device(a);
  auto db = to_device(b);
  DeviceBuffer<double> dx(n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the uploads, before another stream
  cudaStream_t stream{};
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph{};
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpyAsync(dx.data(), db.data(), n * sizeof(double), cudaMemcpyDeviceToDevice, stream),
      cudaSuccess);
  gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, n, da.data(), n, dx.data(), ws, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphExec_t exec{};
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 4; ++replay) {
    SCOPED_TRACE(::testing::Message() << "replay " << replay);
    ASSERT_EQ(cudaMemsetAsync(dx.data(), 0, n * sizeof(double), stream), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_LE(rel_error(download(dx), want, n, 1, n), bound<double>(n));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

class DenseTrsvCuda : public ::testing::TestWithParam<index_t> {};

TEST_P(DenseTrsvCuda, IsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  trsv_all_algorithms<double>(GetParam());
}
TEST_P(DenseTrsvCuda, IsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  trsv_all_algorithms<float>(GetParam());
}

// The sizes, and 63 and 64: single_block's two-warp kernel full and one row short.
INSTANTIATE_TEST_SUITE_P(Sizes, DenseTrsvCuda,
                         ::testing::Values(1, 2, 31, 32, 33, 63, 64, 127, 128, 129, 1000, 4097),
                         prism::test::SizeName());

struct TrsmCase {
  index_t m, nrhs;
  index_t lda_pad = 1, ldb_pad = 2;
  double alpha = -0.75;
  bool own_workspace = false;  // the overload with a caller's workspace
};

std::ostream& operator<<(std::ostream& os, const TrsmCase& c) {
  return os << "m=" << c.m << " nrhs=" << c.nrhs << " lda=m+" << c.lda_pad << " ldb=m+" << c.ldb_pad
            << " alpha=" << c.alpha << (c.own_workspace ? " workspace" : "");
}

// "m130_nrhs70", the arguments that differ from the defaults appended:
// "_ldapad37_ldbpad41_alpha1", "_alpham0_75", "_workspace".
std::string trsm_case_name(const ::testing::TestParamInfo<TrsmCase>& info) {
  const TrsmCase& c = info.param;
  const TrsmCase defaults{c.m, c.nrhs};
  std::string name = "m" + std::to_string(c.m) + "_nrhs" + std::to_string(c.nrhs);
  if (c.lda_pad != defaults.lda_pad) name += "_ldapad" + std::to_string(c.lda_pad);
  if (c.ldb_pad != defaults.ldb_pad) name += "_ldbpad" + std::to_string(c.ldb_pad);
  if (c.alpha != defaults.alpha) {
    std::ostringstream alpha;
    alpha << c.alpha;
    std::string text = alpha.str();
    if (text[0] == '-') text[0] = 'm';
    name += "_alpha" + prism::test::param_name(text);
  }
  if (c.own_workspace) name += "_workspace";
  return name;
}

// Every trsm algorithm: the automatic choice, the data-flow kernel alone, and the blocked
// algorithm with 64- and 192-row diagonal blocks (several blocks, a short last one, and
// GEMM updates on the test sizes); diagonal tiles inverted (the default) and substituted.
const gpu::TrsmOptions kTrsmVariants[] = {
    {gpu::TrsmAlgorithm::automatic, 0, true},  {gpu::TrsmAlgorithm::data_flow, 0, true},
    {gpu::TrsmAlgorithm::data_flow, 0, false}, {gpu::TrsmAlgorithm::blocked, 64, true},
    {gpu::TrsmAlgorithm::blocked, 192, false},
};

std::string describe(const gpu::TrsmOptions& o) {
  const char* names[] = {"automatic", "data_flow", "blocked"};
  return std::string(names[static_cast<int>(o.algorithm)]) +
         " block_rows=" + std::to_string(o.block_rows) +
         (o.invert_diagonal_blocks ? " inverted" : " substituted");
}

template <typename T>
void trsm_case(const TrsmCase& c) {
  const index_t m = c.m, nrhs = c.nrhs;
  for (TriUplo u : kUplos) {
    for (TriOp o : kOps) {
      for (TriDiag d : kDiags) {
        SCOPED_TRACE(::testing::Message()
                     << variant_name(u, o, d) << " " << c << " " << 8 * sizeof(T) << "-bit");
        const index_t lda = m + c.lda_pad;
        const index_t ldb = m + c.ldb_pad;
        const auto a = make_triangle<T>(u, d, m, lda, 7 * m + 3);
        const auto b = make_rhs<T>(std::size_t(ldb) * nrhs, 11 * m + nrhs);
        auto want = b;
        const T alpha = static_cast<T>(c.alpha);
        ref::trsm(u, o, d, m, nrhs, alpha, a.data(), lda, want.data(), ldb);
        auto da = to_device(a);
        for (const gpu::TrsmOptions& opt : kTrsmVariants) {
          SCOPED_TRACE(describe(opt));
          auto db = to_device(b);
          if (c.own_workspace) {
            DeviceBuffer<unsigned char> ws(gpu::trsm_workspace_bytes(m, nrhs));
            gpu::trsm(u, o, d, m, nrhs, alpha, da.data(), lda, db.data(), ldb, ws.data(), ws.size(),
                      nullptr, opt);
            ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          } else {
            gpu::trsm(u, o, d, m, nrhs, alpha, da.data(), lda, db.data(), ldb, nullptr, opt);
          }
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          const auto got = download(db);
          if (c.alpha == 0) {
            double worst = 0;
            for (index_t j = 0; j < nrhs; ++j) {
              for (index_t i = 0; i < m; ++i) {
                worst = std::max(worst, std::abs(double(got[i + std::size_t(j) * ldb])));
              }
            }
            EXPECT_EQ(worst, 0.0);
          } else {
            EXPECT_LE(rel_error(got, want, m, nrhs, ldb), bound<T>(m));
          }
          for (index_t j = 0; j < nrhs; ++j) {
            for (index_t i = m; i < ldb; ++i) {
              ASSERT_EQ(got[i + std::size_t(j) * ldb], b[i + std::size_t(j) * ldb]);
            }
          }
        }
        const auto a_back = download(da);
        EXPECT_EQ(0, std::memcmp(a_back.data(), a.data(), a.size() * sizeof(T)));
      }
    }
  }
}

class DenseTrsmCuda : public ::testing::TestWithParam<TrsmCase> {};

TEST_P(DenseTrsmCuda, IsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  trsm_case<double>(GetParam());
}
TEST_P(DenseTrsmCuda, IsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  trsm_case<float>(GetParam());
}

// m and nrhs below, on and past the 64 x 64 tile; many tiles in both directions.
INSTANTIATE_TEST_SUITE_P(Sizes, DenseTrsmCuda,
                         ::testing::Values(TrsmCase{1, 1}, TrsmCase{33, 1}, TrsmCase{129, 1},
                                           TrsmCase{1, 7}, TrsmCase{31, 7}, TrsmCase{200, 7},
                                           TrsmCase{32, 64}, TrsmCase{129, 64}, TrsmCase{33, 1000},
                                           TrsmCase{1000, 1000}, TrsmCase{64, 64}, TrsmCase{65, 65},
                                           TrsmCase{128, 130}, TrsmCase{63, 127},
                                           TrsmCase{1024, 100}, TrsmCase{300, 700},
                                           TrsmCase{4097, 3}),
                         trsm_case_name);
// alpha = 1 and 0, leading dimensions well past m, the caller-workspace overload.
INSTANTIATE_TEST_SUITE_P(Arguments, DenseTrsmCuda,
                         ::testing::Values(TrsmCase{130, 70, 37, 41, 1.0},
                                           TrsmCase{130, 70, 1, 2, 0.0},
                                           TrsmCase{257, 129, 64, 3, -0.75, true},
                                           TrsmCase{1, 5, 0, 0, 2.0, true}),
                         trsm_case_name);

template <typename T>
void batched_case(index_t batch, index_t max_n) {
  for (TriUplo u : kUplos) {
    for (TriOp o : kOps) {
      for (TriDiag d : kDiags) {
        SCOPED_TRACE(::testing::Message() << variant_name(u, o, d) << " batch=" << batch
                                          << " max_n=" << max_n << " " << 8 * sizeof(T) << "-bit");
        std::uint64_t s = 99 + batch;
        std::vector<index_t> n(batch), lda(batch);
        std::vector<std::vector<T>> a(batch), want(batch), b(batch);
        std::vector<DeviceBuffer<T>> da, dx;
        std::vector<const T*> ap(batch), dap(batch);
        std::vector<T*> xp(batch), dxp(batch);
        const index_t planted[] = {1, 2, 31, 32, 33, 127, 128, 0, 64, 96};
        for (index_t k = 0; k < batch; ++k) {
          n[k] =
              k < 10 ? std::min(planted[k], max_n) : static_cast<index_t>(uniform(s) * (max_n + 1));
          lda[k] = std::max<index_t>(1, n[k] + (k % 3));
          a[k] = make_triangle<T>(u, d, n[k], lda[k], 1000 + k);
          b[k] = make_rhs<T>(n[k], 2000 + k);
          want[k] = b[k];
          ap[k] = a[k].data();
          xp[k] = want[k].data();
          da.push_back(to_device(a[k]));
          dx.push_back(to_device(b[k]));
          dap[k] = da.back().data();
          dxp[k] = dx.back().data();
        }
        ref::trsv_batched(u, o, d, batch, n.data(), ap.data(), lda.data(), xp.data());
        auto dn = to_device(n);
        auto dlda = to_device(lda);
        auto dA = to_device(dap);
        auto dX = to_device(dxp);
        gpu::trsv_batched(u, o, d, batch, max_n, dn.data(), dA.data(), dlda.data(), dX.data(),
                          nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        for (index_t k = 0; k < batch; ++k) {
          if (n[k] == 0) continue;
          EXPECT_LE(rel_error(download(dx[k]), want[k], n[k], 1, n[k]), bound<T>(n[k]))
              << "system " << k << " n=" << n[k];
        }
      }
    }
  }
}

TEST(DenseTrsvBatchedCuda, MixedSizesAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  batched_case<double>(1, 128);
  batched_case<double>(300, 128);
  batched_case<double>(300, 40);  // smaller shared-memory footprint
  batched_case<double>(300, 32);  // max_n <= 32: a warp per system
  batched_case<double>(5, 17);
  batched_case<float>(300, 32);
  batched_case<float>(1, 128);
  batched_case<float>(300, 128);
}

TEST(DenseTriangularCuda, RejectsBadArguments) {
  PRISM_SKIP_WITHOUT_GPU();
  DeviceBuffer<double> a(4), x(2);
  EXPECT_THROW(
      gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 200, a.data(), 200, x.data(),
                nullptr, 0, nullptr, TrsvOptions{TrsvAlgorithm::single_block, false, 4}),
      prism::ConfigError);
  EXPECT_THROW(gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 200, a.data(), 200,
                         x.data(), nullptr, 0, nullptr),
               prism::ConfigError);  // global_sync without workspace
  {
    DeviceBuffer<unsigned char> small(gpu::trsv_workspace_bytes(64));
    EXPECT_THROW(gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 200, a.data(), 200,
                           x.data(), small.data(), small.size(), nullptr),
                 prism::ConfigError);  // workspace sized for a smaller n
  }
  EXPECT_THROW(gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, a.data(), 1, x.data(),
                         nullptr, 0, nullptr),
               prism::ConfigError);
  EXPECT_THROW(
      gpu::trsv(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, a.data(), 2, x.data(), nullptr,
                0, nullptr, TrsvOptions{TrsvAlgorithm::global_sync, false, 4, 48}),
      prism::ConfigError);  // block_rows not 32, 64 or 128
  EXPECT_THROW(gpu::trsm(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, 2, 1.0, a.data(), 2,
                         x.data(), 1, nullptr),
               prism::ConfigError);  // ldb < m
  EXPECT_THROW(gpu::trsm(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, 1, 1.0, a.data(), 2,
                         x.data(), 2, nullptr, 0, nullptr),
               prism::ConfigError);  // no workspace
  for (index_t rows : {-64, 32, 100}) {
    EXPECT_THROW(gpu::trsm(TriUplo::lower, TriOp::none, TriDiag::non_unit, 2, 1, 1.0, a.data(), 2,
                           x.data(), 2, nullptr, {gpu::TrsmAlgorithm::blocked, rows}),
                 prism::ConfigError);  // block_rows not a positive multiple of 64
  }
}

}  // namespace
