// Deliberate defects for the mutation check (test/python/tools/test_mutations.py).
//
// Note [Test mutations]
// A test that passes proves little until it has been seen to fail when the
// guarantee it guards is broken. TORCH_NPU_TEST_MUTATION=<name>, read once at
// start-up, breaks one guarantee on purpose:
//   record_stream_noop   Tensor.record_stream does nothing: the caching
//                        allocator may hand a block to a new tensor while a
//                        side stream still uses it
//   relu_backward_zero   ReLU's backward kernel (ReluGrad) returns zeros
//   graph_pool_shared    an NPU graph's capture allocates from the shared pools,
//                        so eager work may be given the graph's memory
//   task_queue_lifo      the task queue launches the newest task first
// The mutation check runs the tests that guard each guarantee with it set and
// requires them to fail. Unset (always, outside that check) nothing changes.
//
// The defects exist only in a test build: the CMake option TORCH_NPU_TEST_MUTATIONS (which
// setup.py turns on when TORCH_NPU_TEST_BUILD=1, as ci/test.sh sets it) compiles them in. In any
// other build TORCH_NPU_MUTATED(name) is the constant false, so the branch it guards and the
// environment lookup are compiled out and release code calls no test hook.
#pragma once

#include "TestMutationsConfig.h"  // generated: TORCH_NPU_TEST_MUTATIONS 0 or 1

#if TORCH_NPU_TEST_MUTATIONS
namespace torch_npu {

// True if TORCH_NPU_TEST_MUTATION names `mutation`.
bool testMutation(const char* mutation);

}  // namespace torch_npu
#define TORCH_NPU_MUTATED(mutation) ::torch_npu::testMutation(mutation)
#else
#define TORCH_NPU_MUTATED(mutation) false
#endif
