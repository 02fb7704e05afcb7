// See Note [Outputs without TensorIterator] in SameShapeOutputs.h.
#include "csrc/aten/common/SameShapeOutputs.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/native/BinaryOps.h>

namespace torch_npu {
namespace {

// self's dtype when the meta function would give an output of self's sizes
// and dtype, else nullopt.
c10::optional<c10::ScalarType> sameShapeType(const at::Tensor& self, const at::Tensor& other) {
  if (self.has_names() || other.has_names()) return c10::nullopt;
  const c10::ScalarType dtype = self.scalar_type();
  if (other.unsafeGetTensorImpl()->is_wrapped_number()) {
    // A Python number ranks below every dimensioned tensor in type promotion: a
    // floating self keeps its dtype unless the number is complex.
    if (at::isFloatingType(dtype) && !other.is_complex() && self.device().type() == c10::DeviceType::PrivateUse1) {
      return dtype;
    }
    return c10::nullopt;
  }
  if (dtype != other.scalar_type() || self.device() != other.device() || !self.sizes().equals(other.sizes())) {
    return c10::nullopt;
  }
  return dtype;
}

// What TensorIterator's build checks before writing into self: no internal
// overlap in self, no partial overlap between self and other.
void checkInplaceOperands(const at::Tensor& self, const at::Tensor& other) {
  at::assert_no_internal_overlap(self);
  at::assert_no_partial_overlap(self, other);
}

}  // namespace

// Each follows its meta function's order: the op's own checks before the
// TensorIterator's build (sub_check), its overlap checks, then the checks after
// the build (alpha_check).

c10::optional<c10::ScalarType> sameShapeAdd(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                            bool in_place) {
  const auto dtype = sameShapeType(self, other);
  if (!dtype) return c10::nullopt;
  if (in_place) checkInplaceOperands(self, other);
  at::native::alpha_check(*dtype, alpha);
  return dtype;
}

c10::optional<c10::ScalarType> sameShapeSub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha,
                                            bool in_place) {
  const auto dtype = sameShapeType(self, other);
  if (!dtype) return c10::nullopt;
  at::native::sub_check(self, other);
  if (in_place) checkInplaceOperands(self, other);
  at::native::alpha_check(*dtype, alpha);
  return dtype;
}

c10::optional<c10::ScalarType> sameShapeMul(const at::Tensor& self, const at::Tensor& other, bool in_place) {
  const auto dtype = sameShapeType(self, other);
  if (dtype && in_place) checkInplaceOperands(self, other);
  return dtype;
}

c10::optional<c10::ScalarType> sameShapeTrueDiv(const at::Tensor& self, const at::Tensor& other, bool in_place) {
  const auto dtype = sameShapeType(self, other);
  if (!dtype || at::isIntegralType(*dtype, /*includeBool=*/true)) return c10::nullopt;  // promotes to float
  if (in_place) checkInplaceOperands(self, other);
  return dtype;
}

}  // namespace torch_npu
