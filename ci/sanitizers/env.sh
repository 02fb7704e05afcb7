# Sourced by ci/sanitize.sh and ci/report_failures.sh: the sanitizer runtime options
# of every sanitized test run (ROOT: the checkout).
# halt_on_error: the first report fails the test that caused it (ctest shows which).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:suppressions=${ROOT:?}/ci/sanitizers/asan.supp"
export LSAN_OPTIONS="suppressions=${ROOT:?}/ci/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=${ROOT:?}/ci/sanitizers/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=${ROOT:?}/ci/sanitizers/tsan.supp"
