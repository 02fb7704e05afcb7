// Storage formats from C++, as torch_npu spells them (at_npu::native in torch_npu/csrc/core/npu/NPUFormat.h).
//
//   int64_t f = at_npu::native::get_npu_format(t);                    // an ACL format id (2 = ND, 3 = NC1HWC0, ...)
//   at::Tensor z = at_npu::native::npu_format_cast(w, 4);              // FRACTAL_Z
//   at::Tensor y = at_npu::native::empty_with_format({8, 16, 7, 7}, x.options(), 3);
//
// Format ids and storage shapes: docs/formats.md and docs/simulator.md §2.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include "csrc/core/NPUFunctions.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"
#include "csrc/framework/NPUTensorFactory.h"

namespace at_npu {
namespace native {

inline void check_npu_tensor(const at::Tensor& t, const char* who) {
  TORCH_CHECK(t.defined() && t.device().type() == c10::DeviceType::PrivateUse1, who, ": expected an NPU tensor, got ",
              t.defined() ? c10::str("one on ", t.device()) : std::string("an undefined one"));
}

inline int64_t get_npu_format(const at::Tensor& t) {
  check_npu_tensor(t, "get_npu_format");
  return static_cast<int64_t>(::torch_npu::npuFormatOf(t));
}

// The sizes of t's storage in its format (for NC1HWC0: N, C1, H, W, C0).
inline std::vector<int64_t> get_npu_storage_sizes(const at::Tensor& t) {
  check_npu_tensor(t, "get_npu_storage_sizes");
  const ::torch_npu::NPUStorageDesc* desc = ::torch_npu::storageDesc(t);
  TORCH_CHECK(desc != nullptr, "get_npu_storage_sizes: the tensor has no NPU storage descriptor");
  return std::vector<int64_t>(desc->storage_sizes.begin(), desc->storage_sizes.end());
}

// A tensor with t's values whose storage is in `acl_format` (t itself if it already is): the npu::npu_format_cast
// op, so autograd and the profiler see it as they see torch_npu.npu_format_cast.
inline at::Tensor npu_format_cast(const at::Tensor& t, int64_t acl_format) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("npu::npu_format_cast", "")
                             .typed<at::Tensor(const at::Tensor&, int64_t)>();
  return op.call(t, acl_format);
}

// An uninitialised NPU tensor whose storage is laid out in `format` (keep_format is accepted for torch_npu's
// signature: the format asked for is always kept).
inline at::Tensor empty_with_format(c10::IntArrayRef sizes, const c10::TensorOptions& options, int64_t format,
                                    bool keep_format = false) {
  (void)keep_format;
  TORCH_CHECK(options.device().type() == c10::DeviceType::PrivateUse1, "empty_with_format: the options' device is ",
              options.device(), ", not an NPU");
  const c10::DeviceIndex index =
      options.device().has_index() ? options.device().index() : ::torch_npu::current_device();
  return ::torch_npu::makeNpuTensor(sizes, c10::nullopt, c10::typeMetaToScalarType(options.dtype()), index,
                                    ::torch_npu::checkFormatId(format));
}

}  // namespace native
}  // namespace at_npu
