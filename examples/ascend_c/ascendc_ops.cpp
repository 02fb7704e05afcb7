// PyTorch ops on the example Ascend C kernels: host tiling, the launch through torch_npu's task
// queue (OpCommand::SetCustomHandler with ACLRT_LAUNCH_KERNEL), and autograd.
//
//   torch.ops.ascendc_ext.add_custom(x, y, tile_length=0, block_dim=0)    x + y (float or half), double-buffered
//   torch.ops.ascendc_ext.add_custom_single_buffer(x, y, ...)              the same with one buffer per queue (float)
//   torch.ops.ascendc_ext.softmax_custom(x)                 softmax over the last dimension (float)
//   torch.ops.ascendc_ext.matmul_leakyrelu(a, b, alpha)     leaky_relu(a @ b) in float, a and b half
#include <torch/extension.h>

#include <algorithm>

#include "kernels.h"
#include "torch_npu/csrc/core/npu/NPUFormat.h"
#include "torch_npu/csrc/core/npu/NPUGuard.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "torch_npu/csrc/framework/OpCommand.h"

namespace {

constexpr uint32_t kMaxBlocks = 32;        // launch at most this many blocks
constexpr uint32_t kAddTileBytes = 8192;   // add_custom's tile per queue buffer
constexpr int64_t kMaxSoftmaxCols = 8192;  // five row buffers of floats fit every preset's UB

// A contiguous NPU tensor in its base format, whose data pointer the kernel may read as row-major.
at::Tensor plain(const at::Tensor& t, const char* op, const char* name) {
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, op, ": ", name, " is on ", t.device(),
              "; the kernel runs on the NPU");
  at::Tensor c = t.contiguous();
  if (at_npu::native::get_npu_format(c) != ACL_FORMAT_ND && at_npu::native::get_npu_format(c) != ACL_FORMAT_NCHW)
    c = at_npu::native::npu_format_cast(c, ACL_FORMAT_ND);
  return c;
}

// Queues `launch` (which calls ACLRT_LAUNCH_KERNEL on `stream`) behind every op already queued.
template <typename Launch>
void run(const char* kernel, Launch launch) {
  at_npu::native::OpCommand cmd;
  cmd.Name(kernel).SetCustomHandler(launch).Run();
}

// tile_length (elements) and block_dim: 0 picks 8 KiB tiles and a block per tile, at most 32.
at::Tensor add_npu(const at::Tensor& x_in, const at::Tensor& y_in, int64_t tile_length, int64_t block_dim,
                   bool single_buffer) {
  const char* op = single_buffer ? "add_custom_single_buffer" : "add_custom";
  TORCH_CHECK(x_in.sizes() == y_in.sizes(), op, ": x ", x_in.sizes(), " and y ", y_in.sizes(), " differ in shape");
  TORCH_CHECK(x_in.scalar_type() == y_in.scalar_type(), op, ": x is ", x_in.scalar_type(), ", y is ",
              y_in.scalar_type());
  const bool is_half = x_in.scalar_type() == at::kHalf;
  TORCH_CHECK(x_in.scalar_type() == at::kFloat || (is_half && !single_buffer), op, " takes float",
              single_buffer ? "" : " or half", " tensors, not ", x_in.scalar_type());
  const at::Tensor x = plain(x_in, op, "x"), y = plain(y_in, op, "y");
  TORCH_CHECK(x.device() == y.device(), op, ": x is on ", x.device(), ", y on ", y.device());
  const c10_npu::NPUGuard guard(x.device());  // the launch goes to x's device and its current stream
  at::Tensor z = at::empty_like(x);
  if (x.numel() == 0) return z;
  TORCH_CHECK(x.numel() <= UINT32_MAX, op, ": at most 2^32 - 1 elements");
  TORCH_CHECK(tile_length >= 0 && tile_length <= UINT32_MAX && block_dim >= 0 && block_dim <= 65535, op,
              ": tile_length ", tile_length, " or block_dim ", block_dim, " is out of range");
  const uint32_t tile = tile_length ? static_cast<uint32_t>(tile_length) : kAddTileBytes / x.element_size();
  AddCustomTiling tiling{static_cast<uint32_t>(x.numel()), tile};
  const uint32_t tiles = (tiling.totalLength + tiling.tileLength - 1) / tiling.tileLength;
  const uint32_t blockDim = block_dim ? static_cast<uint32_t>(block_dim) : std::min(tiles, kMaxBlocks);
  void *px = x.data_ptr(), *py = y.data_ptr(), *pz = z.data_ptr();
  aclrtStream stream = c10_npu::getCurrentNPUStream().stream(false);
  run(op, [=]() -> int {
    if (single_buffer) return ACLRT_LAUNCH_KERNEL(add_custom_single_buffer)(blockDim, stream, px, py, pz, tiling);
    if (is_half) return ACLRT_LAUNCH_KERNEL(add_custom_half)(blockDim, stream, px, py, pz, tiling);
    return ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, px, py, pz, tiling);
  });
  return z;
}

