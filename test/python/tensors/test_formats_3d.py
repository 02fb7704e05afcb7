"""3-D convolutions and batch norms keep CANN's private 3-D layouts (issue 36 item 5): Conv3d weights
are FRACTAL_Z_3D after .npu(), activations between Conv3D, BN3D* and element-wise ops stay NDC1HWC0,
and gradients and optimizer state follow the weights' formats, as the 2-D path does with
FRACTAL_Z / NC1HWC0. Results match the CPU."""
import pytest
import torch
import torch_npu

from conftest import assert_close

F = torch_npu.Format
nn = torch.nn


@pytest.fixture
def internal_format():
    saved = torch.npu.config.allow_internal_format
    torch.npu.config.allow_internal_format = True
    yield
    torch.npu.config.allow_internal_format = saved


def _conv3d_bn_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv3d(3, 8, 3, padding=1, bias=False), nn.BatchNorm3d(8), nn.ReLU(),
                         nn.Conv3d(8, 20, 3, padding=1, stride=(1, 2, 2), bias=False), nn.BatchNorm3d(20), nn.ReLU(),
                         nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(20, 5))


def test_conv3d_bn3d_training_keeps_the_3d_formats(internal_format):
    cpu_model, npu_model = _conv3d_bn_model(), _conv3d_bn_model().npu()
    g = torch.Generator().manual_seed(1)
    data = [(torch.randn(2, 3, 4, 10, 10, generator=g), torch.randint(0, 5, (2,), generator=g)) for _ in range(3)]
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.1, momentum=0.9)
    npu_opt = torch.optim.SGD(npu_model.parameters(), lr=0.1, momentum=0.9)
    for x, y in data:
        cpu_opt.zero_grad()
        cpu_loss = torch.nn.functional.cross_entropy(cpu_model(x), y)
        cpu_loss.backward()
        cpu_opt.step()
        npu_opt.zero_grad()
        with torch.npu.op_records() as forward:
            hidden = npu_model[:6](x.npu())
            loss = torch.nn.functional.cross_entropy(npu_model[6:](hidden), y.npu())
        with torch.npu.op_records() as backward:
            loss.backward()
        with torch.npu.op_records() as step:
            npu_opt.step()
        assert_close(loss.cpu(), cpu_loss, rtol=1e-4, atol=1e-5)
        assert torch_npu.get_npu_format(hidden) == F.NDC1HWC0
        ops = [r.op_type for r in forward.records]
        assert ops.count("Conv3D") == 2 and ops.count("BN3DTrainingUpdate") == 2, ops
        assert "BNTrainingUpdate" not in ops
        # One conversion each way, where a base-format op meets the network: the pooling's input and its gradient.
        assert [r.shapes for r in forward.records if r.op_type == "TransData"] == \
            ["[2,20,4,5,5]:FLOAT:NDC1HWC0->[2,20,4,5,5]:FLOAT:NCDHW"]
        assert [r.op_type for r in backward.records].count("TransData") == 1
        assert "TransData" not in [r.op_type for r in step.records]
    for (name, p_npu), p_cpu in zip(npu_model.named_parameters(), cpu_model.parameters()):
        fmt = torch_npu.get_npu_format(p_npu)
        assert torch_npu.get_npu_format(p_npu.grad) == fmt, name
        assert torch_npu.get_npu_format(npu_opt.state[p_npu]["momentum_buffer"]) == fmt, name
        assert_close(p_npu, p_cpu, rtol=1e-4, atol=1e-5)
    assert torch_npu.get_npu_format(npu_model[0].weight) == F.FRACTAL_Z_3D
    assert torch_npu.get_npu_format(npu_model[3].weight) == F.FRACTAL_Z_3D
    assert cpu_model.state_dict()["0.weight"].shape == npu_model.state_dict()["0.weight"].shape


def test_conv3d_formats_follow_the_switch(internal_format):
    """With internal formats off every 3-D operand stays NCDHW, with the same values."""
    x = torch.randn(2, 3, 4, 6, 6)
    outputs = {}
    for allowed in (True, False):
        torch.npu.config.allow_internal_format = allowed
        model = _conv3d_bn_model().npu()
        out = model[:3](x.npu())
        want_weight, want_out = (F.FRACTAL_Z_3D, F.NDC1HWC0) if allowed else (F.NCDHW, F.NCDHW)
        assert torch_npu.get_npu_format(model[0].weight) == want_weight
        assert torch_npu.get_npu_format(out) == want_out
        outputs[allowed] = out.cpu()
    assert torch.equal(outputs[True], outputs[False])


def test_transposed_and_grouped_3d_convolutions_in_private_formats(internal_format):
    """ConvTranspose3d (Conv3DBackpropInput forward) and grouped Conv3d read NDC1HWC0 inputs."""
    torch.manual_seed(0)
    x = torch.randn(2, 8, 3, 5, 5, requires_grad=True)
    for make in (lambda: nn.ConvTranspose3d(8, 6, 3, stride=2, padding=1, output_padding=1),
                 lambda: nn.Conv3d(8, 4, (1, 3, 3), padding=(0, 1, 1), groups=2)):
        torch.manual_seed(1)
        cpu_layer = make()
        torch.manual_seed(1)
        npu_layer = make().npu()
        xn = torch_npu.npu_format_cast(x.detach().npu(), F.NDC1HWC0).requires_grad_()
        out, ref = npu_layer(xn), cpu_layer(x)
        assert_close(out.cpu(), ref, rtol=1e-4, atol=1e-5)
        out.square().sum().backward()
        ref.square().sum().backward()
        assert_close(xn.grad.cpu(), x.grad, rtol=1e-4, atol=1e-4)
        assert_close(npu_layer.weight.grad.cpu(), cpu_layer.weight.grad, rtol=1e-4, atol=1e-4)
        x.grad = None
