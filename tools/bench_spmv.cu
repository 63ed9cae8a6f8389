// Benchmark of one SpMV y = A x on matrices with uniform b x b node blocks (FEM codes with b
// unknowns per node): prism's BSR kernel (kernels/cuda/bsr.hpp) against prism's SELL-32 and
// CSR-vector kernels, cusparseSpMV on CSR (CSR_ALG2, the backend's, preprocessed; and ALG1)
// and cusparseDbsrmv on the same BSR arrays. Matrices: elasticity3d (b = 3) at three sizes,
// a quadrilateral-mesh pattern with 6 unknowns per node (shell-like) and with 2 (2D
// elasticity-like), or Matrix Market files (b from their node blocks, or --block).
//
// Every variant's y is checked against the reference CSR SpMV before it is timed. Time: CUDA
// events (tools/bench_timing.hpp), median and min of --reps runs after warm-up, each run
// behind an untimed write of twice the L2 cache, so the matrix and x come from memory as in
// a PCG iteration. Bytes: what a perfect kernel moves in the variant's format (values +
// indices + row, block row or slice pointers + x once + y once, padding included); GB/s from
// them and its % of the device-to-device copy bandwidth measured in the same run. "% best"
// takes the fewest bytes any of the formats moves instead, so it compares the variants with
// one another: the time a perfect kernel on the leanest format takes over the time taken.
//
//   bench_spmv OUT.json [--reps R] [--timing launch|queued] [--small] [--block B] [FILE.mtx...]
//     --small: the smallest matrix of each family only; --block: b for the .mtx files.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>

#include "backend/cuda/cuda_handles.hpp"
#include "io/atomic_file.hpp"
#include "io/json_writer.hpp"
#include "kernels/bsr.hpp"
#include "kernels/cuda/bsr.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/sell.hpp"
#include "kernels/cuda/spmv.hpp"
#include "kernels/sell.hpp"
#include "kernels/spmv.hpp"
#include "tools/bench_timing.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::bench::Stats;
using prism::kernels::cuda::DeviceBuffer;
using prism::kernels::cuda::upload_and_wait;
namespace kc = prism::kernels::cuda;
namespace ref = prism::kernels::reference;
namespace handles = prism::backend::cuda;

using MatDescr = handles::Owned<cusparseMatDescr_t, cusparseDestroyMatDescr>;

struct Problem {
  std::string name;
  CsrMatrix<double> a;
  int block_size = 0;
};

/// n x n nodes of a bilinear quadrilateral mesh, each coupled to itself and its up to 8
/// neighbours by a b x b block (the node coupling, 8 or -1, times an SPD block with 2 on its
/// diagonal): the pattern of a shell code (b = 6) or of 2D elasticity (b = 2), unknowns node
/// by node. Built row by row (columns come out sorted): no triplet sort at 10^8 entries.
CsrMatrix<double> quad_mesh(index_t n, int b) {
  CsrMatrix<double> a;
  a.rows = a.cols = n * n * b;
  a.row_ptr.reserve(static_cast<std::size_t>(a.rows) + 1);
  for (index_t node = 0; node < n * n; ++node) {
    const index_t nx = node % n, ny = node / n;
    for (int r = 0; r < b; ++r) {
      for (index_t y = std::max<index_t>(ny - 1, 0); y <= std::min(ny + 1, n - 1); ++y) {
        for (index_t x = std::max<index_t>(nx - 1, 0); x <= std::min(nx + 1, n - 1); ++x) {
          const double coupling = x == nx && y == ny ? 8.0 : -1.0;
          for (int c = 0; c < b; ++c) {
            a.col_idx.push_back((y * n + x) * b + c);
            a.values.push_back(coupling * (r == c ? 2.0 : 0.5 / (1.0 + std::abs(r - c))));
          }
        }
      }
      a.row_ptr.push_back(a.nnz());
    }
  }
  return a;
}