at::Tensor add_custom_npu(const at::Tensor& x, const at::Tensor& y, int64_t tile_length, int64_t block_dim) {
  return add_npu(x, y, tile_length, block_dim, false);
}
at::Tensor add_single_npu(const at::Tensor& x, const at::Tensor& y, int64_t tile_length, int64_t block_dim) {
  return add_npu(x, y, tile_length, block_dim, true);
}

at::Tensor softmax_npu(const at::Tensor& x_in) {
  TORCH_CHECK(x_in.dim() >= 1, "softmax_custom: x must have at least one dimension");
  TORCH_CHECK(x_in.scalar_type() == at::kFloat, "softmax_custom takes a float tensor, not ", x_in.scalar_type());
  const at::Tensor x = plain(x_in, "softmax_custom", "x");
  const c10_npu::NPUGuard guard(x.device());
  const int64_t cols = x.size(-1);
  TORCH_CHECK(cols <= kMaxSoftmaxCols, "softmax_custom: rows of ", cols, " elements do not fit the kernel's UB ",
              "buffers (at most ", kMaxSoftmaxCols, ")");
  at::Tensor y = at::empty_like(x);
  if (x.numel() == 0) return y;
  const SoftmaxTiling tiling{static_cast<uint32_t>(x.numel() / cols), static_cast<uint32_t>(cols)};
  const uint32_t blockDim = std::min(tiling.rows, kMaxBlocks);
  void *px = x.data_ptr(), *py = y.data_ptr();
  aclrtStream stream = c10_npu::getCurrentNPUStream().stream(false);
  run("softmax_custom", [=]() -> int { return ACLRT_LAUNCH_KERNEL(softmax_custom)(blockDim, stream, px, py, tiling); });
  return y;
}

at::Tensor matmul_leakyrelu_npu(const at::Tensor& a_in, const at::Tensor& b_in, double alpha) {
  constexpr const char* op = "matmul_leakyrelu";
  TORCH_CHECK(a_in.dim() == 2 && b_in.dim() == 2 && a_in.size(1) == b_in.size(0), op, ": a ", a_in.sizes(), " and b ",
              b_in.sizes(), " are not [M, K] and [K, N]");
  TORCH_CHECK(a_in.scalar_type() == at::kHalf && b_in.scalar_type() == at::kHalf, op, " takes half a and b, not ",
              a_in.scalar_type(), " and ", b_in.scalar_type());
  TORCH_CHECK(a_in.size(1) % 16 == 0 && b_in.size(1) % 16 == 0, op, ": K (", a_in.size(1), ") and N (", b_in.size(1),
              ") must be multiples of 16 (the kernel copies whole 32-byte blocks of rows)");
  // DataCopyParams strides are 16-bit counts of 32-byte blocks.
  TORCH_CHECK(a_in.size(1) <= 65535 * 16 && b_in.size(1) <= 65535 * 8, op, ": K (", a_in.size(1), ") or N (",
              b_in.size(1), ") is too large for the kernel's strided copies");
  const at::Tensor a = plain(a_in, op, "a"), b = plain(b_in, op, "b");
  TORCH_CHECK(a.device() == b.device(), op, ": a is on ", a.device(), ", b on ", b.device());
  const c10_npu::NPUGuard guard(a.device());
  at::Tensor c = at::empty({a.size(0), b.size(1)}, a.options().dtype(at::kFloat));
  if (c.numel() == 0) return c;
  if (a.size(1) == 0) return c.zero_();
  const MatmulLeakyReluTiling tiling{
      static_cast<uint32_t>(a.size(0)), static_cast<uint32_t>(b.size(1)), static_cast<uint32_t>(a.size(1)), 64, 64, 128,
      static_cast<float>(alpha)};
  const uint32_t tiles = ((tiling.M + 63) / 64) * ((tiling.N + 63) / 64);
  const uint32_t blockDim = std::min(tiles, kMaxBlocks);
  void *pa = a.data_ptr(), *pb = b.data_ptr(), *pc = c.data_ptr();
  aclrtStream stream = c10_npu::getCurrentNPUStream().stream(false);
  run(op, [=]() -> int { return ACLRT_LAUNCH_KERNEL(matmul_leakyrelu_custom)(blockDim, stream, pa, pb, pc, tiling); });
  return c;
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class AddCustom : public torch::autograd::Function<AddCustom> {
 public:
  static at::Tensor forward(AutogradContext*, const at::Tensor& x, const at::Tensor& y, int64_t tile_length,
                            int64_t block_dim) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return add_custom_npu(x, y, tile_length, block_dim);
  }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0], grads[0], at::Tensor(), at::Tensor()};
  }
};

