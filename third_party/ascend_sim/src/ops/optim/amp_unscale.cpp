// ForeachNonFiniteCheckAndUnscale (OPS.md "Optimizers"): GradScaler's and
// apex.amp's unscale of a whole list of gradients in one launch, CANN's
// aclnnForeachNonFiniteCheckAndUnscale.
// Inputs g0..gn-1 (float16/float32/bfloat16, any storage format), found_inf
// and inv_scale (float32, one element); outputs g0..gn-1 (the same buffers)
// and found_inf. Every gradient is multiplied by inv_scale (rounded to the
// gradient's dtype first, as a scalar argument is; one rounding of the
// product) and found_inf becomes 1 if any element was inf or NaN before,
// else keeps its value. Elementwise over each storage, pads included: zero
// pads stay zero and are never non-finite.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

constexpr int64_t kChunk = 4096;

size_t gradientCount(const OpCall& call) { return call.inputs.size() < 2 ? 0 : call.inputs.size() - 2; }

void validateUnscale(const OpCall& call) {
  const size_t n = gradientCount(call);
  if (n == 0 || call.outputs.size() != n + 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expects gradients g0..gn-1 (n >= 1), found_inf and inv_scale as inputs and g0..gn-1, found_inf as "
         "outputs; got " + std::to_string(call.inputs.size()) + " inputs and " +
             std::to_string(call.outputs.size()) + " outputs");
  for (size_t i = 0; i < n; ++i) {
    const std::string name = "gradient " + std::to_string(i);
    const TensorArg& in = call.inputs[i];
    const TensorArg& out = call.outputs[i];
    checkDtype(call, in, "input " + name, kFloatTypes);
    checkSameDtype(call, in, "input " + name, out, "output " + name);
    if (out.shape != in.shape || out.format != in.format)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           "output " + name + " must have the input's storage shape " + shapeToString(in.shape) + " and format");
  }
  checkOneValue(call, call.inputs[n], "input found_inf", dtBit(ACL_FLOAT));
  checkOneValue(call, call.inputs[n + 1], "input inv_scale", dtBit(ACL_FLOAT));
  checkOneValue(call, call.outputs[n], "output found_inf", dtBit(ACL_FLOAT));
}

// The scalar as an op argument of `dtype`: rounded to it.
float roundedTo(aclDataType dtype, float v) {
  float out = 0;
  std::vector<uint8_t> buf(8);
  storeFloat(dtype, buf.data(), 0, 1, &v);
  loadFloat(dtype, buf.data(), 0, 1, 1, &out);
  return out;
}

void computeUnscale(const OpCall& call) {
  const size_t n = gradientCount(call);
  const float inv_scale = *static_cast<const float*>(call.inputs[n + 1].data);
  bool found = false;
  std::vector<float> chunk(kChunk);
  for (size_t t = 0; t < n; ++t) {
    const TensorArg& in = call.inputs[t];
    const TensorArg& out = call.outputs[t];
    const float inv = roundedTo(in.dtype, inv_scale);
    const int64_t numel = in.numel();
    for (int64_t i0 = 0; i0 < numel; i0 += kChunk) {
      const int64_t c = std::min(kChunk, numel - i0);
      loadFloat(in.dtype, in.data, i0, 1, c, chunk.data());
      uint32_t bad = 0;  // branch-free test: an all-ones exponent (inf or NaN)
      for (int64_t i = 0; i < c; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &chunk[i], sizeof(bits));
        bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
        chunk[i] *= inv;
      }
      found = found || bad != 0;
      storeFloat(out.dtype, out.data, i0, c, chunk.data());
    }
  }
  const float before = *static_cast<const float*>(call.inputs[n].data);
  *static_cast<float*>(call.outputs[n].data) = found ? 1.0f : before;
}

KernelCost costUnscale(const OpCall& call) {
  // Every gradient streamed in and out once through the Vector unit (a
  // compare and a multiply per element).
  return vectorCost(call);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"ForeachNonFiniteCheckAndUnscale", &validateUnscale, &computeUnscale,
                                     &costUnscale});

}  // namespace
}  // namespace ascend_sim