/// As the CUDA backend picks it for `spmv: bsr` (cuda_backend.cpp): the largest b in 2..8
/// dividing every node block but the last; 0 where none does.
int node_block_size(const CsrMatrix<double>& a) {
  if (a.rows != a.cols || a.rows == 0) return 0;
  const prism::BlockPartition nodes = prism::find_node_blocks(a);
  index_t common = nodes.count() == 1 ? a.rows : 0;
  for (index_t k = 0; k + 1 < nodes.count(); ++k) {
    common = std::gcd(common, nodes.ptr[k + 1] - nodes.ptr[k]);
  }
  for (int b = 8; b >= 2; --b) {
    if (common % b == 0) return b;
  }
  return 0;
}

struct Row {
  std::string problem, variant;
  index_t rows = 0, nnz = 0;
  int block_size = 0;
  long long stored = 0;  // values the variant's format stores (padding included)
  double bytes = 0.0, best_bytes = 0.0, copy_gbs = 0.0;
  Stats t;
  double gbs() const { return bytes / (t.median_us * 1e-6) / 1e9; }
  double pct_copy() const { return 100.0 * gbs() / copy_gbs; }
  double pct_best() const { return 100.0 * best_bytes / (t.median_us * 1e-6) / 1e9 / copy_gbs; }
};

struct Context {
  cudaStream_t stream = nullptr;
  cusparseHandle_t sparse = nullptr;
  DeviceBuffer<unsigned char> flush;  // written before every run: evicts the L2 cache
  double copy_gbs = 0.0;
  int warmup = 3, reps = 20;
};

/// The reference y and, per row, sum |a_ij x_j| (the scale of any summation order's error).
struct Expected {
  std::vector<double> y, scale;
};

Expected reference_result(const CsrMatrix<double>& a, const std::vector<double>& x) {
  Expected e{std::vector<double>(static_cast<std::size_t>(a.rows)),
             std::vector<double>(static_cast<std::size_t>(a.rows), 0.0)};
  ref::spmv({a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()}, x.data(),
            e.y.data());
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      e.scale[i] += std::abs(a.values[k] * x[a.col_idx[k]]);
    }
  }
  return e;
}

/// Runs `work` once on a y filled with NaN, checks y against the reference (throws on a
/// wrong entry), then times it.
Stats checked_time(Context& ctx, const std::string& variant, double* y, const Expected& expected,
                   const std::function<void()>& work) {
  const std::size_t n = expected.y.size();
  PRISM_CUDA_CHECK(cudaMemsetAsync(y, 0xff, n * sizeof(double), ctx.stream));  // NaN
  work();
  std::vector<double> got(n);
  PRISM_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  PRISM_CUDA_CHECK(cudaMemcpy(got.data(), y, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::abs(got[i] - expected.y[i]) <= 1e-12 * expected.scale[i])) {
      throw std::runtime_error(variant + ": y[" + std::to_string(i) +
                               "] = " + std::to_string(got[i]) + ", the reference has " +
                               std::to_string(expected.y[i]));
    }
  }
  const auto flush = [&] {
    PRISM_CUDA_CHECK(cudaMemsetAsync(ctx.flush.data(), 0, ctx.flush.size(), ctx.stream));
  };
  return prism::bench::time_runs(ctx.warmup, ctx.reps, ctx.stream, flush, work);
}

/// The matrix in every format on the device, x and y padded to whole blocks (cuSPARSE's
/// bsrmv reads and writes them so).
struct DeviceProblem {
  DeviceBuffer<index_t> row_ptr, col_idx;
  DeviceBuffer<double> values;
  DeviceBuffer<index_t> bsr_row_ptr, bsr_col_idx;
  DeviceBuffer<double> bsr_values;
  DeviceBuffer<index_t> sell_slice_ptr, sell_col_idx;
  DeviceBuffer<double> sell_values;
  DeviceBuffer<double> x, y;
};