// d softmax: y * (g - sum(g * y)) along the last dimension.
class SoftmaxCustom : public torch::autograd::Function<SoftmaxCustom> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x) {
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor y = softmax_npu(x);
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor y = ctx->get_saved_variables()[0];
    return {y * (grads[0] - (grads[0] * y).sum(-1, true))};
  }
};

// The product's gradient through LeakyRelu (the sign of the output is the product's for alpha > 0).
class MatmulLeakyRelu : public torch::autograd::Function<MatmulLeakyRelu> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b, double alpha) {
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor c = matmul_leakyrelu_npu(a, b, alpha);
    ctx->save_for_backward({a, b, c});
    ctx->saved_data["alpha"] = alpha;
    return c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &a = saved[0], &b = saved[1], &c = saved[2];
    const double alpha = ctx->saved_data["alpha"].toDouble();
    const at::Tensor g = grads[0] * at::where(c >= 0, at::ones_like(c), at::full_like(c, alpha));
    return {g.mm(b.to(at::kFloat).t()).to(a.scalar_type()), a.to(at::kFloat).t().mm(g).to(b.scalar_type()),
            at::Tensor()};
  }
};

at::Tensor add_custom_autograd(const at::Tensor& x, const at::Tensor& y, int64_t tile_length, int64_t block_dim) {
  return AddCustom::apply(x, y, tile_length, block_dim);
}
at::Tensor softmax_autograd(const at::Tensor& x) { return SoftmaxCustom::apply(x); }
at::Tensor matmul_leakyrelu_autograd(const at::Tensor& a, const at::Tensor& b, double alpha) {
  return MatmulLeakyRelu::apply(a, b, alpha);
}

}  // namespace

TORCH_LIBRARY(ascendc_ext, m) {
  m.def("add_custom(Tensor x, Tensor y, int tile_length=0, int block_dim=0) -> Tensor");
  m.def("add_custom_single_buffer(Tensor x, Tensor y, int tile_length=0, int block_dim=0) -> Tensor");
  m.def("softmax_custom(Tensor x) -> Tensor");
  m.def("matmul_leakyrelu(Tensor a, Tensor b, float alpha=0.001) -> Tensor");
}

TORCH_LIBRARY_IMPL(ascendc_ext, PrivateUse1, m) {
  m.impl("add_custom", &add_custom_npu);
  m.impl("add_custom_single_buffer", &add_single_npu);
  m.impl("softmax_custom", &softmax_npu);
  m.impl("matmul_leakyrelu", &matmul_leakyrelu_npu);
}

TORCH_LIBRARY_IMPL(ascendc_ext, AutogradPrivateUse1, m) {
  m.impl("add_custom", &add_custom_autograd);
  m.impl("softmax_custom", &softmax_autograd);
  m.impl("matmul_leakyrelu", &matmul_leakyrelu_autograd);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("add_custom", &add_custom_autograd, "x + y by the add_custom Ascend C kernel", py::arg("x"), py::arg("y"),
        py::arg("tile_length") = 0, py::arg("block_dim") = 0);
  m.def("add_custom_single_buffer", &add_single_npu, "x + y by add_custom with one buffer per queue", py::arg("x"),
        py::arg("y"), py::arg("tile_length") = 0, py::arg("block_dim") = 0);
  m.def("softmax_custom", &softmax_autograd, "softmax over the last dimension by an Ascend C kernel");
  m.def("matmul_leakyrelu", &matmul_leakyrelu_autograd, "leaky_relu(a @ b) by an Ascend C Cube kernel", py::arg("a"),
        py::arg("b"), py::arg("alpha") = 0.001);
}
