"""The mutation check (issue 17, Note [Test mutations] in csrc/core/TestMutations.h): with one
guarantee deliberately broken (TORCH_NPU_TEST_MUTATION), the tests that guard it must fail.
A guard that still passes under its mutation proves nothing."""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GTESTS = os.path.join(ROOT, "build", "test", "cpp", "torch_npu_tests")


def _run(cmd, mutation):
    env = dict(os.environ, TORCH_NPU_TEST_MUTATION=mutation)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd="/tmp")


def _pytest(node):
    return ["/usr/bin/python3", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", os.path.join(HERE, node)]


@pytest.mark.parametrize("mutation,guards", [
    ("record_stream_noop", _pytest("test_streams_events.py::test_record_stream_keeps_memory_until_the_stream_is_done")),
    ("task_queue_lifo", _pytest("test_task_queue.py::test_queue_on_off_and_blocking_give_the_same_bits_and_the_cpus_values")),
    ("relu_backward_zero", _pytest("test_training.py::test_npu_training_matches_cpu")),
    ("relu_backward_zero", [GTESTS, "--gtest_filter=NpuUnaryOps.Backward:NpuActivationGrad.ExplicitBackwardOps"]),
])
def test_the_guarding_tests_fail_under_their_mutation(mutation, guards):
    if guards[0] == GTESTS and not os.path.exists(GTESTS):
        pytest.skip("the GoogleTest program is not built (build/test/cpp/torch_npu_tests)")
    broken = _run(guards, mutation)
    assert broken.returncode != 0, f"{' '.join(guards[-1:])} passed with {mutation}:\n{broken.stdout[-3000:]}"
    clean = _run(guards, "")
    assert clean.returncode == 0, f"{' '.join(guards[-1:])} fails even without a mutation:\n{clean.stdout[-3000:]}"
