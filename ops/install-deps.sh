#!/usr/bin/env bash
# Installs the Debian 12 packages capstan needs to build and test.
# Idempotent: packages already present are skipped by apt-get. Runs as root or with sudo.
# Usage: ops/install-deps.sh [--test]   (--test: also what only the tests use)
set -euo pipefail

packages=(
  build-essential cmake
  libcaf-dev librocksdb-dev libeigen3-dev nlohmann-json3-dev catch2
  libboost-dev libyaml-cpp-dev libcli11-dev libjemalloc-dev
)
if [ "${1:-}" = "--test" ]; then
  packages+=(prometheus)  # promtool: the admin API test checks /metrics with `promtool check metrics`
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
