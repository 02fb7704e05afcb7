#!/usr/bin/env bash
# Sets up (ci/setup.sh) and runs every test: the GoogleTest suites of the
# simulator and the plugin (ctest), then the Python feature tests (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/setup.sh

status=0
(cd build && ctest -j2 --output-on-failure --timeout 600) || status=1
(cd /tmp && /usr/bin/python3 -m pytest -q -p no:cacheprovider "$OLDPWD/test/python") || status=1
exit $status