void print_row(const Row& r) {
  std::printf("%-24s %-28s %9d %11d %2d %9.1f %9.1f %8.1f %6.1f%% %6.1f%%\n", r.problem.c_str(),
              r.variant.c_str(), r.rows, r.nnz, r.block_size, r.t.median_us, r.t.min_us, r.gbs(),
              r.pct_copy(), r.pct_best());
  std::fflush(stdout);
}

void run_problem(Context& ctx, const Problem& p, std::vector<Row>& out) {
  const CsrMatrix<double>& a = p.a;
  const int b = p.block_size;
  const prism::kernels::CsrView<double> view{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                             a.values.data()};
  const prism::kernels::BsrLayout bsr = ref::bsr_layout(view, b);
  std::vector<double> bsr_values;
  ref::bsr_gather(bsr, a.values.data(), bsr_values);
  const prism::kernels::SellLayout sell = prism::kernels::sell_layout(view, {0, a.rows});
  std::vector<double> sell_values;
  prism::kernels::sell_gather(sell, a.values.data(), sell_values);

  const index_t block_cols = static_cast<index_t>((static_cast<long long>(a.cols) + b - 1) / b);
  std::vector<double> x(static_cast<std::size_t>(block_cols) * b, 0.0);  // zeros past cols
  for (index_t j = 0; j < a.cols; ++j) x[j] = prism::bench::uniform() - 0.5;
  const Expected expected = reference_result(a, x);

  DeviceProblem d;
  d.row_ptr = upload_and_wait(a.row_ptr, ctx.stream);
  d.col_idx = upload_and_wait(a.col_idx, ctx.stream);
  d.values = upload_and_wait(a.values, ctx.stream);
  d.bsr_row_ptr = upload_and_wait(bsr.block_row_ptr, ctx.stream);
  d.bsr_col_idx = upload_and_wait(bsr.block_col_idx, ctx.stream);
  d.bsr_values = upload_and_wait(bsr_values, ctx.stream);
  d.sell_slice_ptr = upload_and_wait(sell.slice_ptr, ctx.stream);
  d.sell_col_idx = upload_and_wait(sell.col_idx, ctx.stream);
  d.sell_values = upload_and_wait(sell_values, ctx.stream);
  d.x = upload_and_wait(x, ctx.stream);
  d.y = DeviceBuffer<double>(static_cast<std::size_t>(bsr.block_rows()) * b);

  const double vectors = 8.0 * a.cols + 8.0 * a.rows;
  const double csr_bytes = 12.0 * a.nnz() + 4.0 * (a.rows + 1) + vectors;
  const double bsr_bytes = 8.0 * static_cast<double>(bsr.stored()) + 4.0 * bsr.blocks() +
                           4.0 * (bsr.block_rows() + 1) + vectors;
  const double sell_bytes =
      12.0 * sell.stored() + 4.0 * static_cast<double>(sell.slice_ptr.size()) + vectors;
  const double best = std::min({csr_bytes, bsr_bytes, sell_bytes});
  const auto add = [&](const std::string& variant, long long stored, double bytes,
                       const std::function<void()>& work) {
    Row r{p.name, variant, a.rows, a.nnz(), b, stored, bytes, best, ctx.copy_gbs};
    r.t = checked_time(ctx, variant, d.y.data(), expected, work);
    out.push_back(r);
    print_row(r);
  };

  prism::kernels::BsrView<double> bv = bsr.view(d.bsr_values.data());
  bv.block_row_ptr = d.bsr_row_ptr.data();
  bv.block_col_idx = d.bsr_col_idx.data();
  add("prism bsr", bsr.stored(), bsr_bytes,
      [&] { kc::bsr_spmv(bv, d.x.data(), d.y.data(), ctx.stream); });
  const kc::SellView<double> sv{d.sell_slice_ptr.data(), d.sell_col_idx.data(),
                                d.sell_values.data()};
  add("prism sell", sell.stored(), sell_bytes,
      [&] { kc::sell_spmv(a.rows, sv, d.x.data(), d.y.data(), ctx.stream); });
  const prism::kernels::CsrView<double> cv{a.rows, a.cols, d.row_ptr.data(), d.col_idx.data(),
                                           d.values.data()};
  const int tpr = kc::spmv_threads_per_row(a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 1);
  add("prism csr_vector", a.nnz(), csr_bytes,
      [&] { kc::spmv(cv, tpr, d.x.data(), d.y.data(), ctx.stream); });

  const double one = 1.0, zero = 0.0;
  const handles::SpMatDescr csr = handles::make_csr_descr(a.rows, a.cols, a.nnz(), d.row_ptr.data(),
                                                          d.col_idx.data(), d.values.data());
  const handles::DnVecDescr dx = handles::make_dnvec_descr(a.cols, d.x.data());
  const handles::DnVecDescr dy = handles::make_dnvec_descr(a.rows, d.y.data());
  for (const auto& [alg, name] : {std::pair{CUSPARSE_SPMV_CSR_ALG2, "cusparse csr alg2"},
                                  std::pair{CUSPARSE_SPMV_CSR_ALG1, "cusparse csr alg1"}}) {
    std::size_t buffer_bytes = 0;
    PRISM_CUSPARSE_CHECK(cusparseSpMV_bufferSize(ctx.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                 csr.get(), dx.get(), &zero, dy.get(), CUDA_R_64F,
                                                 alg, &buffer_bytes));
    DeviceBuffer<char> buffer(std::max<std::size_t>(buffer_bytes, 1));
    PRISM_CUSPARSE_CHECK(cusparseSpMV_preprocess(ctx.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                 csr.get(), dx.get(), &zero, dy.get(), CUDA_R_64F,
                                                 alg, buffer.data()));
    add(name, a.nnz(), csr_bytes, [&, alg = alg] {
      PRISM_CUSPARSE_CHECK(cusparseSpMV(ctx.sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                        csr.get(), dx.get(), &zero, dy.get(), CUDA_R_64F, alg,
                                        buffer.data()));
    });
  }

  cusparseMatDescr_t raw = nullptr;
  PRISM_CUSPARSE_CHECK(cusparseCreateMatDescr(&raw));  // general, base 0
  const MatDescr descr(raw);
  add("cusparse bsrmv", bsr.stored(), bsr_bytes, [&] {
    PRISM_CUSPARSE_CHECK(cusparseDbsrmv(
        ctx.sparse, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, bsr.block_rows(),
        block_cols, bsr.blocks(), &one, descr.get(), d.bsr_values.data(), d.bsr_row_ptr.data(),
        d.bsr_col_idx.data(), b, d.x.data(), &zero, d.y.data()));
  });
}

