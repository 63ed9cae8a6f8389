#include "cli/progress_line.hpp"

#include "cli/console_report.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>

namespace prism::cli {

ProgressLine::ProgressLine(const SolverOptions& options)
    : on_(::isatty(STDOUT_FILENO) == 1 && spdlog::should_log(spdlog::level::info) &&
          !(options.timing == TimingMode::total &&
            (options.graph == GraphMode::automatic || options.graph == GraphMode::loop))),
      tolerance_(options.tolerance),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Solver::Monitor ProgressLine::monitor() {
  if (!on_) return {};
  return [this](const IterationRecord& record) {
    const auto now = std::chrono::steady_clock::now();
    if (record.iteration > 0 && now - last_ < std::chrono::milliseconds(100)) return true;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    // \r and erase-to-end: the line is rewritten in place.
    std::printf("\r\033[K  iteration %d  relative residual %.3e (tolerance %.1e)  %s",
                record.iteration, record.relative_residual, tolerance_,
                format_seconds(elapsed).c_str());
    std::fflush(stdout);
    written_ = true;
    return true;
  };
}

void ProgressLine::finish() {
  if (!written_) return;
  std::printf("\r\033[K");
  std::fflush(stdout);
  written_ = false;
}

}  // namespace prism::cli
