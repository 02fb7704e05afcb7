"""Ascend C kernels on the simulated NPU (docs/ascend_c.md): the example extension
(examples/ascend_c: add_custom, softmax_custom, matmul_leakyrelu) built by its setup.py in a copy
outside the checkout, run from PyTorch through OpCommand::SetCustomHandler and ACLRT_LAUNCH_KERNEL,
compared with the CPU, seen in op records and the profiler with simulated time; a kernel that breaks
a rule of the chip fails the next synchronize with an AI Core exception, and the device goes on.
"""
import collections
import json
import os
import shutil
import subprocess
import sys

import pytest
import torch

import torch_npu  # noqa: F401
from conftest import PYTHON, REPO_ROOT
from torch_npu.utils import cpp_extension

EXAMPLE = os.path.join(REPO_ROOT, "examples", "ascend_c")


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    build = tmp_path_factory.mktemp("ascendc")
    for name in os.listdir(EXAMPLE):
        shutil.copy(os.path.join(EXAMPLE, name), build / name)
    r = subprocess.run([PYTHON, "setup.py", "build_ext", "--inplace"], cwd=build, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    sys.path.insert(0, str(build))
    try:
        import ascendc_ext
    finally:
        sys.path.remove(str(build))
    return ascendc_ext


def _records(fn):
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        out = fn()
        torch.npu.synchronize()
    return out, rec.records


@pytest.mark.parametrize("n", [1, 2048, 100003])
def test_add_custom_matches_cpu_and_is_one_kernel(ext, n):
    x, y = torch.randn(n), torch.randn(n)
    z, records = _records(lambda: torch.ops.ascendc_ext.add_custom(x.npu(), y.npu()))
    assert torch.equal(z.cpu(), x + y)
    kernels = [r for r in records if r.op_type == "add_custom"]
    assert len(kernels) == 1 and kernels[0].duration_us > 0
    assert kernels[0].block_dim == min(32, -(-n // 2048))  # one block per 8 KiB tile, at most 32


def test_add_custom_half_rounds_like_the_cpu(ext):
    x, y = (torch.randn(5000) * 100).half(), torch.randn(5000).half()
    assert torch.equal(ext.add_custom(x.npu(), y.npu()).cpu(), x + y)


def test_double_buffering_is_faster_in_simulated_time(ext):
    x, y = torch.randn(1 << 20).npu(), torch.randn(1 << 20).npu()
    _, double = _records(lambda: torch.ops.ascendc_ext.add_custom(x, y))
    _, single = _records(lambda: torch.ops.ascendc_ext.add_custom_single_buffer(x, y))
    t2 = next(r.duration_us for r in double if r.op_type == "add_custom")
    t1 = next(r.duration_us for r in single if r.op_type == "add_custom_single_buffer")
    assert t2 < t1, (t2, t1)


def _kernel_us(op, *args, **kwargs):
    _, records = _records(lambda: op(*args, **kwargs))
    return next(r.duration_us for r in records if r.op_type.startswith("add_custom"))


def test_tiling_shows_in_simulated_time(ext):
    x, y = torch.randn(1 << 20).npu(), torch.randn(1 << 20).npu()
    add = torch.ops.ascendc_ext.add_custom
    small = _kernel_us(add, x, y, tile_length=256, block_dim=32)
    good = _kernel_us(add, x, y, tile_length=2048, block_dim=32)
    assert small > 1.5 * good, (small, good)  # 1 KiB tiles pay a latency per copy
    one_core = _kernel_us(add, x, y, tile_length=2048, block_dim=1)
    assert one_core > 20 * good, (one_core, good)  # 32 cores divide the work (3 us of launch on each side)
    hbm_bound_us = 3 * x.numel() * 4 / 1.2e12 * 1e6  # Ascend910A's HBM, 1.2 TB/s
    assert good > hbm_bound_us


def _pipe_trace(tmp_path, monkeypatch, op, *args, **kwargs):
    tmp_path.mkdir()
    monkeypatch.setenv("ASCEND_SIM_KERNEL_TRACE_DIR", str(tmp_path))
    op(*args, **kwargs)
    torch.npu.synchronize()
    monkeypatch.delenv("ASCEND_SIM_KERNEL_TRACE_DIR")
    (path,) = list(tmp_path.iterdir())
    with open(path) as f:
        trace = json.load(f)
    pipes = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name" and e["pid"] == 0}
    spans = collections.defaultdict(list)
    for e in trace["traceEvents"]:
        if e["ph"] == "X" and e["pid"] == 0:
            spans[pipes[e["tid"]].split()[0]].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    return trace, spans


def test_pipe_timelines_show_double_buffering(ext, tmp_path, monkeypatch):
    x, y = torch.randn(16 * 2048).npu(), torch.randn(16 * 2048).npu()
    torch.npu.synchronize()
    trace, spans = _pipe_trace(tmp_path / "double", monkeypatch, torch.ops.ascendc_ext.add_custom, x, y,
                               tile_length=2048, block_dim=1)
    assert trace["otherData"] == {"kernel": "add_custom", "blockDim": 1, "droppedEvents": 0}
    assert [len(spans[p]) for p in ("MTE2", "V", "MTE3")] == [32, 16, 16]
    assert {name for _, _, name in spans["V"]} == {"Add"}
    assert {name for _, _, name in spans["MTE2"]} == {"DataCopy(GM -> local)"}

    def overlapped(spans):  # Vector time during which the GM link moves data
        return sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1, _ in spans["V"] for s2, e2, _ in spans["MTE2"])

    _, single = _pipe_trace(tmp_path / "single", monkeypatch, torch.ops.ascendc_ext.add_custom_single_buffer, x, y,
                            tile_length=2048, block_dim=1)
    assert overlapped(single) == 0  # one buffer: the add waits for the loads, the next loads for the add
    assert overlapped(spans) > 0.5 * sum(e - s for s, e, _ in spans["V"])


def test_a_bad_tiling_is_an_ai_core_exception(ext):
    x = torch.randn(4096).npu()
    torch.ops.ascendc_ext.add_custom(x, x, tile_length=1001)  # 4004 bytes: not whole 32-byte blocks
    with pytest.raises(RuntimeError, match=r"AI Core exception in kernel 'add_custom', block 0 of 5: DataCopy\(GM -> "
                                           r"local\) of 1001 elements of 4 bytes = 4004 bytes"):
        torch.npu.synchronize()
    torch.ops.ascendc_ext.add_custom(x, x, tile_length=16384)  # 6 x 64 KiB of queue buffers
    with pytest.raises(RuntimeError, match=r"UB overflow: TQue<VEC(IN|OUT), 2> buffer [01] asks for 65536 bytes at "
                                           r"VEC(IN|OUT), but \d+ of the \d+ bytes of UB"):
        torch.npu.synchronize()
    torch.testing.assert_close(torch.ops.ascendc_ext.add_custom(x, x).cpu(), (x + x).cpu())


def test_kernels_order_with_queued_ops(ext):
    x, y = torch.randn(4096), torch.randn(4096)
    z = torch.ops.ascendc_ext.add_custom(x.npu() * 2, y.npu()).mul(3)  # queued op, kernel, queued op
    torch.testing.assert_close(z.cpu(), (2 * x + y) * 3)


def test_add_custom_autograd(ext):
    x = torch.randn(300, requires_grad=True, device="npu")
    y = torch.randn(300, requires_grad=True, device="npu")
    ext.add_custom(x, y).mul(torch.arange(300.0).npu()).sum().backward()
    torch.testing.assert_close(x.grad.cpu(), torch.arange(300.0))
    torch.testing.assert_close(y.grad.cpu(), torch.arange(300.0))


@pytest.mark.parametrize("cols", [1000, 10, 1])
def test_softmax_custom_forward_and_backward_match_cpu(ext, cols):
    x = torch.randn(7, 45, cols, requires_grad=True)
    xn = x.detach().npu().requires_grad_()
    y = torch.ops.ascendc_ext.softmax_custom(xn)
    ref = torch.softmax(x, -1)
    torch.testing.assert_close(y.detach().cpu(), ref.detach(), rtol=1e-5, atol=1e-7)
    g = torch.randn_like(ref)
    y.backward(g.npu())
    ref.backward(g)
    torch.testing.assert_close(xn.grad.cpu(), x.grad, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("m,k,n", [(128, 256, 192), (70, 48, 16), (1, 16, 32)])
def test_matmul_leakyrelu_on_the_cube_matches_cpu(ext, m, k, n):
    a = torch.randn(m, k).half().requires_grad_()
    b = torch.randn(k, n).half().requires_grad_()
    an, bn = a.detach().npu().requires_grad_(), b.detach().npu().requires_grad_()
    c, records = _records(lambda: torch.ops.ascendc_ext.matmul_leakyrelu(an, bn, 0.1))
    ref = torch.nn.functional.leaky_relu(a.float() @ b.float(), 0.1)
    torch.testing.assert_close(c.detach().cpu(), ref.detach(), rtol=1e-5, atol=1e-4)
    kernel = next(r for r in records if r.op_type == "matmul_leakyrelu_custom")  # the kernel's name
    assert kernel.duration_us > 0 and kernel.flops >= 2 * m * n * k
    g = torch.randn(m, n)
    c.backward(g.npu())
    ref.backward(g)
    torch.testing.assert_close(an.grad.cpu().float(), a.grad.float(), rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(bn.grad.cpu().float(), b.grad.float(), rtol=1e-2, atol=1e-2)


def test_kernels_show_in_the_profiler_with_simulated_time(ext):
    x = torch.randn(64, 256).npu()
    torch.npu.synchronize()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        torch.ops.ascendc_ext.softmax_custom(x)
        torch.ops.ascendc_ext.add_custom(x, x)
        ext.add_custom(x, x)  # the module's function calls the kernel without the dispatcher's event
    kernels = [(r.op_type, owner.name) for r, owner in zip(prof.npu_records, prof.npu_record_owners)]
    assert kernels == [("softmax_custom", "ascendc_ext::softmax_custom"), ("add_custom", "ascendc_ext::add_custom"),
                       ("add_custom", "NPU launch")], kernels
    assert all(r.duration_us > 0 for r in prof.npu_records)


def test_bad_operands_raise_clear_errors(ext):
    with pytest.raises(RuntimeError, match=r"add_custom: x \[3\] and y \[4\] differ in shape"):
        torch.ops.ascendc_ext.add_custom(torch.ones(3).npu(), torch.ones(4).npu())
    with pytest.raises(RuntimeError, match=r"add_custom: y is on cpu; the kernel runs on the NPU"):
        torch.ops.ascendc_ext.add_custom(torch.ones(3).npu(), torch.ones(3))
    with pytest.raises(RuntimeError, match=r"softmax_custom takes a float tensor, not Half"):
        torch.ops.ascendc_ext.softmax_custom(torch.ones(3, 4).half().npu())
    with pytest.raises(RuntimeError, match=r"rows of 9000 elements do not fit the kernel's UB"):
        torch.ops.ascendc_ext.softmax_custom(torch.ones(2, 9000).npu())
    with pytest.raises(RuntimeError, match=r"K \(24\) and N \(16\) must be multiples of 16"):
        torch.ops.ascendc_ext.matmul_leakyrelu(torch.ones(4, 24).half().npu(), torch.ones(24, 16).half().npu())
    assert torch.ops.ascendc_ext.add_custom(torch.ones(0, 3).npu(), torch.ones(0, 3).npu()).shape == (0, 3)
    assert torch.ops.ascendc_ext.softmax_custom(torch.ones(0, 5).npu()).shape == (0, 5)
    torch.testing.assert_close(torch.ops.ascendc_ext.add_custom(torch.tensor(2.0).npu(), torch.tensor(3.0).npu())
                               .cpu(), torch.tensor(5.0))
    torch.npu.synchronize()


BAD_KERNEL = r"""
#include "kernel_operator.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "torch_npu/csrc/framework/OpCommand.h"
using namespace AscendC;

// Copies `count` floats of x through UB: a count that is not a multiple of 8 floats (32 bytes)
// breaks DataCopy's alignment rule; an `offset` far past the tensor reads outside device memory.
extern "C" __global__ __aicore__ void copy_through_ub(GM_ADDR x, GM_ADDR y, uint32_t count, uint32_t offset) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 4096);
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer((__gm__ float*)x);
  gy.SetGlobalBuffer((__gm__ float*)y);
  LocalTensor<float> t = q.AllocTensor<float>();
  DataCopy(t, gx[offset], count);
  q.EnQue(t);
  t = q.DeQue<float>();
  DataCopy(gy, t, count);
  q.FreeTensor(t);
}

// A handler that throws, and one that asks for the stream with need_empty inside the queue.
void bad_handler_npu(const at::Tensor& x, bool drain) {
  at_npu::native::OpCommand cmd;
  cmd.Name("bad_handler").SetCustomHandler([=]() -> int {
    if (drain) c10_npu::getCurrentNPUStream().stream();
    TORCH_CHECK(false, "the handler gave up");
    return 0;
  }).Run();
}

at::Tensor copy_through_ub_npu(const at::Tensor& x, int64_t count, int64_t offset) {
  at::Tensor y = at::zeros_like(x);
  void *px = x.data_ptr(), *py = y.data_ptr();
  aclrtStream stream = c10_npu::getCurrentNPUStream().stream(false);
  at_npu::native::OpCommand cmd;
  cmd.Name("copy_through_ub").SetCustomHandler([=]() -> int {
    return ACLRT_LAUNCH_KERNEL(copy_through_ub)(2, stream, px, py, uint32_t(count), uint32_t(offset));
  }).Run();
  return y;
}
"""


def test_a_broken_rule_is_an_ai_core_exception_and_the_device_goes_on(tmp_path):
    mod = cpp_extension.load_inline("ascendc_bad_kernel", cpp_sources=[BAD_KERNEL],
                                    functions=["copy_through_ub_npu", "bad_handler_npu"],
                                    build_directory=str(tmp_path), verbose=False)
    x = torch.arange(64.0).npu()
    torch.testing.assert_close(mod.copy_through_ub_npu(x, 64, 0).cpu(), torch.arange(64.0))
    mod.copy_through_ub_npu(x, 10, 0)
    with pytest.raises(RuntimeError, match=r"AI Core exception in kernel 'copy_through_ub', block 0 of 2: "
                                           r"DataCopy\(GM -> local\) of 10 elements of 4 bytes = 40 bytes"):
        torch.npu.synchronize()
    # Past the end of x, but inside the caching allocator's segment, is memory of the device as on the
    # chip; a gigabyte past it is not.
    mod.copy_through_ub_npu(x, 64, 1 << 28)
    with pytest.raises(RuntimeError, match=r"out-of-bounds global memory access: DataCopy\(GM -> local\) of "
                                           r"elements \[0, 64\)"):
        torch.npu.synchronize()
    torch.testing.assert_close(mod.copy_through_ub_npu(x, 64, 0).cpu(), torch.arange(64.0))  # the device goes on
    # A custom handler that throws fails its launch, not the process; stream() inside a handler would
    # wait for its own queue and is refused.
    with pytest.raises(RuntimeError, match=r"NPU op 'bad_handler' failed .*the handler gave up"):
        mod.bad_handler_npu(x, False)  # raised here without the task queue (TASK_QUEUE_ENABLE=0)
        torch.npu.synchronize()
    if os.environ.get("TASK_QUEUE_ENABLE", "1") != "0":
        with pytest.raises(RuntimeError, match=r"a queued task \(a custom handler\) waits for its own queue; inside "
                                               r"OpCommand::SetCustomHandler use getCurrentNPUStream\(\).stream\("
                                               r"false\)"):
            mod.bad_handler_npu(x, True)
            torch.npu.synchronize()
    torch.testing.assert_close(mod.copy_through_ub_npu(x, 64, 0).cpu(), torch.arange(64.0))
