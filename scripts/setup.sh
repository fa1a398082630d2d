#!/usr/bin/env bash
# Installs what cutune needs from Debian's packages (when missing) and builds it into ./build.
# The CUDA toolkit itself is expected in /usr/local/cuda (or on PATH); it is not a Debian package here.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ ccache libsqlitecpp-dev libsqlite3-dev libopenmpi-dev openmpi-bin libspdlog-dev libfmt-dev libcli11-dev
          nlohmann-json3-dev libgtest-dev zlib1g-dev libeigen3-dev
          libjs-vega           # Vega's modules, embedded into the report page at build time
          python3-jsonschema   # tests validate T4 exports against the schema
          python3-dev python3-venv python3-pip python3-pytest python3-numpy)  # the Python package and its tests
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

source scripts/build_env.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --parallel
