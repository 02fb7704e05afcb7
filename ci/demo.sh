#!/usr/bin/env bash
# Sets up (ci/setup.sh) and runs the training demo on the simulated NPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
/usr/bin/python3 examples/train_demo.py "$@"
