// cat, index_select, index_add, gather and topk on ConcatD, GatherV2,
// IndexAdd, GatherElements and TopKV2 (OPS.md); scatter lives in
// IndexScatterOps.cpp. Index tensors may be
// int32 or int64; an out-of-range index is a device fault that names it.
#include <ATen/ATen.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkIndex(const char* op, const at::Tensor& index) {
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt, op,
              "(): Expected dtype int32/int64 for index, got ", index.scalar_type());
}

}  // namespace

at::Tensor& NPUNativeFunctions::cat_out(const at::ITensorListRef& tensors, int64_t dim, at::Tensor& out) {
  TORCH_CHECK(tensors.size() > 0, "torch.cat(): expected a non-empty list of Tensors");
  // PyTorch skips legacy empty 1-D tensors [0] when concatenating other shapes.
  std::vector<at::Tensor> inputs;
  int64_t position = 0;
  for (const at::Tensor& t : tensors) {
    TORCH_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", position, ") cannot be concatenated");
    if (!(t.dim() == 1 && t.size(0) == 0)) inputs.push_back(t);
    ++position;
  }
  if (inputs.empty()) {
    at::native::resize_output(out, {0});
    return out;
  }
  const at::Tensor& ref = inputs.front();
  dim = at::maybe_wrap_dim(dim, ref.dim());
  auto dtype = ref.scalar_type();
  for (const auto& t : inputs) dtype = at::promote_types(dtype, t.scalar_type());
  std::vector<int64_t> sizes = ref.sizes().vec();
  sizes[dim] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& t = inputs[i];
    TORCH_CHECK(t.dim() == ref.dim(), "Tensors must have same number of dimensions: got ", ref.dim(), " and ",
                t.dim());
    for (int64_t d = 0; d < ref.dim(); ++d) {
      TORCH_CHECK(d == dim || t.size(d) == ref.size(d), "Sizes of tensors must match except in dimension ", dim,
                  ". Expected size ", ref.size(d), " but got size ", t.size(d), " for tensor number ", i,
                  " in the list.");
    }
    sizes[dim] += t.size(dim);
  }
  return torch_npu::runInto("ConcatD", out, sizes, dtype, [&](torch_npu::OpCommand& cmd) {
    for (const auto& t : inputs) torch_npu::addInputAs(cmd, t, dtype);
    cmd.Attr("concat_dim", dim);
  });
}
at::Tensor NPUNativeFunctions::cat(const at::ITensorListRef& tensors, int64_t dim) {
  TORCH_CHECK(tensors.size() > 0, "torch.cat(): expected a non-empty list of Tensors");
  const at::Tensor& first = *tensors.begin();
  auto dtype = first.scalar_type();
  for (const at::Tensor& t : tensors) dtype = at::promote_types(dtype, t.scalar_type());
  at::Tensor out = torch_npu::emptyNpu({0}, dtype, first.device());
  return cat_out(tensors, dim, out);
}

at::Tensor& NPUNativeFunctions::index_select_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                                 at::Tensor& out) {
  checkIndex("index_select", index);
  TORCH_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  if (self.dim() == 0) {  // as the CPU: a 0-d result; every index must address the scalar
    TORCH_CHECK(index.numel() >= 1, "index_select(): Index to scalar can have only 1 value, got 0 value(s)");
    const at::Tensor all = at::index_select(self.reshape({1}), 0, index.reshape({-1}));  // checks each index
    at::native::resize_output(out, {});
    return out.copy_(all.slice(0, 0, 1).reshape({}));
  }
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes[dim] = index.numel();
  if (index.numel() > 0 && c10::multiply_integers(sizes) == 0) {
    // Nothing to gather (another dim is empty), but the indices must still be in range, as on
    // the CPU: the device checks them against the axis length on a stand-in of that length.
    at::index_select(at::zeros({self.size(dim)}, self.options().dtype(at::kFloat)), 0, index.reshape({-1}));
  }
  return torch_npu::runInto("GatherV2", out, sizes, self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self).Input(index.reshape({-1})).Attr("axis", dim);
  });
}
at::Tensor NPUNativeFunctions::index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return index_select_out(self, dim, index, out);
}

at::Tensor& NPUNativeFunctions::index_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                              const at::Tensor& source, const at::Scalar& alpha, at::Tensor& out) {
  checkIndex("index_add", index);
  TORCH_CHECK(index.dim() <= 1, "index_add_(): Index is supposed to be a vector");
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  return torch_npu::runInto("IndexAdd", out, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self).Input(index.reshape({-1}));
    torch_npu::addInputAs(cmd, source, self.scalar_type());
    cmd.Attr("axis", dim).Attr("alpha", alpha.to<float>());
  });
}
at::Tensor NPUNativeFunctions::index_add(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                         const at::Tensor& source, const at::Scalar& alpha) {
  at::Tensor out = torch_npu::emptyNpuLike(self);
  return index_add_out(self, dim, index, source, alpha, out);
}
at::Tensor& NPUNativeFunctions::index_add_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                           const at::Tensor& source, const at::Scalar& alpha) {
  return index_add_out(self, dim, index, source, alpha, self);
}

at::Tensor& NPUNativeFunctions::gather_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                           bool /*sparse_grad*/, at::Tensor& out) {
  if (index.numel() == 0) {  // as the CPU: nothing is read, the index dtype is not checked
    at::native::resize_output(out, index.sizes());
    return out;
  }
  checkIndex("gather", index);
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  // PyTorch treats 0-d self / index as 1-D of one element.
  const at::Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  const at::Tensor idx = index.dim() == 0 ? index.reshape({1}) : index;
  at::Tensor result = torch_npu::prepareOut("GatherElements", out, index.sizes(), self.scalar_type());
  torch_npu::OpCommand("GatherElements").Input(x).Input(idx).Output(result.view(idx.sizes())).Attr("dim", dim).Run();
  return torch_npu::finishOut(out, result);
}
at::Tensor NPUNativeFunctions::gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return gather_out(self, dim, index, sparse_grad, out);
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::topk_out(const at::Tensor& self, int64_t k, int64_t dim,
                                                                   bool largest, bool sorted, at::Tensor& values,
                                                                   at::Tensor& indices) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, "topk(): the indices output must be of dtype Long (int64), "
              "as on the CPU, but got ", indices.scalar_type());
  const at::Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  dim = at::maybe_wrap_dim(dim, x.dim());
  TORCH_CHECK(k >= 0 && k <= x.size(dim), "selected index k out of range");
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes[dim] = k;
  at::Tensor v = torch_npu::prepareOut("TopKV2", values, sizes, x.scalar_type());
  at::Tensor i = torch_npu::prepareOut("TopKV2", indices, sizes, at::kLong);
  torch_npu::OpCommand("TopKV2")
      .Input(x)
      .Output(v)
      .Output(i)
      .Attr("k", k)
      .Attr("dim", dim)
      .Attr("largest", largest)
      .Attr("sorted", sorted)
      .Run();
  torch_npu::finishOut(values, v);
  torch_npu::finishOut(indices, i);
  if (self.dim() == 0) {
    values.resize_({});
    indices.resize_({});
  }
  return {values, indices};
}
::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::topk(const at::Tensor& self, int64_t k, int64_t dim,
                                                             bool largest, bool sorted) {
  at::Tensor values = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  at::Tensor indices = torch_npu::emptyNpu({0}, at::kLong, self.device());
  topk_out(self, k, dim, largest, sorted, values, indices);
  return {values, indices};
}

}  // namespace native
}  // namespace at_npu