/// The generated problems, built one at a time when run (the largest take gigabytes).
std::vector<std::function<Problem()>> generated_problems(bool small) {
  std::vector<std::function<Problem()>> out;
  for (index_t n : {20, 40, 60}) {
    out.push_back([n] {
      return Problem{"elasticity3d " + std::to_string(n) + "^3",
                     prism::elasticity3d(n, n, n, 1, {1.0}), 3};
    });
    if (small) break;
  }
  for (index_t n : {250, 500}) {
    out.push_back([n] {
      return Problem{"quad_mesh b=6 " + std::to_string(n) + "^2", quad_mesh(n, 6), 6};
    });
    if (small) break;
  }
  for (index_t n : {1000}) {
    out.push_back([n] {
      return Problem{"quad_mesh b=2 " + std::to_string(n) + "^2", quad_mesh(n, 2), 2};
    });
  }
  return out;
}

std::vector<std::function<Problem()>> file_problems(const std::vector<std::string>& files,
                                                    int block) {
  std::vector<std::function<Problem()>> out;
  for (const std::string& file : files) {
    out.push_back([file, block] {
      Problem p{file, prism::read_matrix_market(file), block};
      if (p.block_size < 1) p.block_size = node_block_size(p.a);
      if (p.block_size < 1) {
        throw std::runtime_error(file + ": no common node block size of 2 to 8 rows; give --block");
      }
      return p;
    });
  }
  return out;
}

