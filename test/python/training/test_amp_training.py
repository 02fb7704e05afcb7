"""examples/amp_training.py: ResNet-50 and the Transformer LM train in mixed precision on the NPU
(torch.npu.amp and apex O1/O2, dynamic and static loss scale) against the CPU in fp32."""
import os

import pytest

from conftest import REPO_ROOT, run_python

EXAMPLES = os.path.join(REPO_ROOT, "examples")


def _run(*argv, soc="Ascend910A"):
    code = f"import sys; sys.argv = ['amp_training.py', *{list(argv)!r}]; import amp_training; " \
           "sys.exit(amp_training.main())"
    return run_python(code, env={"ASCEND_SIM_SOC_VERSION": soc}, cwd=EXAMPLES, timeout=600)


@pytest.mark.parametrize("amp,loss_scale", [("native", "dynamic"), ("O1", "dynamic"), ("O2", "dynamic"),
                                            ("O2", "128")])
def test_transformer_lm_tracks_fp32_step_by_step(amp, loss_scale):
    result = _run("--model", "transformer", "--amp", amp, "--loss-scale", loss_scale)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "within the 10% band; PASS" in result.stdout


@pytest.mark.parametrize("amp,soc", [("native", "Ascend910A"), ("O2", "Ascend910A"), ("O1", "Ascend910B2")])
def test_resnet50_fits_a_batch_in_mixed_precision(amp, soc):
    result = _run("--model", "resnet50", "--amp", amp, "--batch-size", "8", soc=soc)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS" in result.stdout
    assert "(skipped: overflow)" in result.stdout  # the dynamic scale starts too high for ResNet-50 and backs off
