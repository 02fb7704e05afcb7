#!/usr/bin/env bash
# Sets up (ci/setup.sh) and runs every test: the GoogleTest suites of the
# simulator and the plugin (ctest), then the Python feature tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each GoogleTest program runs as six ctest shards, not a process per test (Note [Sharded
# GoogleTest runs] in third_party/ascend_sim/cmake/gtest_programs.cmake).
export ASCEND_SIM_GTEST_SHARDS=6
# A test build: the mutation check's deliberate defects are compiled in (Note [Test mutations]).
export TORCH_NPU_TEST_BUILD=1
# The build must be free of compiler warnings (-Wall -Wextra for the simulator and the plugin, -Wall
# for the tests). A clean build (CI's) compiles everything, so its log shows every warning.
setup_log=$(mktemp)
bash ci/setup.sh 2>&1 | tee "$setup_log"
# (lto-wrapper's note that it links pybind11's LTO module serially is about make's job server, not code.)
warnings=$(grep -E 'warning: ' "$setup_log" | grep -v -E '^(CMake|  |lto-wrapper: )' | sort -u || true)
rm -f "$setup_log"

# The logs that ci/report_failures.sh reads: ctest's list of failed tests (ctest leaves a
# stale one when all pass) and pytest's output.
rm -f build/Testing/Temporary/LastTestsFailed.log build/pytest.log
status=0
if [ -n "$warnings" ]; then
  printf '%s\n' "$warnings"
  echo "ci/test.sh: the build has $(printf '%s\n' "$warnings" | wc -l) compiler warning(s)"
  status=1
fi
bash ci/lint.sh || status=1
(cd build && ctest -j2 --output-on-failure --timeout 600) || status=1
(cd /tmp && /usr/bin/python3 -m pytest -q -p no:cacheprovider "$OLDPWD/test/python" 2>&1 |
  tee "$OLDPWD/build/pytest.log") || status=1
exit $status
