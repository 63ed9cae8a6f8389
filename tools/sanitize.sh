#!/usr/bin/env bash
# The CPU build and tests under AddressSanitizer and UndefinedBehaviorSanitizer: installs
# what is missing of the dependencies (tools/install_deps.sh), builds with tests (CUDA off)
# into build-sanitize/ (or $PRISM_SANITIZE_BUILD_DIR) and runs ctest, the fuzz replay tests
# (fuzz.replay.*) included. Any sanitizer report fails the run. Arguments go to ctest
# (bash tools/sanitize.sh -R 'fuzz|Ic0'); PRISM_JOBS (default: all cores) as in
# tools/build.sh; PRISM_DETECT_LEAKS=0 turns LeakSanitizer off.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${PRISM_SANITIZE_BUILD_DIR:-$root/build-sanitize}
jobs=${PRISM_JOBS:-$(nproc)}
bash "$root/tools/install_deps.sh"

# In the environment rather than on the command line: the install test configures a
# consumer of the installed (instrumented) library, which must link the runtimes too.
# -O1 keeps the tests fast enough; assertions stay on (no NDEBUG).
sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
export CXXFLAGS="$sanitize ${CXXFLAGS:-}"
export LDFLAGS="-fsanitize=address,undefined ${LDFLAGS:-}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DPRISM_WITH_CUDA=OFF -DPRISM_BUILD_TESTS=ON \
  >/dev/null
cmake --build "$build" -j "$jobs"

# LeakSanitizer stops the process with ptrace-like calls that some containers forbid; it
# then fails every test with a fatal error instead of a leak report. A leaking probe
# tells which: leak checks stay on where it reports the leak.
leaks=${PRISM_DETECT_LEAKS:-1}
if [ "$leaks" = 1 ]; then
  probe=$(mktemp -d)
  trap 'rm -rf "$probe"' EXIT
  printf '#include <cstdlib>\nvoid* volatile p;\nint main() { p = std::malloc(64); p = nullptr; }\n' \
    >"$probe/leak.cpp"
  ${CXX:-c++} $CXXFLAGS "$probe/leak.cpp" -o "$probe/leak" $LDFLAGS
  # The probe exits 1 when it reports the leak; its output tells a report from a failure.
  report=$(ASAN_OPTIONS=detect_leaks=1 "$probe/leak" 2>&1 || true)
  if [[ "$report" != *"detected memory leaks"* ]]; then
    echo "sanitize.sh: LeakSanitizer does not work here (ptrace limits?); leak checks off" >&2
    leaks=0
  fi
fi

asan="halt_on_error=1:detect_leaks=$leaks:check_initialization_order=1:strict_init_order=1"
export ASAN_OPTIONS="$asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
