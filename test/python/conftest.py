import os
import subprocess
import textwrap

import pytest
import torch
import torch_npu  # noqa: F401

PYTHON = "/usr/bin/python3"

# The tests live in subfolders of test/python by subject (runtime/, ops/, training/, ...,
# npu_op_tests/<op family>/); they reach files elsewhere through these two, not through `..` chains.
# pytest puts this folder on sys.path (its "prepend" import mode), so every subfolder can
# `from conftest import TEST_DIR, REPO_ROOT` and `import dist_util` / `import model_parity` /
# `import ps_roi_reference` / `import rotated_box_reference`.
TEST_DIR = os.path.dirname(os.path.abspath(__file__))  # test/python
REPO_ROOT = os.path.dirname(os.path.dirname(TEST_DIR))

# Feature tests compare with PyTorch's fp32 CPU results, so the Cube keeps
# fp32 operands; runtime/test_numerics.py covers the Ascend910A default
# (allow_fp32_to_fp16) explicitly.
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})


def run_python(code, env=None, cwd="/tmp", timeout=120):
    """Runs `code` in a fresh interpreter; returns the CompletedProcess."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([PYTHON, "-c", textwrap.dedent(code)], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def npu():
    return torch.device("npu:0")


def assert_close(actual, expected, rtol=1e-4, atol=1e-5):
    torch.testing.assert_close(actual.cpu(), expected, rtol=rtol, atol=atol)
