#!/usr/bin/env bash
# Installs every Debian package torch_npu needs (only if something is missing,
# after `apt-get update`), then builds torch_npu and installs its start-up hook
# for /usr/bin/python3. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake g++ make pkg-config
  libtorch-dev python3-torch python3-torchvision
  python3-torchaudio python3-torchtext   # third-party models of the model zoo test
  libopenblas0-pthread          # PyTorch's CPU matmul at OpenBLAS speed (the reference and the peer)
  liblapack-dev libblas-dev     # the simulator's linear algebra kernels call LAPACK (src/ops/linalg)
  pybind11-dev python3-pybind11 python3-dev python3-setuptools python3-yaml python3-pytest
  ninja-build                   # torch_npu.utils.cpp_extension.load: torch builds JIT extensions with ninja
  libspdlog-dev libfmt-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgloo-dev
  chromium                      # headless: the profiler HTML report test renders the report
  flake8                        # ci/lint.sh: the Python linter (settings in .flake8)
  clang-format-14               # ci/lint.sh: the C++ formatter (settings in .clang-format)
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "ci/setup.sh: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

/usr/bin/python3 setup.py develop
