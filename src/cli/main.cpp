// prism: solve sparse SPD systems with preconditioned conjugate gradients.
// The CLI owns logging (spdlog) and exit codes: 0 converged, 2 not converged, 1 error.

#include "cli/commands.hpp"
#include "cli/memory_reuse.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: prism solve FILE.yaml [--backend auto|cpu|cuda] [--report FILE.json]\n"
    "                   [--history FILE.csv] [--solution FILE.mtx]\n"
    "                   [--log-level trace|debug|info|warn|error|off] [--print-every K]\n"
    "                   [-o KEY=VALUE ...]   a problem-file key set from here (e.g.\n"
    "                                        -o preconditioner.type=jacobi)\n"
    "       prism info FILE.mtx|FILE.mtx.gz|FILE.yaml\n"
    "       prism options [--markdown]   every problem-file key: type, default, meaning\n"
    "       prism --help | --version\n"
    "exit status: 0 converged, 2 not converged, 1 error\n";

/// Longest error message printed: an input's text quoted in an error (a binary file, a
/// matrix given as a problem file) must not flood the terminal.
constexpr std::size_t kMaxErrorBytes = 400;

/// Keeps an error on one printable line, whatever the exception text held: line breaks
/// become spaces, other control bytes \xNN; past kMaxErrorBytes the middle goes, since
/// the cause is said last ("FILE: cannot open ...: File name too long").
std::string one_line(const std::string& text) {
  // Only both ends of a long text can show: the rest is not even looked at.
  const std::string s =
      text.size() <= 4 * kMaxErrorBytes
          ? text
          : text.substr(0, kMaxErrorBytes) + text.substr(text.size() - kMaxErrorBytes);
  std::string out;
  for (const char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (byte < 0x20 || byte == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    } else {
      out += c;
    }
  }
  if (out.size() <= kMaxErrorBytes) return out;
  constexpr std::size_t kTail = kMaxErrorBytes / 2;
  return out.substr(0, kMaxErrorBytes - kTail) + " ... " + out.substr(out.size() - kTail);
}

}  // namespace

int prism::cli::report_error(const std::exception_ptr& error) {
  const auto error_log = spdlog::get("prism-error");
  try {
    std::rethrow_exception(error);
  } catch (const prism::cli::UsageError& e) {
    error_log->error("{} (see prism --help)", one_line(e.message));
  } catch (const std::bad_alloc&) {
    error_log->error("out of memory (the problem is too large for this machine's memory)");
  } catch (const std::exception& e) {
    error_log->error("{}", one_line(e.what()));
  }
  return 1;
}

int main(int argc, char** argv) {
  prism::cli::reuse_freed_memory();
#ifdef SIGPIPE
  // `prism solve p.yaml | head` closes stdout early: the solve and its output files must
  // still complete, so a write to the closed pipe fails quietly instead of killing prism.
  std::signal(SIGPIPE, SIG_IGN);
#endif
  // Results and progress go to stdout; the one-line error goes to stderr.
  auto logger = spdlog::stdout_logger_mt("prism");
  logger->set_pattern("%v");
  spdlog::set_default_logger(logger);
  auto error_log = spdlog::stderr_logger_mt("prism-error");
  error_log->set_pattern("prism: error: %v");

  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    error_log->error("no command given (see prism --help)");
    return 1;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args[0] == "--version") {
    std::puts("prism " PRISM_VERSION);
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "solve") return prism::cli::solve_command(args);
    if (command == "info") return prism::cli::info_command(args);
    if (command == "options") return prism::cli::options_command(args);
    throw prism::cli::UsageError{"unknown command '" + command +
                                 "' (expected solve, info or options)"};
  } catch (...) {
    return prism::cli::report_error(std::current_exception());
  }
}
