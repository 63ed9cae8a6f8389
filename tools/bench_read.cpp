// Benchmark of reading Matrix Market files (issue 47: set-up time): each file is read into
// a CSR matrix --repeats times (read_matrix_market, on PRISM_HOST_THREADS host threads) and
// the best and median wall times are printed. --poisson3d N FILE first writes a 3D
// Poisson 7-point matrix of N^3 rows as a symmetric file (its lower triangle, values
// perturbed to 17 significant digits as an assembled matrix's are; FILE.gz gzipped).
//
//   bench_read [--repeats N] [--poisson3d N FILE] FILE.mtx|FILE.mtx.gz...

#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>

#include "common/parallel.hpp"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void write_poisson3d(int n, const std::string& path) {
  prism::CsrMatrix<double> a = prism::poisson3d(n, n, n, 7);
  // Full-length values, so that parsing costs what it costs for a real file.
  for (std::size_t k = 0; k < a.values.size(); ++k) a.values[k] *= 1.0 + 1e-3 * (k % 97) / 97;
  prism::write_matrix_market(path, a, /*symmetric=*/true);  // the lower triangle
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) return;
  std::FILE* in = std::fopen(path.c_str(), "rb");
  gzFile out = gzopen((path + ".gz").c_str(), "wb6");
  if (in == nullptr || out == nullptr) throw prism::IoError("cannot write " + path + ".gz");
  std::vector<char> buffer(1 << 20);
  for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), in)) > 0;) {
    gzwrite(out, buffer.data(), static_cast<unsigned>(got));
  }
  std::fclose(in);
  gzclose(out);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  std::vector<std::string> files;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--repeats" && i + 1 < argc) {
        repeats = std::max(1, std::atoi(argv[++i]));
      } else if (arg == "--poisson3d" && i + 2 < argc) {
        const int n = std::atoi(argv[++i]);
        write_poisson3d(n, argv[++i]);
      } else {
        files.push_back(arg);
      }
    }
    std::printf("%-40s %9s %10s %8s %10s %10s\n", "file", "rows", "nnz", "threads", "best s",
                "median s");
    for (const std::string& file : files) {
      std::vector<double> seconds;
      prism::CsrMatrix<double> a;
      for (int r = 0; r < repeats; ++r) {
        a = {};
        const auto start = std::chrono::steady_clock::now();
        a = prism::read_matrix_market(file);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      std::sort(seconds.begin(), seconds.end());
      std::printf("%-40s %9d %10d %8d %10.3f %10.3f\n", file.c_str(), a.rows, a.nnz(),
                  prism::common::host_threads(), seconds.front(), seconds[seconds.size() / 2]);
    }
  } catch (const prism::Error& e) {
    std::fprintf(stderr, "bench_read: %s\n", e.what());
    return 1;
  }
  return 0;
}
