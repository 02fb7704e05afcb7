#!/usr/bin/env bash
# Sanitizer runs (issue 17; cmake option ASCEND_SIM_SANITIZE, see
# third_party/ascend_sim/cmake/sanitizers.cmake), each in its own build tree:
#   build-asan   simulator + plugin GoogleTest suites under AddressSanitizer and UBSan
#   build-tsan   the threaded parts under ThreadSanitizer: the simulator's (streams,
#                events, task records, memory, HCCL and its transports) and the plugin's
#                (task queue, caching allocator, streams and events, pinned memory, copies,
#                generators); plugin tests that run autograd's backward threads are left
#                out: those threads live in uninstrumented libtorch, whose synchronisation
#                TSan cannot see (it reports races on torch's own objects there)
# Any report fails the run. Suppressions (ci/sanitizers/*.supp) cover third-party
# code only, each with its reason. Expects ci/setup.sh to have installed the packages.
#   bash ci/sanitize.sh [address|thread]...    (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kinds=("$@")
((${#kinds[@]})) || kinds=(address thread)

# halt_on_error: the first report fails the test that caused it (ctest shows which).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:suppressions=$root/ci/sanitizers/asan.supp"
export LSAN_OPTIONS="suppressions=$root/ci/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$root/ci/sanitizers/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/ci/sanitizers/tsan.supp"

status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    address)
      cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASCEND_SIM_SANITIZE=address > /dev/null
      cmake --build build-asan -j2 --target ascend_sim_tests torch_npu_tests
      (cd build-asan && ctest -j2 --output-on-failure --timeout 900) || status=1
      ;;
    thread)
      cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASCEND_SIM_SANITIZE=thread > /dev/null
      cmake --build build-tsan -j2 --target ascend_sim_tests torch_npu_tests
      (cd build-tsan && ctest -j2 --output-on-failure --timeout 900 \
        -R '^(Stream|Event|EventFailure|Memory|HbmArena|Device|Profiling|OpDumpTest|OpExecute|FaultInjection|ThreadPool|AiCoreSplit|CubeUnit|Hccl[A-Za-z]*|[A-Za-z]+/Hccl[A-Za-z]*|Kinds/TransportTest|ShmTransport|ShmSegment|NpuTaskQueue|NpuAllocator|NpuStreamsEvents|NpuPinnedMemory|NpuCopy|NpuFloatStatus|NpuRandom|NpuRandomOps|NpuAmpKernels)\.') || status=1
      ;;
    *) echo "ci/sanitize.sh: unknown sanitizer '$kind' (address, thread)"; exit 2 ;;
  esac
done
exit $status
