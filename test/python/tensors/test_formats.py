"""Storage formats: get_npu_format, npu_format_cast(_), empty_with_format (docs/formats.md)."""
import io

import pytest
import torch
import torch_npu

from conftest import assert_close

F = torch_npu.Format
PRIVATE_4D = [F.NC1HWC0, F.FRACTAL_Z, F.NHWC, F.FRACTAL_NZ]


def test_new_tensors_have_base_formats():
    assert torch_npu.get_npu_format(torch.ones(2, 3, 4, 5).npu()) == F.NCHW
    assert torch_npu.get_npu_format(torch.ones(7).npu()) == F.ND
    assert torch_npu.get_npu_format(torch.ones(2, 3, 4, 5, 6).npu()) == F.NCDHW


@pytest.mark.parametrize("fmt", PRIVATE_4D)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_cast_roundtrip_keeps_values(fmt, dtype):
    x = (torch.randn(2, 33, 4, 5) * 100).to(dtype)
    y = torch_npu.npu_format_cast(x.npu(), fmt)
    assert torch_npu.get_npu_format(y) == fmt
    assert y.shape == x.shape and y.dtype == dtype
    assert torch.equal(y.cpu(), x)                          # host copies see the logical tensor
    assert "device='npu:0'" in repr(y)
    back = y.npu_format_cast(F.NCHW)
    assert torch_npu.get_npu_format(back) == F.NCHW and torch.equal(back.cpu(), x)


def test_storage_shapes_follow_the_spec():
    from torch_npu import _C
    x = torch_npu.npu_format_cast(torch.zeros(2, 3, 4, 5).npu(), F.NC1HWC0)
    assert _C._npu_storageDesc(x)["storage_sizes"] == [2, 1, 4, 5, 16]
    w = torch_npu.npu_format_cast(torch.zeros(64, 3, 7, 7).npu(), F.FRACTAL_Z)
    assert _C._npu_storageDesc(w)["storage_sizes"] == [49, 4, 16, 16]
    nz = torch_npu.npu_format_cast(torch.zeros(4, 100, 50, dtype=torch.float16).npu(), F.FRACTAL_NZ)
    assert _C._npu_storageDesc(nz)["storage_sizes"] == [4, 4, 7, 16, 16]


def test_ops_and_views_on_private_formats():
    x = torch.randn(2, 19, 5, 3)
    y = torch_npu.npu_format_cast(x.npu(), F.NC1HWC0)
    assert_close(y * 2 + 1, x * 2 + 1)
    assert_close(y[:, 3:7].sum(dim=1), x[:, 3:7].sum(dim=1))
    assert_close(y.transpose(1, 3).contiguous(), x.transpose(1, 3).contiguous(), rtol=0, atol=0)
    y.add_(1)                                                # in-place write keeps the format
    assert torch_npu.get_npu_format(y) == F.NC1HWC0
    assert_close(y, x + 1)
    y[0, 2].fill_(7)                                         # partial write through a view
    expected = x + 1
    expected[0, 2] = 7
    assert_close(y, expected)


def test_inplace_cast_of_parameter_keeps_training():
    lin = torch.nn.Linear(20, 30).npu()
    lin.weight.data.npu_format_cast_(F.FRACTAL_NZ)
    assert torch_npu.get_npu_format(lin.weight) == F.FRACTAL_NZ
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    ref = torch.nn.Linear(20, 30)
    ref.load_state_dict({k: v.cpu() for k, v in lin.state_dict().items()})
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    x = torch.randn(8, 20)
    for model, optim, inp in ((lin, opt, x.npu()), (ref, ref_opt, x)):
        optim.zero_grad()
        model(inp).square().mean().backward()
        optim.step()
    assert torch_npu.get_npu_format(lin.weight) == F.FRACTAL_NZ
    assert_close(lin.weight, ref.weight)


def test_nz_on_1d_falls_back_to_nd():
    v = torch_npu.npu_format_cast(torch.arange(5.0).npu(), F.FRACTAL_NZ)
    assert torch_npu.get_npu_format(v) == F.ND


def test_bad_format_id_lists_valid_ones():
    with pytest.raises(RuntimeError, match="npu format 77 is not a valid format id; valid formats are: NCHW=0"):
        torch_npu.npu_format_cast(torch.ones(2, 2).npu(), 77)
    with pytest.raises(RuntimeError, match="at most 4 dimensions"):
        torch_npu.npu_format_cast(torch.ones(1, 2, 3, 4, 5).npu(), F.NC1HWC0)


