"""Precision modes (ACL_PRECISION_MODE) and the fp16 overflow flag (docs/simulated_device.md)."""
import pytest
import torch
import torch_npu

from conftest import run_python


@pytest.fixture
def precision_mode():
    saved = torch.npu.get_option("ACL_PRECISION_MODE")
    yield torch.npu.set_option
    torch.npu.set_option({"ACL_PRECISION_MODE": saved})


def _operands():
    g = torch.Generator().manual_seed(0)
    return torch.randn(37, 65, generator=g), torch.randn(65, 23, generator=g)


def test_910a_default_runs_fp32_matmul_on_the_fp16_cube(precision_mode):
    precision_mode({"ACL_PRECISION_MODE": "allow_fp32_to_fp16"})
    a, b = _operands()
    npu = (a.npu() @ b.npu()).cpu()
    rounded = a.half().float() @ b.half().float()
    torch.testing.assert_close(npu, rounded, rtol=1e-5, atol=1e-4)
    assert (npu - a @ b).abs().max() > 1e-3  # really rounded to fp16


def test_must_keep_origin_dtype_keeps_fp32(precision_mode):
    precision_mode({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    a, b = _operands()
    torch.testing.assert_close((a.npu() @ b.npu()).cpu(), a @ b, rtol=1e-5, atol=1e-5)


def test_mode_switches_at_run_time(precision_mode):
    a, b = _operands()
    precision_mode({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    exact = (a.npu() @ b.npu()).cpu()
    precision_mode({"ACL_PRECISION_MODE": "allow_fp32_to_fp16"})
    assert torch.npu.get_option("ACL_PRECISION_MODE") == "allow_fp32_to_fp16"
    fast = (a.npu() @ b.npu()).cpu()
    assert not torch.equal(exact, fast)


def test_bad_option_values():
    with pytest.raises(RuntimeError, match="allow_fp32_to_fp16"):
        torch.npu.set_option({"ACL_PRECISION_MODE": "fastest"})
    with pytest.raises(RuntimeError, match="unknown NPU option 'ACL_OPTYPELIST'; supported: .*ACL_OP_SELECT_IMPL_MODE"):
        torch.npu.set_option({"ACL_OPTYPELIST": "x"})


def test_porting_guide_compile_options_are_validated_and_kept(tmp_path):
    """The porting guide's set_option keys (Note [Options without a simulated effect])."""
    saved = {k: torch.npu.get_option(k) for k in ("ACL_OP_SELECT_IMPL_MODE", "ACL_OP_COMPILER_CACHE_MODE",
                                                  "ACL_OP_COMPILER_CACHE_DIR")}
    try:
        torch.npu.set_option({"ACL_OP_SELECT_IMPL_MODE": "high_performance", "ACL_OPTYPELIST_FOR_IMPLMODE": "SoftmaxV2",
                              "ACL_OP_DEBUG_LEVEL": 3, "ACL_DEBUG_DIR": str(tmp_path),
                              "ACL_OP_COMPILER_CACHE_MODE": "force", "ACL_OP_COMPILER_CACHE_DIR": str(tmp_path)})
        assert torch.npu.get_option("ACL_OP_SELECT_IMPL_MODE") == "high_performance"
        assert torch.npu.get_option("ACL_OP_DEBUG_LEVEL") == "3"
        assert torch.npu.get_option("ACL_OP_COMPILER_CACHE_DIR") == str(tmp_path)
        with pytest.raises(RuntimeError, match="valid values: high_precision, high_performance"):
            torch.npu.set_option({"ACL_OP_SELECT_IMPL_MODE": "fast"})
        with pytest.raises(RuntimeError, match="valid values: 0, 1, 2, 3, 4"):
            torch.npu.set_option({"ACL_OP_DEBUG_LEVEL": "7"})
        with pytest.raises(RuntimeError, match="does not exist"):
            torch.npu.set_option({"ACL_OP_COMPILER_CACHE_DIR": str(tmp_path / "missing")})
        # a bad value anywhere in the dict applies none of it
        with pytest.raises(RuntimeError, match="ACL_OP_COMPILER_CACHE_MODE"):
            torch.npu.set_option({"ACL_OP_SELECT_IMPL_MODE": "high_precision", "ACL_OP_COMPILER_CACHE_MODE": "on"})
        assert torch.npu.get_option("ACL_OP_SELECT_IMPL_MODE") == "high_performance"
        with pytest.raises(RuntimeError, match="unknown NPU option 'ACL_NOPE'"):
            torch.npu.get_option("ACL_NOPE")
    finally:
        torch.npu.set_option(saved)


def test_results_are_bit_identical_run_to_run():
    a, b = _operands()
    first = (a.npu() @ b.npu()).cpu()
    for _ in range(3):
        assert torch.equal((a.npu() @ b.npu()).cpu(), first)


def test_fp16_saturation_and_sticky_flag_on_910a():
    torch_npu.npu_clear_float_status(torch.zeros(8).npu())
    assert not torch.npu.get_npu_overflow_flag()
    big = torch.full((4,), 60000.0, dtype=torch.float16).npu()
    result = (big + big).cpu()
    assert torch.equal(result, torch.full((4,), 65504.0, dtype=torch.float16))  # clamped, not inf
    assert torch.npu.get_npu_overflow_flag()
    status = torch_npu.npu_get_float_status(torch.zeros(8).npu())
    assert status.shape == (8,) and status.cpu()[0] != 0
    (big - big).cpu()
    assert torch.npu.get_npu_overflow_flag()  # sticky
    torch.npu.clear_npu_overflow_flag()
    assert not torch.npu.get_npu_overflow_flag()


def test_float_status_loss_scaling_loop_of_torch_npu_code():
    """The dynamic loss-scaling check of torch_npu code: alloc, get, clear."""
    x = torch.ones(4, dtype=torch.float16).npu()
    status = torch_npu.npu_alloc_float_status(x)
    assert status.device.type == "npu" and status.dtype == torch.float32 and status.cpu().tolist() == [0.0] * 8
    torch_npu.npu_clear_float_status(status)
    (x * 2).cpu()
    assert torch_npu.npu_get_float_status(status).cpu()[0] == 0  # no overflow yet
    big = torch.full((4,), 60000.0, dtype=torch.float16).npu()
    (big + big).cpu()                                            # saturates on the 910A
    assert torch_npu.npu_get_float_status(status).cpu()[0] != 0
    torch_npu.npu_clear_float_status(status)
    assert torch_npu.npu_get_float_status(status).cpu()[0] == 0
    with pytest.raises(RuntimeError, match="8-element float32 status tensor of torch_npu.npu_alloc_float_status"):
        torch_npu.npu_get_float_status(torch.zeros(8, dtype=torch.float16).npu())
    with pytest.raises(NotImplementedError, match="npu_alloc_float_status' with arguments from the 'CPU' backend"):
        torch_npu.npu_alloc_float_status(torch.zeros(8))


def test_ieee_overflow_on_910b2():
    result = run_python("""
        import torch, torch_npu
        big = torch.full((2,), 60000.0, dtype=torch.float16).npu()
        print(torch.npu.get_device_name(), (big + big).cpu().tolist(), torch.npu.get_npu_overflow_flag(),
              torch.npu.get_option("ACL_PRECISION_MODE"))
    """, env={"ASCEND_SIM_SOC_VERSION": "Ascend910B2"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Ascend910B2 [inf, inf] False must_keep_origin_dtype"


def test_device_properties_report_the_preset():
    props = torch.npu.get_device_properties(0)
    assert (props.name, props.cube_core_num, props.vector_core_num) == ("Ascend910A", 32, 32)
    assert props.total_memory > 0 and props.l2_cache_size == 32 * 1024 * 1024


def test_910a_copies_keep_fp16_inf_and_nan_while_arithmetic_saturates():
    """Saturation is an arithmetic effect: layout ops (AsStrided, Transpose, TransData...) copy bits."""
    code = """
        import math, torch, torch_npu
        x = torch.tensor([[float('nan'), float('inf')], [-float('inf'), 1.0]]).half()
        dev = x.npu()
        copies = [dev.t().contiguous(), dev[:, :1].contiguous(), dev.unsqueeze(0).expand(2, 2, 2).contiguous(),
                  torch.cat([dev, dev]), torch.triu(dev), torch_npu.npu_format_cast(dev.reshape(1, 2, 2, 1), 3)]
        for c in copies:
            host = c.cpu().float()
            assert host.isnan().any() and host.isinf().any(), host
        summed = (dev + 0).cpu().float()
        assert not summed.isinf().any() and summed.abs().max() == 65504, summed
        print("ok")
    """
    result = run_python(code, env={"ASCEND_SIM_SOC_VERSION": "Ascend910A"})
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


def test_compile_mode_binary_loads_one_kernel_per_op_and_dtype():
    """torch.npu.set_compile_mode(jit_compile=False): prebuilt binaries, no compile per new shape."""
    def compiles_for(first_rows):
        before = torch.npu.compile_count()
        for n in range(first_rows, first_rows + 5):
            (torch.ones(n, 7, device="npu") * 3).cpu()
        return torch.npu.compile_count() - before

    assert not torch.npu.is_jit_compile_false()
    assert compiles_for(101) == 10          # Fill and Mul, every new shape
    torch.npu.set_compile_mode(jit_compile=False)
    try:
        assert torch.npu.is_jit_compile_false()
        assert compiles_for(201) <= 2       # at most one binary per op type
        assert compiles_for(301) == 0
    finally:
        torch.npu.set_compile_mode(jit_compile=True)
    with pytest.raises(TypeError, match="jit_compile must be a bool"):
        torch.npu.set_compile_mode(jit_compile="no")


def test_impl_mode_changes_softmax_numerics_and_cost_for_the_listed_ops():
    """Note [Implementation modes]: high_performance fp16 softmax computes in fp16."""
    x = torch.randn(32, 500).mul(4)
    exact = torch.softmax(x.double(), -1)
    xh = x.half().npu()

    def run():
        with torch.npu.op_records() as rec:
            y = torch.softmax(xh, -1).cpu().double()
        (record,) = [r for r in rec.records if r.op_type == "SoftmaxV2"]
        return y, record

    saved = {k: torch.npu.get_option(k) for k in ("ACL_OP_SELECT_IMPL_MODE", "ACL_OPTYPELIST_FOR_IMPLMODE")}
    try:
        precise, precise_rec = run()
        torch.npu.set_option({"ACL_OP_SELECT_IMPL_MODE": "high_performance",
                              "ACL_OPTYPELIST_FOR_IMPLMODE": "SoftmaxV2"})
        fast, fast_rec = run()
        assert not torch.equal(fast, precise)
        assert (fast - exact).abs().max() < 2e-3  # still fp16-accurate
        assert fast_rec.vector_ratio <= precise_rec.vector_ratio
        torch.npu.set_option({"ACL_OPTYPELIST_FOR_IMPLMODE": "LayerNorm"})  # softmax not listed
        assert torch.equal(run()[0], precise)
        with pytest.raises(RuntimeError, match="valid values: high_precision, high_performance"):
            torch.npu.set_option({"ACL_PRECISION_MODE": "force_fp16", "ACL_OP_SELECT_IMPL_MODE": "fast"})
        assert torch.npu.get_option("ACL_PRECISION_MODE") != "force_fp16"  # nothing applied
    finally:
        torch.npu.set_option(saved)
