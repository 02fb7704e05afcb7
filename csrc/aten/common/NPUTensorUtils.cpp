#include "csrc/aten/common/NPUTensorUtils.h"

#include <ATen/native/Resize.h>

#include "csrc/core/NPUFunctions.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUTensorFactory.h"

namespace torch_npu {

c10::DeviceIndex targetDeviceIndex(c10::optional<c10::Device> device) {
  if (device.has_value() && device->has_index()) {
    TORCH_CHECK(device->type() == c10::DeviceType::PrivateUse1, "expected an npu device, got ", *device);
    check_device_index(device->index());
    return device->index();
  }
  return current_device();
}

// Kernels create their outputs straight through the tensor factory, as Ascend's torch_npu does
// (OpPreparation), not through the dispatcher's aten::empty: a round trip through the dispatcher
// costs a launch of a small op several hundred nanoseconds. Another device type still goes there.
at::Tensor emptyNpu(at::IntArrayRef sizes, c10::ScalarType dtype, c10::optional<c10::Device> device) {
  if (device.has_value() && device->type() != c10::DeviceType::PrivateUse1) {
    return at::empty(sizes, at::TensorOptions().dtype(dtype).device(*device));
  }
  return makeNpuTensor(sizes, c10::nullopt, dtype, targetDeviceIndex(device));
}

at::Tensor emptyNpuLike(const at::Tensor& t, c10::optional<c10::ScalarType> dtype) {
  return emptyNpu(t.sizes(), dtype.value_or(t.scalar_type()), t.device());
}

at::Tensor emptyFollowingFormat(const at::Tensor& first, at::IntArrayRef sizes, c10::ScalarType dtype,
                                c10::Device device) {
  if (allowInternalFormat() && first.defined() && first.device() == device && hasPrivateFormat(first) &&
      first.sizes().equals(sizes) && coversWholeStorage(first)) {
    return makeNpuTensor(sizes, c10::nullopt, dtype, device.index(), npuFormatOf(first));
  }
  return emptyNpu(sizes, dtype, device);
}

bool copyKeepsPrivateFormat(const at::Tensor& self, c10::optional<at::MemoryFormat> memory_format) {
  const auto mf = memory_format.value_or(at::MemoryFormat::Preserve);
  return (mf == at::MemoryFormat::Preserve || mf == at::MemoryFormat::Contiguous) && allowInternalFormat() &&
         self.device().type() == c10::DeviceType::PrivateUse1 && hasPrivateFormat(self) && coversWholeStorage(self);
}

at::Tensor emptyPreferringFormat(at::IntArrayRef sizes, c10::ScalarType dtype, c10::Device device,
                                 aclFormat preferred) {
  if (allowInternalFormat()) return makeNpuTensor(sizes, c10::nullopt, dtype, device.index(), preferred);
  return emptyNpu(sizes, dtype, device);
}

bool isCpuScalar(const at::Tensor& t) { return t.device().is_cpu() && t.dim() == 0; }

void addInputAs(OpCommand& cmd, const at::Tensor& t, c10::ScalarType dtype) {
  if (isCpuScalar(t)) {
    cmd.InputScalar(t.item(), dtype);
  } else if (t.scalar_type() != dtype && t.device().type() == c10::DeviceType::PrivateUse1) {
    cmd.Input(t.to(dtype));
  } else {
    cmd.Input(t);
  }
}

c10::Device opDevice(std::initializer_list<const at::Tensor*> operands) {
  for (const at::Tensor* t : operands) {
    if (t->defined() && !isCpuScalar(*t)) return t->device();
  }
  return c10::Device(c10::DeviceType::PrivateUse1, current_device());
}

at::Tensor prepareOut(const char* op, at::Tensor& out, at::IntArrayRef sizes, c10::ScalarType dtype) {
  TORCH_CHECK(out.device().type() == c10::DeviceType::PrivateUse1, op, ": the output tensor is on ",
              out.device(), ", expected an npu tensor");
  TORCH_CHECK(c10::canCast(dtype, out.scalar_type()), "result type ", dtype,
              " can't be cast to the desired output type ", out.scalar_type());
  at::native::resize_output(out, sizes);
  if (out.scalar_type() == dtype && out.is_contiguous()) return out;
  return emptyNpu(sizes, dtype, out.device());
}

at::Tensor& finishOut(at::Tensor& out, const at::Tensor& result) {
  if (!result.is_same(out)) out.copy_(result);
  return out;
}

std::vector<int64_t> reductionDims(const at::Tensor& self, at::OptionalIntArrayRef dim) {
  std::vector<int64_t> dims;
  if (!dim.has_value() || dim->empty()) {
    for (int64_t i = 0; i < self.dim(); ++i) dims.push_back(i);
    return dims;
  }
  for (int64_t d : *dim) dims.push_back(c10::maybe_wrap_dim(d, self.dim()));
  std::sort(dims.begin(), dims.end());
  TORCH_CHECK(std::adjacent_find(dims.begin(), dims.end()) == dims.end(),
              "dim ", *std::adjacent_find(dims.begin(), dims.end()), " appears multiple times in the list of dims");
  return dims;
}

std::vector<int64_t> normStatShape(const char* op, const at::Tensor& x, const at::Tensor& gamma) {
  TORCH_CHECK(gamma.dim() >= 1 && gamma.dim() <= x.dim() && x.sizes().slice(x.dim() - gamma.dim()) == gamma.sizes(), op,
              ": gamma of shape ", gamma.sizes(), " must match the trailing dims of x of shape ", x.sizes());
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  for (int64_t d = x.dim() - gamma.dim(); d < x.dim(); ++d) shape[d] = 1;
  return shape;
}

std::vector<int64_t> reducedSizes(const at::Tensor& self, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < self.dim(); ++i) {
    const bool reduced = std::find(dims.begin(), dims.end(), i) != dims.end();
    if (!reduced) {
      sizes.push_back(self.size(i));
    } else if (keepdim) {
      sizes.push_back(1);
    }
  }
  return sizes;
}

}  // namespace torch_npu
