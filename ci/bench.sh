#!/usr/bin/env bash
# Sets up (ci/setup.sh) and runs the performance benchmark: the same work on
# npu:0 and on PyTorch's CPU backend in one process, with ratios against the
# targets of docs/performance.md. Table on stdout, JSON in build/npu_vs_cpu.json.
# Extra arguments go to benchmarks/npu_vs_cpu.py (e.g. --quick).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
/usr/bin/python3 benchmarks/npu_vs_cpu.py --json build/npu_vs_cpu.json "$@"
