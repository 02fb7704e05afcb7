#!/usr/bin/env bash
# Lints the repository; exits non-zero on any report (ci/test.sh runs it).
# Python: flake8 (pyflakes + pycodestyle, settings in .flake8) over every tracked *.py file.
# C++: clang-format 14 (settings in .clang-format, which describe the code's style) over the lines
#   changed since .clang-format was last changed: new and edited code is formatted as clang-format
#   formats it, while older code is reformatted only when it is touched (a whole-tree reformat
#   would scramble the hand-aligned op and format tables). A clone without that history (shallow)
#   skips the check and says so.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-/usr/bin/python3}

mapfile -d '' py_files < <(git ls-files -z -- '*.py')
failed=0
status=0
report=""
if ((${#py_files[@]})); then report=$("$PYTHON" -m flake8 -- "${py_files[@]}" 2>&1) || status=$?; fi
if [ -n "$report" ]; then printf '%s\n' "$report"; fi
if ((status != 0)); then
  count=$(printf '%s\n' "$report" | grep -cE '^[^:]+:[0-9]+:[0-9]+: [A-Z][0-9]+ ' || true)
  echo "ci/lint.sh: flake8 FAILED (exit $status): $count report(s) in ${#py_files[@]} Python files"
  failed=1
else
  echo "ci/lint.sh: flake8 OK: ${#py_files[@]} Python files, no reports"
fi

format_base=$(git log -n1 --format=%H -- .clang-format 2>/dev/null || true)
if [ -z "$format_base" ] || ! git cat-file -e "$format_base^{commit}" 2>/dev/null; then
  echo "ci/lint.sh: clang-format SKIPPED: no history of .clang-format in this clone"
else
  # Lines changed since $format_base (committed or not); clang-format's version of them, if any differ.
  diff=$(git clang-format-14 --diff --extensions cpp,h "$format_base" -- 2>&1 || true)
  if printf '%s\n' "$diff" | grep -q '^diff --git'; then
    printf '%s\n' "$diff"
    echo "ci/lint.sh: clang-format FAILED: lines changed since ${format_base:0:10} are not formatted" \
         "(fix: git clang-format-14 $format_base)"
    failed=1
  else
    echo "ci/lint.sh: clang-format OK: the C++ lines changed since ${format_base:0:10} are formatted"
  fi
fi
exit $failed
