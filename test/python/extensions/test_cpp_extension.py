"""C++ extensions against torch_npu (torch_npu.utils.cpp_extension, at_npu::native::OpCommand).

The example extension (examples/cpp_extension/op_command_ops.cpp) is built once just in time with
load(), and once by its setup.py with NpuExtension in a copy outside the checkout, in a fresh
process; both include only torch_npu/include (Note [Public headers] in setup.py).
"""
import os
import re
import shutil
import subprocess

import pytest
import torch

import torch_npu
from conftest import PYTHON, REPO_ROOT, run_python
from torch_npu.utils import cpp_extension

EXAMPLE = os.path.join(REPO_ROOT, "examples", "cpp_extension")


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    build = tmp_path_factory.mktemp("jit")
    source = os.path.join(EXAMPLE, "op_command_ops.cpp")
    return cpp_extension.load("npu_ext_jit", [source], build_directory=str(build), verbose=False)


def test_include_path_is_the_installed_public_tree_only():
    paths = cpp_extension.include_paths()
    assert paths == [os.path.join(os.path.dirname(os.path.realpath(torch_npu.__file__)), "include")]
    public = os.path.join(paths[0], "torch_npu", "csrc", "framework", "OpCommand.h")
    assert os.path.isfile(public)
    installed = {os.path.relpath(os.path.join(d, f), paths[0]) for d, _, fs in os.walk(paths[0]) for f in fs}
    assert "csrc/framework/OpCommand.h" in installed
    assert "csrc/core/TaskQueue.h" not in installed  # private headers stay private
    assert not any(p.startswith("third_party") for p in installed)