def test_empty_with_format():
    t = torch_npu.empty_with_format((2, 3, 4, 5), dtype=torch.float16, acl_format=F.NC1HWC0)
    assert t.shape == (2, 3, 4, 5) and t.dtype == torch.float16 and torch_npu.get_npu_format(t) == F.NC1HWC0
    t.fill_(1.5)
    assert torch.equal(t.cpu(), torch.full((2, 3, 4, 5), 1.5, dtype=torch.float16))


def test_save_load_and_state_dict_hold_logical_tensors():
    x = torch.randn(3, 17, 2, 2)
    y = torch_npu.npu_format_cast(x.npu(), F.NC1HWC0)
    buffer = io.BytesIO()
    torch.save({"y": y, "view": y[1]}, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, map_location="cpu")
    assert torch.equal(loaded["y"], x) and torch.equal(loaded["view"], x[1])


@pytest.fixture
def internal_format():
    saved = torch.npu.config.allow_internal_format
    yield
    torch.npu.config.allow_internal_format = saved


def test_elementwise_outputs_follow_the_first_input_format(internal_format):
    torch.npu.config.allow_internal_format = True
    x = torch.randn(2, 19, 5, 3)
    y = torch_npu.npu_format_cast(x.npu(), F.NC1HWC0)
    z = torch.relu(y * 2 + 1)
    assert torch_npu.get_npu_format(z) == F.NC1HWC0
    assert_close(z, torch.relu(x * 2 + 1))
    mixed = y + x.npu()                                  # first input decides
    assert torch_npu.get_npu_format(mixed) == F.NC1HWC0
    assert torch_npu.get_npu_format(x.npu() + y) == F.NCHW
    assert_close(mixed, x * 2)


def test_disallowing_internal_formats_gives_base_formats(internal_format):
    torch.npu.config.allow_internal_format = False
    assert repr(torch.npu.config) == "torch.npu.config(allow_internal_format=False)"
    y = torch_npu.npu_format_cast(torch.randn(2, 19, 5, 3).npu(), F.NC1HWC0)
    assert torch_npu.get_npu_format(y * 2) == F.NCHW
    assert torch_npu.get_npu_format(y) == F.NC1HWC0     # existing tensors keep their format


def test_same_format_ops_run_without_transdata(internal_format):
    torch.npu.config.allow_internal_format = True
    y = torch_npu.npu_format_cast(torch.randn(2, 19, 5, 3).npu(), F.NC1HWC0)
    w = torch_npu.npu_format_cast(torch.randn(2, 19, 5, 3).npu(), F.NC1HWC0)
    with torch.npu.op_records() as rec:
        (y * w + y).relu_()
    ops = [r.op_type for r in rec.records]
    assert "TransData" not in ops and ops.count("Mul") == 1
    assert any("NC1HWC0" in r.shapes for r in rec.records if r.op_type == "Relu")
    # abs (not structured in PyTorch 1.13) keeps the format too, functional and in place
    with torch.npu.op_records() as rec:
        a = torch.abs(y)
        y.abs_()
    assert [r.op_type for r in rec.records] == ["Abs", "Abs"]
    assert torch_npu.get_npu_format(a) == F.NC1HWC0 and torch_npu.get_npu_format(y) == F.NC1HWC0


def test_clone_and_like_factories_keep_private_formats(internal_format):
    torch.npu.config.allow_internal_format = True
    x = torch.randn(33, 19, 3, 3)
    w = torch_npu.npu_format_cast(x.npu(), F.FRACTAL_Z)
    with torch.npu.op_records() as rec:
        c = torch.clone(w)
    assert [r.op_type for r in rec.records] == ["MemcpyD2D"]    # the storage as it is, no TransData
    assert torch_npu.get_npu_format(c) == F.FRACTAL_Z and torch.equal(c.cpu(), x)
    w.add_(1)                                                    # the clone has its own storage
    assert torch.equal(c.cpu(), x)
    for like in (torch.zeros_like(w), torch.ones_like(w), torch.empty_like(w), torch.full_like(w, 3.0)):
        assert torch_npu.get_npu_format(like) == F.FRACTAL_Z
    assert torch.equal(torch.zeros_like(w).cpu(), torch.zeros_like(x))
    cl = w.clone(memory_format=torch.channels_last)              # another memory format: a base format
    assert torch_npu.get_npu_format(cl) == F.NCHW and cl.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(cl.cpu(), x + 1)
    assert torch_npu.get_npu_format(w[1:].clone()) == F.NCHW    # part of the storage: a base format
    torch.npu.config.allow_internal_format = False
    assert torch_npu.get_npu_format(w.clone()) == F.NCHW
    assert torch_npu.get_npu_format(torch.zeros_like(w)) == F.NCHW


