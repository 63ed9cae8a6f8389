#!/usr/bin/env bash
# Installs the Debian packages prism builds and tests with. Idempotent: quiet and
# fast when everything is already there. Needs root (or sudo) only when something
# is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost-graph-dev libeigen3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install_deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