void write_json(const std::string& path, const cudaDeviceProp& prop, const Context& ctx,
                const std::vector<Row>& rows) {
  prism::io::JsonWriter w;
  w.begin_object();
  w.key("schema").value("prism.bench_spmv/1");
  w.key("device").value(prop.name);
  w.key("copy_bandwidth_GBps").value(ctx.copy_gbs);
  w.key("timing").value(prism::bench::timing_name(prism::bench::timing_mode()));
  w.key("reps").value(ctx.reps);
  w.key("results").begin_array();
  for (const Row& r : rows) {
    w.begin_object();
    w.key("problem").value(r.problem);
    w.key("variant").value(r.variant);
    w.key("rows").value(static_cast<long long>(r.rows));
    w.key("nnz").value(static_cast<long long>(r.nnz));
    w.key("block_size").value(r.block_size);
    w.key("stored_values").value(r.stored);
    w.key("bytes").value(r.bytes);
    w.key("best_bytes").value(r.best_bytes);
    w.key("median_us").value(r.t.median_us);
    w.key("min_us").value(r.t.min_us);
    w.key("GBps").value(r.gbs());
    w.key("pct_copy_bandwidth").value(r.pct_copy());
    w.key("pct_best_bound").value(r.pct_best());
    w.end_object();
  }
  w.end_array();
  w.end_object();
  prism::io::write_file_atomically(path, [&](std::ostream& o) { o << w.str(); });
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: %s OUT.json [--reps R] [--timing launch|queued] [--small] [--block B] "
                 "[FILE.mtx...]\n",
                 argv[0]);
    return 2;
  }
  const std::string json_path = argv[1];
  Context ctx;
  bool small = false;
  int block = 0;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--reps" && has_value) {
      ctx.reps = std::max(5, std::atoi(argv[++i]));
    } else if (arg == "--timing" && has_value) {
      prism::bench::timing_mode() = prism::bench::parse_timing(argv[++i]);
    } else if (arg == "--small") {
      small = true;
    } else if (arg == "--block" && has_value) {
      block = std::atoi(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-') {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "bench_spmv: unknown or incomplete option %s\n", arg.c_str());
      return 2;
    }
  }

  cudaDeviceProp prop{};
  PRISM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const handles::Stream stream = handles::make_stream();
  const handles::SparseHandle sparse = handles::make_sparse_handle(stream.get());
  ctx.stream = stream.get();
  ctx.sparse = sparse.get();
  ctx.flush = DeviceBuffer<unsigned char>(
      std::max<std::size_t>(2 * static_cast<std::size_t>(prop.l2CacheSize), std::size_t{64} << 20));
  ctx.copy_gbs = prism::bench::copy_bandwidth_gbs(ctx.warmup, ctx.reps, ctx.stream);
  std::printf("GPU: %s (%d SMs, L2 %d MiB), copy bandwidth (1 GiB D2D, read+write) %.1f GB/s\n\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, ctx.copy_gbs);
  std::printf("%-24s %-28s %9s %11s %2s %9s %9s %8s %7s %7s\n", "problem", "variant", "rows", "nnz",
              "b", "median_us", "min_us", "GB/s", "%copy", "%best");

  std::vector<Row> rows;
  for (const auto& make : files.empty() ? generated_problems(small) : file_problems(files, block)) {
    run_problem(ctx, make(), rows);
  }
  write_json(json_path, prop, ctx, rows);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_spmv: %s\n", e.what());
  return 1;
}