def test_cpp_extension_is_reachable_from_a_plain_import():
    r = run_python("""
        import sys, torch_npu
        assert "torch.utils.cpp_extension" not in sys.modules  # loaded on first use only
        print(torch_npu.utils.cpp_extension.include_paths()[0])
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == cpp_extension.include_paths()[0]


def test_scaled_add_matches_cpu_and_runs_one_axpy(ext):
    x, y = torch.randn(4, 37), torch.randn(4, 37)
    xn, yn = x.npu(), y.npu()
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        out = torch.ops.npu_ext.scaled_add(xn, yn, 0.5)
        torch.npu.synchronize()
    torch.testing.assert_close(out.cpu(), x + 0.5 * y, rtol=1e-6, atol=1e-6)
    assert [r.op_type for r in rec.records] == ["Axpy"]
    assert rec.records[0].duration_us > 0
    torch.testing.assert_close(ext.scaled_add(x.npu(), y.npu(), alpha=2.0).cpu(), x + 2 * y, rtol=1e-6, atol=1e-6)


def test_bias_gelu_forward_and_backward_match_cpu(ext):
    x = torch.randn(3, 5, 64, requires_grad=True)
    b = torch.randn(64, requires_grad=True)
    xn = x.detach().npu().requires_grad_()
    bn = b.detach().npu().requires_grad_()
    out = torch.ops.npu_ext.bias_gelu(xn, bn)
    ref = torch.nn.functional.gelu(x + b)
    torch.testing.assert_close(out.cpu(), ref, rtol=1e-5, atol=1e-5)
    g = torch.randn_like(ref)
    out.backward(g.npu())
    ref.backward(g)
    torch.testing.assert_close(xn.grad.cpu(), x.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(bn.grad.cpu(), b.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(ext.bias_gelu(xn, bn).detach().cpu(), ref.detach(), rtol=1e-5, atol=1e-5)


def test_host_scalar_inputs(ext):
    x = torch.randn(1000) * 3
    torch.testing.assert_close(torch.ops.npu_ext.clip(x.npu(), -1.0, 2.0).cpu(), x.clamp(-1, 2))
    h = x.half()  # the bounds are fp16 host inputs then
    torch.testing.assert_close(torch.ops.npu_ext.clip(h.npu(), -0.5, 0.25).cpu(), h.float().clamp(-0.5, 0.25).half())
    with pytest.raises(RuntimeError, match=r"clip: lo 3 is above hi 2"):
        torch.ops.npu_ext.clip(x.npu(), 3.0, 2.0)
    xg = torch.tensor([-3.0, -1.0, 0.5, 2.0, 4.0], requires_grad=True)
    xn = xg.detach().npu().requires_grad_()
    torch.ops.npu_ext.clip(xn, -1.0, 2.0).sum().backward()
    xg.clamp(-1, 2).sum().backward()
    torch.testing.assert_close(xn.grad.cpu(), xg.grad)  # 0 outside [lo, hi], 1 inside and at the bounds


def test_extension_ops_show_in_the_profiler_with_their_kernels(ext):
    x = torch.randn(8, 16).npu()
    b = torch.randn(16).npu()
    torch.npu.synchronize()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        torch.ops.npu_ext.bias_gelu(x, b)
    kernels = [(r.op_type, owner.name) for r, owner in zip(prof.npu_records, prof.npu_record_owners)]
    assert kernels == [("Add", "npu_ext::bias_gelu"), ("Gelu", "npu_ext::bias_gelu")], kernels
    assert all(r.duration_us > 0 for r in prof.npu_records)
    table = prof.key_averages().table(sort_by="npu_time_total")
    assert "npu_ext::bias_gelu" in table


def test_bad_operands_raise_clear_errors(ext):
    with pytest.raises(RuntimeError, match=r"NPU op Axpy: input 1 is on cpu"):
        torch.ops.npu_ext.scaled_add(torch.ones(3).npu(), torch.ones(3), 1.0)
    with pytest.raises(RuntimeError, match=r"scaled_add: x \[3\] and y \[4\] differ in shape"):
        torch.ops.npu_ext.scaled_add(torch.ones(3).npu(), torch.ones(4).npu(), 1.0)
    with pytest.raises(RuntimeError, match=r"bias_gelu: bias \[3\] must be 1-d"):
        torch.ops.npu_ext.bias_gelu(torch.ones(2, 4).npu(), torch.ones(3).npu())
    empty = torch.ops.npu_ext.scaled_add(torch.ones(0, 3).npu(), torch.ones(0, 3).npu(), 1.0)
    assert empty.shape == (0, 3)
    torch.testing.assert_close(torch.ops.npu_ext.scaled_add(torch.tensor(2.0).npu(), torch.tensor(3.0).npu(), 2.0)
                               .cpu(), torch.tensor(8.0))
    torch.npu.synchronize()  # the device is usable after each


def test_setup_py_extension_builds_outside_the_checkout(tmp_path):
    for name in ("op_command_ops.cpp", "setup.py"):
        shutil.copy(os.path.join(EXAMPLE, name), tmp_path / name)
    build = subprocess.run([PYTHON, "setup.py", "build_ext", "--inplace"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    # Only the installed tree is on the include path: no other folder of the checkout.
    includes = re.findall(r"-I\s*(\S+)", build.stdout)
    assert includes and all(os.path.realpath(p).startswith(cpp_extension.include_paths()[0]) or
                            not os.path.realpath(p).startswith(os.path.realpath(REPO_ROOT)) for p in includes), includes
    assert os.path.realpath(includes[0]) == cpp_extension.include_paths()[0]  # first
    r = run_python("""
        import torch, torch_npu, npu_ext_ops
        x, y = torch.randn(6), torch.randn(6)
        out = npu_ext_ops.scaled_add(x.npu(), y.npu(), 3.0)
        assert torch.allclose(out.cpu(), x + 3 * y, atol=1e-6), out
        print("ok", torch.ops.npu_ext.bias_gelu(torch.zeros(2, 3).npu(), torch.zeros(3).npu()).cpu().sum().item())
    """, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok 0.0"


INLINE_SOURCE = r"""
#include "torch_npu/csrc/framework/OpCommand.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"

at::Tensor run_named(const at::Tensor& x, const std::string& op) {
  at::Tensor out = at::empty_like(x);
  at_npu::native::OpCommand cmd;
  cmd.Name(op).Input(x).Output(out).Run();
  return out;
}

at::Tensor run_unnamed(const at::Tensor& x) {
  at::Tensor out = at::empty_like(x);
  at_npu::native::OpCommand cmd;
  cmd.Input(x).Output(out).Run();
  return out;
}

at::Tensor into_strided(const at::Tensor& x) {
  at::Tensor out = at::empty({x.size(1), x.size(0)}, x.options()).t();
  at_npu::native::OpCommand cmd;
  cmd.Name("Relu").Input(x).Output(out).Run();
  return out;
}

at::Tensor leaky(const at::Tensor& x, double slope) {
  at::Tensor out = at::empty_like(x);
  at_npu::native::OpCommand cmd;
  cmd.Name("LeakyRelu").Input(x).Output(out).Attr("negative_slope", slope).Run();  // a double attribute
  return out;
}

// Every integer type is an int64 attribute without ambiguity (compiled, not run).
[[maybe_unused]] void integer_attributes(at_npu::native::OpCommand& cmd, size_t n, uint32_t u, long long l) {
  cmd.Attr("a", n).Attr("b", u).Attr("c", l).Attr("d", 1).Attr("e", int64_t{2}).Attr("f", true).Attr("g", 0.5f);
}

int64_t current_stream_id() { return c10_npu::getCurrentNPUStream().id(); }
bool stream_has_handle() { return c10_npu::getCurrentNPUStream().stream() != nullptr; }
"""

HELPERS_SOURCE = r"""
#include "torch_npu/csrc/core/npu/NPUCachingAllocator.h"
#include "torch_npu/csrc/core/npu/NPUFormat.h"
#include "torch_npu/csrc/core/npu/NPUGuard.h"

std::vector<int64_t> formats(const at::Tensor& x) {
  at::Tensor fractal = at_npu::native::npu_format_cast(x, 4);  // FRACTAL_Z
  at::Tensor nc1hwc0 = at_npu::native::empty_with_format(x.sizes(), x.options(), 3);
  std::vector<int64_t> out = {at_npu::native::get_npu_format(x), at_npu::native::get_npu_format(fractal),
                              at_npu::native::get_npu_format(nc1hwc0)};
  for (int64_t s : at_npu::native::get_npu_storage_sizes(nc1hwc0)) out.push_back(s);
  return out;
}

at::Tensor allocate_on(int64_t device) {
  c10_npu::NPUGuard guard(static_cast<c10::DeviceIndex>(device));
  TORCH_CHECK(guard.current_device().index() == device, "the guard did not set the device");
  c10_npu::OptionalNPUGuard no_device{c10::optional<c10::Device>()};  // sets nothing
  TORCH_CHECK(!no_device.original_device().has_value(), "an empty optional guard set a device");
  return at::empty({4}, at::TensorOptions().device(c10::DeviceType::PrivateUse1));
}

at::Tensor allocate_on_stream(const at::Tensor& like, int64_t stream_id) {
  const c10::Stream stream(c10::Stream::UNSAFE, like.device(), stream_id);
  c10_npu::NPUStreamGuard guard(stream);
  TORCH_CHECK(c10_npu::getCurrentNPUStream().id() == stream_id, "the stream guard did not set the stream");
  return at::ones_like(like);
}

int64_t reserved_after_empty_cache(int64_t device) {
  c10_npu::NPUCachingAllocator::emptyCache();
  return c10_npu::NPUCachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device)).reserved_bytes[0].current;
}

