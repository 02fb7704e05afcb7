// Fill and Range (OPS.md "Creation").
#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/elementwise_ops.h"

namespace ascend_sim {
namespace {

struct IdentityOp {
  float operator()(float a, const float*) const { return a; }
  int64_t operator()(int64_t a, const float*) const { return a; }
};

void checkScalar(const OpCall& call, const TensorArg& t, const char* name) {
  if (t.numel() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::string("input ") + name + " shape " + shapeToString(t.shape) +
             " must hold exactly one element");
}

void validateFill(const OpCall& call) {
  checkArityAnyFormat(call, 1, 1, 1, /*inputs_are_scalars=*/true);
  checkDtype(call, call.inputs[0], "input value", kStorageTypes);
  checkDtype(call, call.outputs[0], "output y", kStorageTypes);
  checkScalar(call, call.inputs[0], "value");
}

// Fill is Cast of the 0-d value broadcast to y (same conversion rules); y may
// be in any format (Note [Elementwise on private formats]).
void computeFill(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  if (y.dtype == ACL_DOUBLE) {  // float64 is filled exactly (no fp32 compute domain)
    double v = 0;
    const TensorArg& in = call.inputs[0];
    if (in.dtype == ACL_DOUBLE) {
      std::memcpy(&v, in.data, sizeof(double));
    } else if (isFloatDtype(in.dtype)) {
      float f = 0;
      loadFloat(in.dtype, in.data, 0, 1, 1, &f);
      v = f;
    } else {
      int64_t i = 0;
      loadInt(in.dtype, in.data, 0, 1, 1, &i);
      v = static_cast<double>(i);
    }
    std::fill_n(static_cast<double*>(y.data), y.numel(), v);
    return;
  }
  TensorArg value = call.inputs[0];
  value.shape.clear();
  const TensorArg* ins[1] = {&value};
  if (isFloatDtype(value.dtype)) {
    runElementwiseFloat(ins, 1, call.outputs[0], ASCEND_SIM_F1(IdentityOp), nullptr, &call.ctx);
  } else {
    runElementwiseInt(ins, 1, call.outputs[0], ASCEND_SIM_I1(IdentityOp), nullptr, &call.ctx);
  }
  zeroOutputPads(call);  // y may be in a private format
}

const char* const kRangeNames[] = {"start", "limit", "delta"};

void validateRange(const OpCall& call) {
  checkArity(call, 3, 3, 1);
  const TensorArg& y = call.outputs[0];
  checkDtype(call, y, "output y", kNumericTypes);
  for (int k = 0; k < 3; ++k) {
    checkSameDtype(call, y, "output y", call.inputs[k], std::string("input ") + kRangeNames[k]);
    checkScalar(call, call.inputs[k], kRangeNames[k]);
  }
  if (y.shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output y shape " + shapeToString(y.shape) + " must be 1-D");
}

// y[i] = start + i * delta: in double for floats, in int64 for integers.
void computeRange(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const int64_t n = y.numel();
  if (isFloatDtype(y.dtype)) {
    float start, delta;
    loadFloat(y.dtype, call.inputs[0].data, 0, 1, 1, &start);
    loadFloat(y.dtype, call.inputs[2].data, 0, 1, 1, &delta);
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      v[i] = static_cast<float>(static_cast<double>(start) + static_cast<double>(i) * delta);
    storeFloat(y.dtype, y.data, 0, n, v.data());
  } else {
    int64_t start, delta;
    loadInt(y.dtype, call.inputs[0].data, 0, 1, 1, &start);
    loadInt(y.dtype, call.inputs[2].data, 0, 1, 1, &delta);
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[i] = wrapAdd(start, wrapMul(i, delta));
    storeInt(y.dtype, y.data, 0, n, v.data());
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Fill", &validateFill, &computeFill, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Range", &validateRange, &computeRange, &vectorCost});

}  // namespace
}  // namespace ascend_sim
