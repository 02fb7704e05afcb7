"""apex.amp as the porting guide uses it (O1/O2/O3, static and dynamic loss scale, combine_grad)."""
import os

import pytest
import torch

import torch_npu  # noqa: F401
from conftest import TEST_DIR, run_python

# The scripts below run in this folder and `import test_apex`, which imports conftest from test/python.
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHONPATH = os.pathsep.join(filter(None, [TEST_DIR, os.environ.get("PYTHONPATH")]))


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.BatchNorm1d(64), torch.nn.ReLU(),
                               torch.nn.Linear(64, 4)).npu()


def _data():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 32, generator=g)
    return x.npu(), (x[:, :4] * 2).npu()


def _train_fp32(steps, lr=0.2):
    model = _model()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    x, y = _data()
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _run(script, **env):
    result = run_python(script, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


TRAIN = """
import torch, torch_npu
from apex import amp
import test_apex
model = test_apex._model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
model, optimizer = amp.initialize(model, optimizer, opt_level=OPT, loss_scale=SCALE, combine_grad=True, verbosity=0)
x, y = test_apex._data()
losses = []
for _ in range(20):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    with amp.scale_loss(loss, optimizer) as scaled_loss:
        scaled_loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("LOSSES", losses)
print("DTYPES", model[0].weight.dtype, model[1].weight.dtype, next(amp.master_params(optimizer)).dtype)
"""


def _losses(out):
    return [float(v) for v in out.split("LOSSES [")[1].split("]")[0].split(",")]


@pytest.mark.parametrize("opt_level,loss_scale", [("O1", "'dynamic'"), ("O1", "128.0"), ("O2", "'dynamic'"),
                                                  ("O2", "128.0")])
def test_apex_trains_and_tracks_fp32(opt_level, loss_scale):
    out = run_python(TRAIN.replace("OPT", repr(opt_level)).replace("SCALE", loss_scale),
                     env={"PYTHONPATH": PYTHONPATH}, cwd=HERE)
    assert out.returncode == 0, out.stderr
    losses, reference = _losses(out.stdout), _train_fp32(20)
    assert losses[-1] < 0.5 * losses[0]
    for a, f in zip(losses, reference):
        assert abs(a - f) <= 0.03 * f + 2e-3
    if opt_level == "O2":  # fp16 model except batch norm, fp32 masters in the optimizer
        assert "DTYPES torch.float16 torch.float32 torch.float32" in out.stdout
    else:
        assert "DTYPES torch.float32 torch.float32 torch.float32" in out.stdout


OVERFLOW = """
import torch, torch_npu
from apex import amp
import test_apex
model = test_apex._model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = amp.initialize(model, optimizer, opt_level=OPT, loss_scale=SCALE, verbosity=1)
before = [p.detach().cpu().clone() for p in model.parameters()]
x, y = test_apex._data()
loss = torch.nn.functional.mse_loss(model(x), y) * 1e4  # scaled gradients beyond fp16's range
with amp.scale_loss(loss, optimizer) as scaled_loss:
    scaled_loss.backward()
optimizer.step()
after = [p.detach().cpu() for p in model.parameters()]
print("UNCHANGED", all(torch.equal(a, b) for a, b in zip(before, after)))
print("STATE", amp.state_dict())
"""


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend910B2"])
@pytest.mark.parametrize("opt_level", ["O1", "O2"])
def test_overflow_skips_the_step_and_lowers_the_dynamic_scale(soc, opt_level):
    env = {"ASCEND_SIM_SOC_VERSION": soc, "PYTHONPATH": PYTHONPATH}
    out = run_python(OVERFLOW.replace("OPT", repr(opt_level)).replace("SCALE", "'dynamic'"), env=env, cwd=HERE)
    assert out.returncode == 0, out.stderr
    assert "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0" in out.stdout
    assert "UNCHANGED True" in out.stdout
    static = run_python(OVERFLOW.replace("OPT", repr(opt_level)).replace("SCALE", str(2.0 ** 24)), env=env, cwd=HERE)
    assert static.returncode == 0, static.stderr
    assert "UNCHANGED True" in static.stdout and "'loss_scale': 16777216.0" in static.stdout


def test_porting_guide_snippet_and_errors():
    from apex import amp
    model = _model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer = amp.initialize(model, optimizer, combine_grad=True, verbosity=0)  # O1 by default
    x, y = _data()
    loss = torch.nn.functional.mse_loss(model(x), y)
    with amp.scale_loss(loss, optimizer) as scaled_loss:
        scaled_loss.backward()
    optimizer.step()
    state = amp.state_dict()
    amp.load_state_dict(state)
    assert amp.state_dict() == state
    with pytest.raises(RuntimeError, match="Unexpected optimization level 'O4'"):
        amp.initialize(_model(), opt_level="O4")
    cpu_model = torch.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="call model.npu\\(\\) before amp.initialize"):
        amp.initialize(cpu_model, torch.optim.SGD(cpu_model.parameters(), lr=0.1))
    with pytest.raises(RuntimeError, match="already called on this optimizer"):
        amp.initialize(model, optimizer)


ACCUMULATE = """
import torch, torch_npu
from apex import amp
import test_apex
model = test_apex._model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = amp.initialize(model, optimizer, opt_level=OPT, loss_scale=128.0, verbosity=0)
x, y = test_apex._data()
def backward(factor):
    with amp.scale_loss(torch.nn.functional.mse_loss(model(x), y) * factor, optimizer) as scaled_loss:
        scaled_loss.backward()
optimizer.zero_grad()
backward(1.0)
backward(1.0)  # no zero_grad in between: gradient accumulation
twice = [p.grad.cpu().clone() for p in amp.master_params(optimizer)]
optimizer.zero_grad()
backward(2.0)
once = [p.grad.cpu() for p in amp.master_params(optimizer)]
print("EQUAL", all(torch.equal(a, b) for a, b in zip(twice, once)), len(once))
"""


@pytest.mark.parametrize("opt_level", ["O1", "O2"])
def test_gradients_accumulate_over_scale_loss_calls_without_zero_grad(opt_level):
    # Note [Accumulating scaled gradients] in apex/amp/handle.py: the gradients of two backward passes
    # of the loss equal those of one of twice the loss, exactly (the loss scale is a power of two).
    out = run_python(ACCUMULATE.replace("OPT", repr(opt_level)), env={"PYTHONPATH": PYTHONPATH}, cwd=HERE)
    assert out.returncode == 0, out.stderr
    assert "EQUAL True 6" in out.stdout, out.stdout