std::string not_an_npu_tensor(const at::Tensor& x) {
  try {
    at_npu::native::get_npu_format(x);
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "";
}

std::string optional_guard_on_cpu() {
  try {
    c10_npu::OptionalNPUGuard guard{c10::optional<c10::Device>(c10::Device(c10::DeviceType::CPU))};
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "";
}
"""


def test_load_inline_and_command_errors(tmp_path):
    mod = cpp_extension.load_inline(
        "npu_inline_ext", [INLINE_SOURCE], build_directory=str(tmp_path),
        functions=["run_named", "run_unnamed", "into_strided", "leaky", "current_stream_id", "stream_has_handle"])
    x = torch.randn(5, 3)
    torch.testing.assert_close(mod.run_named(x.npu(), "Relu").cpu(), x.relu())
    with pytest.raises(RuntimeError, match=r"OpCommand::Run: no op type; call Name"):
        mod.run_unnamed(x.npu())
    with pytest.raises(RuntimeError, match=r"NPU op Relu: output 0 is not contiguous"):
        mod.into_strided(x.npu())
    with pytest.raises(RuntimeError, match=r'OpCommand::Name\("NoSuchOpType"\): the simulated NPU has no op'):
        mod.run_named(x.npu(), "NoSuchOpType")
    # An operand the kernel rejects fails in the device's queue, like any launch: the next synchronize
    # raises, naming the op, and the device works afterwards.
    mod.run_named(torch.ones(3, dtype=torch.bool).npu(), "Sqrt")
    with pytest.raises(RuntimeError, match=r"Sqrt"):
        torch.npu.synchronize()
    torch.testing.assert_close(mod.run_named(x.npu(), "Relu").cpu(), x.relu())
    torch.testing.assert_close(mod.leaky(x.npu(), 0.25).cpu(), torch.nn.functional.leaky_relu(x, 0.25))
    stream = torch.npu.Stream()
    with torch.npu.stream(stream):
        assert mod.current_stream_id() == stream.stream_id
    assert mod.stream_has_handle()


def test_format_guard_and_allocator_helpers(tmp_path):
    mod = cpp_extension.load_inline(
        "npu_helpers_ext", [HELPERS_SOURCE], build_directory=str(tmp_path),
        functions=["formats", "allocate_on", "allocate_on_stream", "reserved_after_empty_cache",
                   "not_an_npu_tensor", "optional_guard_on_cpu"])
    x = torch.randn(2, 20, 3, 3).npu()
    assert mod.formats(x) == [torch_npu.get_npu_format(x), 4, 3, 2, 2, 3, 3, 16]  # N, C1, H, W, C0
    before = torch.npu.current_device()
    t = mod.allocate_on(1)
    assert t.device == torch.device("npu:1") and torch.npu.current_device() == before
    stream = torch.npu.Stream()
    assert torch.equal(mod.allocate_on_stream(x, stream.stream_id).cpu(), torch.ones(2, 20, 3, 3))
    torch.npu.synchronize()
    big = torch.empty(3 << 20, dtype=torch.uint8, device="npu:1")
    with_big = mod.reserved_after_empty_cache(1)
    assert with_big == torch.npu.memory_reserved(1) >= 3 << 20
    del big, t
    assert mod.reserved_after_empty_cache(1) <= with_big - (3 << 20)
    assert "get_npu_format: expected an NPU tensor, got one on cpu" in mod.not_an_npu_tensor(torch.ones(1))
    assert "OptionalNPUGuard: expected an NPU device, got cpu" in mod.optional_guard_on_cpu()
