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
# The GoogleTest programs run as a few shards each, not one process per test (Note [Sharded
# GoogleTest runs] in third_party/ascend_sim/cmake/gtest_programs.cmake).
# Any report fails the run. Suppressions (ci/sanitizers/*.supp) cover third-party
# code only, each with its reason. Expects ci/setup.sh to have installed the packages.
#   bash ci/sanitize.sh [address|thread]...    (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
((${#kinds[@]})) || kinds=(address thread)

ROOT=$PWD
source ci/sanitizers/env.sh

status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    address)
      cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASCEND_SIM_SANITIZE=address > /dev/null
      cmake --build build-asan -j2 --target ascend_sim_tests torch_npu_tests
      rm -f build-asan/Testing/Temporary/LastTestsFailed.log
      (cd build-asan && ctest -j2 --output-on-failure --timeout 900) || status=1
      ;;
    thread)
      cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DASCEND_SIM_SANITIZE=thread > /dev/null
      cmake --build build-tsan -j2 --target ascend_sim_tests torch_npu_tests
      rm -f build-tsan/Testing/Temporary/LastTestsFailed.log
      # The threaded suites (their files are the whole TSan test programs: Note [Threaded test
      # subset]); GTEST_FILTER narrows each shard (Note [Sharded GoogleTest runs]).
      threaded="Stream.*:ModelCapture.*:Event.*:EventFailure.*:Memory.*:HbmArena.*:Device.*:Profiling.*:OpDumpTest.*"
      threaded+=":OpExecute.*:FaultInjection.*:ThreadPool.*:AiCoreSplit.*:CubeUnit.*:Hccl*.*:*/Hccl*.*"
      threaded+=":Kinds/TransportTest.*:ShmTransport.*:ShmSegment.*:NpuTaskQueue.*:NpuAllocator.*"
      threaded+=":NpuStreamsEvents.*:NpuPinnedMemory.*:NpuCopy.*:NpuFloatStatus.*:NpuRandom.*:NpuRandomOps.*"
      threaded+=":NpuAmpKernels.*:NpuGraph.*"
      (cd build-tsan && GTEST_FILTER="$threaded" ctest -j2 --output-on-failure --timeout 900) || status=1
      ;;
    *) echo "ci/sanitize.sh: unknown sanitizer '$kind' (address, thread)"; exit 2 ;;
  esac
done
exit $status
