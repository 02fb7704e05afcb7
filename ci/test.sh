#!/usr/bin/env bash
# Sets up (ci/setup.sh) and runs every test: the GoogleTest suites of the
# simulator and the plugin (ctest), then the Python feature tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each GoogleTest program runs as six ctest shards, not a process per test (Note [Sharded
# GoogleTest runs] in third_party/ascend_sim/cmake/gtest_programs.cmake).
export ASCEND_SIM_GTEST_SHARDS=6
bash ci/setup.sh

# The logs that ci/report_failures.sh reads: ctest's list of failed tests (ctest leaves a
# stale one when all pass) and pytest's output.
rm -f build/Testing/Temporary/LastTestsFailed.log build/pytest.log
status=0
(cd build && ctest -j2 --output-on-failure --timeout 600) || status=1
(cd /tmp && /usr/bin/python3 -m pytest -q -p no:cacheprovider "$OLDPWD/test/python" 2>&1 |
  tee "$OLDPWD/build/pytest.log") || status=1
exit $status
