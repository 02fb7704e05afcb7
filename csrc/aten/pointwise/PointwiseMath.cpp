#include "csrc/aten/pointwise/PointwiseMath.h"

#include <ATen/ExpandUtils.h>
#include <ATen/native/TypeProperties.h>

namespace torch_npu {
namespace {

std::vector<int64_t> broadcastSizes(std::initializer_list<at::Tensor> inputs) {
  std::vector<int64_t> sizes;
  for (const at::Tensor& t : inputs) sizes = at::infer_size(sizes, t.sizes());
  return sizes;
}

}  // namespace

c10::ScalarType commonDtype(std::initializer_list<at::Tensor> inputs, bool to_float) {
  at::native::ResultTypeState state;
  for (const at::Tensor& t : inputs) state = at::native::update_result_type_state(t, state);
  const auto common = at::native::result_type(state);
  if (to_float && at::isIntegralType(common, /*includeBool=*/true))
    return c10::typeMetaToScalarType(at::get_default_dtype());
  return common;
}

at::Tensor& pointwiseInto(const char* acl_op, std::initializer_list<at::Tensor> inputs, c10::ScalarType compute,
                          c10::ScalarType result, at::Tensor& out, const AttrSetter& attrs) {
  return runInto(acl_op, out, broadcastSizes(inputs), result, [&](OpCommand& cmd) {
    for (const at::Tensor& t : inputs) addInputAs(cmd, t, compute);
    cmd.FormatAgnostic();
    if (attrs) attrs(cmd);
  });
}

at::Tensor pointwiseResult(std::initializer_list<at::Tensor> inputs, c10::ScalarType dtype) {
  std::vector<const at::Tensor*> operands;
  for (const at::Tensor& t : inputs) operands.push_back(&t);
  const at::Tensor* first = operands.front();
  for (const at::Tensor* t : operands) {
    if (!isCpuScalar(*t)) {
      first = t;
      break;
    }
  }
  return emptyFollowingFormat(*first, broadcastSizes(inputs), dtype, first->device());
}

void checkFloatingInput(const char* op, const at::Tensor& t) {
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op, " expects a floating point tensor, got ", t.scalar_type());
}

}  // namespace torch_npu