def _conv_bn_model():
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.MaxPool2d(3, 2, 1), nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
                         nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))


def test_sgd_momentum_on_conv_bn_keeps_formats_without_transdata(internal_format):
    """Conv weights (FRACTAL_Z) and BN parameters (NC1HWC0) get gradients and
    momentum buffers in their own formats, so SGD's update needs no TransData;
    the backward converts only where a base-format op meets the network (the
    gradient of the global average pool), and the results match the CPU."""
    torch.npu.config.allow_internal_format = True
    cpu_model, npu_model = _conv_bn_model(), _conv_bn_model().npu()
    g = torch.Generator().manual_seed(1)
    data = [(torch.randn(4, 3, 12, 12, generator=g), torch.randint(0, 5, (4,), generator=g)) for _ in range(3)]
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.1, momentum=0.9)
    npu_opt = torch.optim.SGD(npu_model.parameters(), lr=0.1, momentum=0.9)
    for x, y in data:
        cpu_opt.zero_grad()
        torch.nn.functional.cross_entropy(cpu_model(x), y).backward()
        cpu_opt.step()
        npu_opt.zero_grad()
        with torch.npu.op_records() as backward:
            torch.nn.functional.cross_entropy(npu_model(x.npu()), y.npu()).backward()
        with torch.npu.op_records() as step:
            npu_opt.step()
        step_ops = [r.op_type for r in step.records]
        assert "TransData" not in step_ops, step_ops             # the first step clones grads into buffers
        transdata = [r.shapes for r in backward.records if r.op_type == "TransData"]
        assert len(transdata) <= 2, transdata                    # ReduceMean's input, the last ReLU's gradient
        assert "MemcpyD2D" not in [r.op_type for r in backward.records]
    for (name, p_npu), p_cpu in zip(npu_model.named_parameters(), cpu_model.parameters()):
        fmt = torch_npu.get_npu_format(p_npu)
        assert torch_npu.get_npu_format(p_npu.grad) == fmt, name
        assert torch_npu.get_npu_format(npu_opt.state[p_npu]["momentum_buffer"]) == fmt, name
        assert_close(p_npu, p_cpu, rtol=1e-4, atol=1e-5)
    formats = {name: torch_npu.get_npu_format(p) for name, p in npu_model.named_parameters()}
    assert formats["0.weight"] == F.FRACTAL_Z and formats["1.weight"] == F.NC1HWC0 and formats["1.bias"] == F.NC1HWC0


def test_format_cast_to_another_tensors_format(npu):
    """torch_npu's npu_format_cast(self, dst) overload: the format of `dst`."""
    dst = torch_npu.npu_format_cast(torch.randn(4, 16).to(npu), torch_npu.Format.FRACTAL_NZ)
    x = torch.randn(4, 16)
    y = torch_npu.npu_format_cast(x.to(npu), dst)
    assert torch_npu.get_npu_format(y) == torch_npu.Format.FRACTAL_NZ
    assert torch.equal(y.cpu(), x)
    z = x.to(npu).npu_format_cast_(dst)
    assert torch_npu.get_npu_format(z) == torch_npu.Format.FRACTAL_NZ


def test_format_ids_and_rank_rules_come_from_the_simulators_table():
    # One format table (the simulator's): torch_npu.Format and the plugin's rank checks read it.
    rows = torch_npu._C._npu_formatTable()  # (name, id, base id, private, min rank, max rank)
    assert [(f.name, int(f)) for f in F if f is not F.UNDEFINED] == [(r[0], r[1]) for r in rows]
    assert (F.UNDEFINED, F.NCHW, F.ND, F.NC1HWC0, F.FRACTAL_Z, F.FRACTAL_NZ, F.NDC1HWC0, F.FRACTAL_Z_3D) == \
        (-1, 0, 2, 3, 4, 29, 32, 33)
    by_name = {r[0]: r for r in rows}
    assert by_name["NC1HWC0"][2] == F.NCHW and by_name["NC1HWC0"][3] and by_name["ND"][2] == F.ND
    assert by_name["NDC1HWC0"][4:] == (5, 5)
    with pytest.raises(RuntimeError, match="needs a 5-D \\(NCDHW\\) tensor"):
        torch_npu.npu_format_cast(torch.randn(2, 3, 4, 5).npu(), F.NDC1HWC0)
    with pytest.raises(RuntimeError, match="valid formats are: NCHW=0, NHWC=1, ND=2"):
        torch_npu.npu_format_cast(torch.randn(2, 3).npu(), 5)
