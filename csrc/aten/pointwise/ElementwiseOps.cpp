#include "csrc/aten/pointwise/ElementwiseOps.h"

#include <ATen/ExpandUtils.h>

#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"

namespace torch_npu {

at::Tensor binaryResult(const at::Tensor& self, const at::Tensor& other, c10::ScalarType dtype) {
  const at::Tensor& first = isCpuScalar(self) ? other : self;
  return emptyFollowingFormat(first, at::infer_size(self.sizes(), other.sizes()), dtype, opDevice({&self, &other}));
}

at::Tensor& binaryOut(const char* acl_op, const at::Tensor& self, const at::Tensor& other, c10::ScalarType compute,
                      c10::ScalarType result, at::Tensor& out) {
  const auto sizes = at::infer_size(self.sizes(), other.sizes());
  return runInto(acl_op, out, sizes, result, [&](OpCommand& cmd) {
    addInputAs(cmd, self, compute);
    addInputAs(cmd, other, compute);
    cmd.FormatAgnostic();
  });
}

at::Tensor binaryNew(const char* acl_op, const at::Tensor& self, const at::Tensor& other, c10::ScalarType compute,
                     c10::ScalarType result) {
  at::Tensor out = binaryResult(self, other, result);
  return binaryOut(acl_op, self, other, compute, result, out);
}

void checkInplaceShape(const at::Tensor& self, const at::Tensor& other) {
  const auto sizes = at::infer_size(self.sizes(), other.sizes());
  TORCH_CHECK(self.sizes().equals(sizes), "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", at::IntArrayRef(sizes));
}

at::Tensor& gradientOut(const char* acl_op, const at::Tensor& first, const at::Tensor& second,
                        const at::Tensor& grad_output, at::Tensor& out,
                        const std::function<void(OpCommand&)>& attrs) {
  const auto dtype = grad_output.scalar_type();
  return runInto(acl_op, out, grad_output.sizes(), dtype, [&](OpCommand& cmd) {
    addInputAs(cmd, first, dtype);
    addInputAs(cmd, second, dtype);
    cmd.FormatAgnostic();
    if (attrs) attrs(cmd);
  });
}

at::Tensor gradInFormatOf(const at::Tensor& grad_output, const at::Tensor& saved) {
  if (!allowInternalFormat() || hasPrivateFormat(grad_output) || !hasPrivateFormat(saved) ||
      !coversWholeStorage(saved)) {
    return grad_output;
  }
  if (grad_output.device() != saved.device() || grad_output.scalar_type() != saved.scalar_type() ||
      !grad_output.sizes().equals(saved.sizes())) {
    return grad_output;
  }
  return formatCast(grad_output, npuFormatOf(saved));
}

at::Tensor& unaryOut(const char* acl_op, const at::Tensor& self, c10::ScalarType compute, c10::ScalarType result,
                     at::Tensor& out) {
  return runInto(acl_op, out, self.sizes(), result, [&](OpCommand& cmd) {
    addInputAs(cmd, self, compute);
    cmd.FormatAgnostic();
  });
}

at::Tensor unaryNew(const char* acl_op, const at::Tensor& self, c10::ScalarType compute, c10::ScalarType result) {
  at::Tensor out = emptyFollowingFormat(self, self.sizes(), result, self.device());
  return unaryOut(acl_op, self, compute, result, out);
}

c10::ScalarType floatOpType(const at::Tensor& self) {
  return at::isIntegralType(self.scalar_type(), /*includeBool=*/true)
             ? c10::typeMetaToScalarType(at::get_default_dtype())
             : self.scalar_type();
}

}  // namespace torch_npu
