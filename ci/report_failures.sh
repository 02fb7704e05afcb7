#!/usr/bin/env bash
# Run last by .ci/run. A CI log is often read from its end only, and a failure in the
# README's test command scrolls away under the sanitizer runs: this repeats, at the end,
# every failure of the run — each failed GoogleTest with the end of its own output (from
# its tree's ctest log), each failed pytest case with its error line — then runs each
# failed test once more, to tell a steady failure from a flaky one. Exits 1 if it found a
# failed test; .ci/run's verdict stays what the tests said (a test that passes on its rerun
# still failed the run).
#   bash ci/report_failures.sh
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source ci/sanitizers/env.sh
failures=0

# The end of one test's record in a ctest log (from its "Testing:" line to "<end of output>").
ctest_output_tail() {  # log test_name
  awk -v name="$2" '
    !inside && index($0, " Testing: ") && substr($0, index($0, " Testing: ") + 10) == name { inside = 1; next }
    inside && /^<end of output>/ { exit }
    inside { print }' "$1" | tail -n 40
}

for tree in build build-asan build-tsan; do
  list=$tree/Testing/Temporary/LastTestsFailed.log
  [[ -s $list ]] || continue
  echo
  echo "==== $tree: failed GoogleTests"
  while IFS=: read -r _ name; do
    failures=$((failures + 1))
    echo "---- $name (the end of its output)"
    ctest_output_tail "$tree/Testing/Temporary/LastTest.log" "$name"
  done < "$list"
  echo "---- $tree: the failed tests once more"
  (cd "$tree" && ctest --rerun-failed --output-on-failure --timeout 900 2>&1 | tail -n 80)
done

pytest_log=build/pytest.log
failed_cases=$([[ -s $pytest_log ]] && grep -E '^(FAILED|ERROR) ' "$pytest_log")
if [[ -n $failed_cases ]]; then
  echo
  echo "==== pytest: failed cases"
  echo "$failed_cases"
  # Node ids are relative to /tmp, where ci/test.sh runs pytest.
  mapfile -t ids < <(awk '{print $2}' <<< "$failed_cases" | sort -u)
  failures=$((failures + ${#ids[@]}))
  echo "---- pytest: the failed cases once more"
  (cd /tmp && /usr/bin/python3 -m pytest -q -p no:cacheprovider "${ids[@]}" 2>&1 | tail -n 80)
fi

echo
if ((failures)); then
  echo "ci/report_failures.sh: $failures failed test(s) in this run, listed above"
  exit 1
fi
echo "ci/report_failures.sh: no failed test in this run's logs"
