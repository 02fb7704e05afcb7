// Fill, Range and LinSpace (OPS.md "Creation"); Fill also of complex64.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/pointwise/complex_elementwise.h"
#include "ops/pointwise/elementwise_ops.h"

namespace ascend_sim {
namespace {

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
// be in any format (Note [Elementwise on private formats]). A complex64 y gets
// the value as complex64 (a real value v is (v, 0)); a complex64 value fills a
// real y with its real part, as Cast does (complex_cast.cpp).
void computeFill(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  if (isComplexDtype(y.dtype)) {
    std::fill_n(static_cast<Complex64*>(y.data), y.numel(), complexScalarOf(call.inputs[0]));
    zeroOutputPads(call);
    return;
  }
  float real_part = 0;  // of a complex64 value: what fills a real y
  TensorArg value = call.inputs[0];
  if (isComplexDtype(value.dtype)) {
    real_part = complexScalarOf(value).real();
    value.dtype = ACL_FLOAT;
    value.data = &real_part;
  }
  if (y.dtype == ACL_DOUBLE) {  // float64 is filled exactly (no fp32 compute domain)
    double v = 0;
    const TensorArg& in = value;
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
  value.shape.clear();
  const TensorArg* ins[1] = {&value};
  if (isFloatDtype(value.dtype)) {
    runElementwiseFloat(ins, 1, call.outputs[0], &copyChunkF32, nullptr, &call.ctx);
  } else {
    runElementwiseInt(ins, 1, call.outputs[0], &copyChunkI64, nullptr, &call.ctx);
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

void readScalarAsDouble(const TensorArg& t, double* value) {
  if (t.dtype == ACL_DOUBLE) {
    std::memcpy(value, t.data, sizeof(double));
  } else {
    float f = 0;
    std::memcpy(&f, t.data, sizeof(float));
    *value = f;
  }
}

void validateLinSpace(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg& y = call.outputs[0];
  checkDtype(call, y, "output y", kNumericTypes);
  checkDtype(call, call.inputs[0], "input start", dtBit(ACL_FLOAT) | dtBit(ACL_DOUBLE));
  checkSameDtype(call, call.inputs[0], "input start", call.inputs[1], "input stop");
  checkScalar(call, call.inputs[0], "start");
  checkScalar(call, call.inputs[1], "stop");
  if (y.shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output y shape " + shapeToString(y.shape) + " must be 1-D");
}

// Note [LinSpace from both ends]
// y[i] = start + step * i for the first half (i < n / 2) and stop - step * (n - 1 - i) for the
// rest, step = (stop - start) / (n - 1): both ends are exact and the points are symmetric, as
// PyTorch's CPU kernel computes them. Floats step in fp32 (the first half is one multiply and one
// add, each rounded), integers in double, truncated toward zero. start and stop come as float32
// scalars, or float64 where fp32 would round them (large integer ranges).
void computeLinSpace(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const int64_t n = y.numel();
  double start = 0, stop = 0;  // exactly as given (float32 or float64 scalars)
  readScalarAsDouble(call.inputs[0], &start);
  readScalarAsDouble(call.inputs[1], &stop);
  const int64_t halfway = n / 2;
  if (isFloatDtype(y.dtype)) {
    const float first = static_cast<float>(start), last = static_cast<float>(stop);
    const float step = n > 1 ? (last - first) / static_cast<float>(n - 1) : 0.0f;
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const float ahead = step * static_cast<float>(i < halfway ? i : n - 1 - i);
      v[i] = i < halfway ? first + ahead : last - ahead;
    }
    if (n == 1) v[0] = first;
    storeFloat(y.dtype, y.data, 0, n, v.data());
  } else {
    const double step = n > 1 ? (static_cast<double>(stop) - start) / static_cast<double>(n - 1) : 0.0;
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const double ahead = step * static_cast<double>(i < halfway ? i : n - 1 - i);
      v[i] = static_cast<int64_t>(i < halfway ? start + ahead : stop - ahead);
    }
    storeInt(y.dtype, y.data, 0, n, v.data());
  }
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Fill", &validateFill, &computeFill, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"LinSpace", &validateLinSpace, &computeLinSpace, &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Range", &validateRange, &computeRange, &vectorCost});

}  // namespace
}  // namespace ascend_sim
