#!/usr/bin/env bash
# Makes sure prism can be built here, however its dependencies were installed:
#   1. CMake >= 3.25, Ninja and a C++ compiler on PATH;
#   2. the libraries, found by configuring cmake/probe, which runs prism's own
#      find_package calls (cmake/PrismDependencies.cmake, tests included) and lists
#      every package CMake does not find.
# Silent and quick (about a second) when everything is there. Installs only what is
# missing, as Debian/Ubuntu packages with apt-get (root or sudo), then checks again;
# whatever is still missing is named, with its package, and the exit status is 1.
# Optional packages (MPI, for the distributed solver: CMake PRISM_WITH_MPI=AUTO builds it
# where MPI is found) are installed the same way; where one stays missing, a note says so
# and the exit status is still 0.
# Libraries installed elsewhere count when CMake finds them (CMAKE_PREFIX_PATH in the
# environment is honoured here and by the build).
#   PRISM_DEPS_INSTALL=0          check only, never install
#   PRISM_DEPS_OPTIONAL=0         leave the optional packages alone
#   PRISM_PROBE_HIDE="yaml-cpp c++"   treat these as missing (CMake package names, or
#                                 cmake, ninja, c++): tests the install path
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
min_cmake=3.25
hide=" ${PRISM_PROBE_HIDE:-} "
hide=${hide//;/ }

# What provides each dependency on Debian/Ubuntu.
declare -A package=(
  [cmake]=cmake [ninja]=ninja-build [c++]=g++
  [Boost]=libboost-graph-dev [Boost.Graph]=libboost-graph-dev [Eigen3]=libeigen3-dev
  [yaml-cpp]=libyaml-cpp-dev [spdlog]=libspdlog-dev [fmt]=libfmt-dev [ZLIB]=zlib1g-dev
  [Threads]=libc6-dev [GTest]=libgtest-dev [MPI]="libopenmpi-dev openmpi-bin"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
missing=()   # "NAME: why"
optional=()  # "NAME: why", optional packages not found
errors=()    # other failures, shown with the missing list
apt_note=""
apt_updated=0

hidden() { [[ "$hide" == *" $1 "* ]]; }
have() { ! hidden "$1" && command -v "${2:-$1}" >/dev/null 2>&1; }

cxx_compiler() {  # the compiler CMake would pick: $CXX, else the first on PATH
  if [ -n "${CXX:-}" ]; then
    read -r cxx _ <<<"$CXX"
    echo "$cxx"
    return
  fi
  for c in c++ g++ clang++; do
    if command -v "$c" >/dev/null 2>&1; then echo "$c" && return; fi
  done
  echo c++
}

check_tools() {
  if ! have cmake; then
    missing+=("cmake: no cmake on PATH")
  else
    local v
    v=$(cmake --version | head -1)
    v=${v##* }
    if ! printf '%s\n%s\n' "$min_cmake" "$v" | sort -V -C; then
      missing+=("cmake: CMake $v on PATH; prism needs $min_cmake or newer")
    fi
  fi
  have ninja || missing+=("ninja: no ninja on PATH")
  have c++ "$(cxx_compiler)" || missing+=("c++: no C++ compiler (${CXX:-c++, g++ or clang++}) on PATH")
}

probe() {
  # The libraries need a working CMake and compiler; without them they stay unchecked.
  if [ ${#missing[@]} -gt 0 ]; then
    errors+=("libraries not checked yet: they need the tools above first")
    return
  fi
  local dir=$work/probe
  rm -rf "$dir"
  if ! cmake -S "$root/cmake/probe" -B "$dir" -G Ninja "-DPRISM_PROBE_HIDE=${hide// /;}" \
    >"$work/probe.log" 2>&1 || [ ! -f "$dir/missing.txt" ]; then
    errors+=("the dependency probe (cmake -S cmake/probe) failed:
$(tail -20 "$work/probe.log")")
    return
  fi
  local kind rest
  optional=()
  while read -r kind rest; do
    case $kind in
      missing) missing+=("$rest") ;;
      optional) [ "${PRISM_DEPS_OPTIONAL:-1}" = 0 ] || optional+=("$rest") ;;
      error) errors+=("$rest") ;;
    esac
  done <"$dir/missing.txt"
  # A fatal error after a missing package is its consequence, not news.
  if [ ${#missing[@]} -gt 0 ]; then errors=(); fi
}

packages_for() {  # ENTRIES...: the Debian packages for "NAME: why" entries (one of each)
  local entry name dep
  local -A seen=()
  for entry in "$@"; do
    name=${entry%%:*}
    [ -n "${package[$name]:-}" ] && seen[${package[$name]}]=1
    # A config that failed on its own dependency: "spdlog could not be found because
    # dependency fmt could not be found."
    if [[ "$entry" =~ dependency\ ([^ ]+)\ could\ not\ be\ found ]]; then
      dep=${BASH_REMATCH[1]}
      [ -n "${package[$dep]:-}" ] && seen[${package[$dep]}]=1
    fi
  done
  printf '%s\n' "${!seen[@]}" | sort | xargs
}

apt_install() {  # PACKAGES...: best effort; what failed is reported at the end
  [ $# -gt 0 ] || { apt_note="no known package provides it"; return; }
  [ "${PRISM_DEPS_INSTALL:-1}" = 0 ] && { apt_note="not installing (PRISM_DEPS_INSTALL=0)"; return; }
  if ! command -v apt-get >/dev/null 2>&1; then
    apt_note="no apt-get here: install them with this system's package manager"
    return
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      apt_note="not root and no sudo: cannot run apt-get"
      return
    fi
    sudo=sudo
  fi
  echo "install_deps: installing $*" >&2
  export DEBIAN_FRONTEND=noninteractive
  if [ $apt_updated = 0 ]; then
    apt_updated=1
    $sudo apt-get update -qq >>"$work/apt.log" 2>&1 || true  # offline: try the local lists
  fi
  if ! $sudo apt-get install -y -qq --no-install-recommends "$@" >>"$work/apt.log" 2>&1; then
    apt_note="apt-get install failed:
$(grep -E '^(E|W):' "$work/apt.log" | sort -u | tail -8)"
  fi
}

check_tools
if [ ${#missing[@]} -gt 0 ]; then
  # shellcheck disable=SC2046  # one word per package
  apt_install $(packages_for "${missing[@]}")
  missing=()
  check_tools
fi
probe
if [ $((${#missing[@]} + ${#optional[@]})) -gt 0 ] && [ -z "$apt_note" ]; then
  # shellcheck disable=SC2046
  apt_install $(packages_for "${missing[@]}" "${optional[@]}")
  missing=()
  errors=()
  check_tools
  probe
fi
if [ ${#missing[@]} -eq 0 ] && [ ${#errors[@]} -eq 0 ]; then
  for entry in "${optional[@]}"; do
    name=${entry%%:*}
    echo "install_deps: optional ${name} (${package[$name]:-?}) not installed: ${entry#*: }" >&2
  done
  [ ${#optional[@]} -gt 0 ] && [ -n "$apt_note" ] && echo "$apt_note" >&2
  exit 0
fi

{
  echo "install_deps: prism cannot be built here yet."
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Missing:"
    for entry in "${missing[@]}"; do
      name=${entry%%:*}
      printf '  %-12s %-18s %s\n' "$name" "${package[$name]:-?}" "${entry#*: }"
    done
    echo "Debian/Ubuntu: apt-get install $(packages_for "${missing[@]}")"
    echo "(or install them another way: tools on PATH, libraries where CMake finds them," \
      "e.g. through CMAKE_PREFIX_PATH)"
  fi
  for e in "${errors[@]}"; do echo "$e"; done
  [ -n "$apt_note" ] && echo "$apt_note"
} >&2
exit 1
