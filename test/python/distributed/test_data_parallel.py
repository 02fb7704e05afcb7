"""torch.nn.DataParallel across simulated NPUs (Note [DataParallel on the NPU] in
torch_npu/_patches/data_parallel.py): 2 devices train as 1 does."""
import pytest
import torch
import torch.nn as nn
from torch.nn.parallel import comm


class _DeviceLog(nn.Module):
    """Records the device and autocast state each replica runs under."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def forward(self, x):
        self.log.append((x.device, torch.npu.current_device(), torch.npu.amp.autocast_mode.is_autocast_enabled()))
        return x


def _model(log=None):
    torch.manual_seed(0)
    layers = [nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)]
    return nn.Sequential(*(([_DeviceLog(log)] if log is not None else []) + layers))


def test_device_properties_carry_what_cuda_code_reads(npu):
    props = torch.npu.get_device_properties(0)
    assert props.multi_processor_count == props.cube_core_num > 0
    assert (props.major, props.minor) == torch.npu.get_device_capability(0)
    assert props.total_memory > 0 and props.name.startswith("Ascend")


def test_two_devices_train_as_one(npu):
    log = []
    single = _model().to(npu)
    parallel = nn.DataParallel(_model(log).to(npu), device_ids=[0, 1])
    assert parallel.device_ids == [0, 1] and parallel.src_device_obj == npu
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (single, parallel)]
    torch.manual_seed(1)
    for _ in range(3):
        x, y = torch.randn(16, 8), torch.randn(16, 4)
        losses = []
        for model, opt in zip((single, parallel), optimizers):
            opt.zero_grad()
            out = model(x.to(npu))
            assert out.device == npu and out.shape == (16, 4)
            loss = (out - y.to(npu)).square().mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    for a, b in zip(single.parameters(), parallel.module.parameters()):
        torch.testing.assert_close(b.detach().cpu(), a.detach().cpu(), rtol=1e-5, atol=1e-6)
    replica_devices = {(str(device), current) for device, current, _ in log}
    assert replica_devices == {("npu:0", 0), ("npu:1", 1)}


def test_replicas_run_under_the_callers_autocast(npu):
    log = []
    parallel = nn.DataParallel(_model(log).to(npu), device_ids=[0, 1])
    with torch.npu.amp.autocast():
        out = parallel(torch.randn(4, 8, device=npu))
    assert out.dtype == torch.float16
    assert [enabled for _, _, enabled in log] == [True, True]


def test_default_device_ids_are_every_npu(npu):
    assert nn.DataParallel(_model().to(npu)).device_ids == list(range(torch.npu.device_count()))


def test_parameters_on_another_device_are_refused(npu):
    parallel = nn.DataParallel(_model().to("npu:1"), device_ids=[0, 1])
    with pytest.raises(RuntimeError, match="must have its parameters and buffers on device npu:0"):
        parallel(torch.randn(2, 8, device=npu))


def test_comm_primitives(npu):
    t = torch.arange(6.0, device=npu).view(3, 2)
    copies = comm.broadcast(t, [0, 1])
    assert copies[0] is t and copies[1].device == torch.device("npu:1")
    torch.testing.assert_close(copies[1].cpu(), t.cpu())
    a, b = comm.broadcast_coalesced([t, t + 1], [0, 1])
    assert a[0] is t and b[1].device == torch.device("npu:1")
    chunks = comm.scatter(t, [0, 1], dim=0)
    assert [c.device.index for c in chunks] == [0, 1] and [c.shape[0] for c in chunks] == [2, 1]
    torch.testing.assert_close(comm.gather(chunks, 0, 1).cpu(), t.cpu())
    assert comm.gather(chunks, 0, -1).device.type == "cpu"
    summed = comm.reduce_add([t, copies[1]], destination=1)
    assert summed.device == torch.device("npu:1")
    torch.testing.assert_close(summed.cpu(), 2 * t.cpu())
    with pytest.raises(RuntimeError, match="all tensors must be on devices\\[0\\]"):
        comm.broadcast_coalesced([copies[1]], [0, 1])
