"""The mutation check (issue 17, Note [Test mutations] in csrc/core/TestMutations.h): with one
guarantee deliberately broken (TORCH_NPU_TEST_MUTATION), the tests that guard it must fail.
A guard that still passes under its mutation proves nothing."""
import os
import subprocess

import pytest

from conftest import REPO_ROOT as ROOT, TEST_DIR

GTESTS = os.path.join(ROOT, "build", "test", "cpp", "torch_npu_tests")
LIBRARY = os.path.join(ROOT, "build", "lib", "libtorch_npu.so")


def _mutations_built():
    """Whether build/ is a test build (CMake option TORCH_NPU_TEST_MUTATIONS, Note [Test mutations])."""
    cache = os.path.join(ROOT, "build", "CMakeCache.txt")
    if not os.path.exists(cache):
        return False
    with open(cache) as f:
        return any(line.strip() == "TORCH_NPU_TEST_MUTATIONS:BOOL=ON" for line in f)


@pytest.fixture(autouse=True)
def _test_build_only(request):
    if request.node.name.startswith("test_release_build"):
        return
    if not _mutations_built():
        # ci/test.sh makes a test build (TORCH_NPU_TEST_BUILD=1): there, a missing mutation is a failure.
        assert os.environ.get("TORCH_NPU_TEST_BUILD") != "1", "a test build without the test mutations"
        pytest.skip("not a test build: configure with -DTORCH_NPU_TEST_MUTATIONS=ON (TORCH_NPU_TEST_BUILD=1)")


def _run(cmd, mutation):
    env = dict(os.environ, TORCH_NPU_TEST_MUTATION=mutation)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd="/tmp")


def _pytest(node):
    return ["/usr/bin/python3", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", os.path.join(TEST_DIR, node)]


@pytest.mark.parametrize("mutation,guards", [
    ("record_stream_noop",
     _pytest("runtime/test_streams_events.py::test_record_stream_keeps_memory_until_the_stream_is_done")),
    ("task_queue_lifo",
     _pytest("runtime/test_task_queue.py::test_queue_on_off_and_blocking_give_the_same_bits_and_the_cpus_values")),
    ("relu_backward_zero", _pytest("training/test_training.py::test_npu_training_matches_cpu")),
    ("graph_pool_shared", _pytest("runtime/test_graphs.py::test_the_capture_memory_stays_the_graphs_until_reset")),
    ("graph_pool_shared", [GTESTS, "--gtest_filter=NpuGraph.ThePoolKeepsCapturedMemoryUntilReset"]),
    ("relu_backward_zero", [GTESTS, "--gtest_filter=NpuUnaryOps.Backward:NpuActivationGrad.ExplicitBackwardOps"]),
])
def test_the_guarding_tests_fail_under_their_mutation(mutation, guards):
    if guards[0] == GTESTS and not os.path.exists(GTESTS):
        pytest.skip("the GoogleTest program is not built (build/test/cpp/torch_npu_tests)")
    broken = _run(guards, mutation)
    assert broken.returncode != 0, f"{' '.join(guards[-1:])} passed with {mutation}:\n{broken.stdout[-3000:]}"
    clean = _run(guards, "")
    assert clean.returncode == 0, f"{' '.join(guards[-1:])} fails even without a mutation:\n{clean.stdout[-3000:]}"


def test_release_build_has_no_test_hook():
    """The deliberate defects exist in test builds only: elsewhere the library has no hook to call."""
    if not os.path.exists(LIBRARY):
        pytest.skip("the library is not built (build/lib/libtorch_npu.so)")
    symbols = subprocess.run(["nm", "-DC", LIBRARY], capture_output=True, text=True, check=True).stdout
    assert ("torch_npu::testMutation" in symbols) == _mutations_built()
