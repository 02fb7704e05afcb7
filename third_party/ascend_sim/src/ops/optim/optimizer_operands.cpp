#include "ops/optim/optimizer_operands.h"

#include <algorithm>
#include <string>

namespace ascend_sim {

void validateOptimizerOperands(const OpCall& call, const OptimizerOperands& operands) {
  const size_t count = operands.names.size();
  // Elementwise over the storage: buffers in one private format (a FRACTAL_Z
  // weight with its gradient and state) are updated as stored, pads included.
  if (checkArityAnyFormat(call, count, count, operands.buffers.size()) == FormatMode::kLogical)
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT, "buffers whose storage shapes differ by C0 are not supported");
  const TensorArg& var = call.inputs[0];
  checkDtype(call, var, "input var", kFloatTypes);
  for (size_t i = 0; i < count; ++i) {
    const std::string name = std::string("input ") + operands.names[i];
    const bool tensor = i == operands.grad ||
                        std::find(operands.buffers.begin(), operands.buffers.end(), i) != operands.buffers.end();
    if (!tensor) {
      checkOneValue(call, call.inputs[i], name, dtBit(ACL_DOUBLE));
      continue;
    }
    checkSameDtype(call, var, "var", call.inputs[i], name);
    checkShapeEq(call, call.inputs[i], name, var.shape, "var shape");
  }
  for (const TensorArg& out : call.outputs) {
    checkSameDtype(call, var, "var", out, "output");
    checkShapeEq(call, out, "output", var.shape, "var shape");
  }
}

}  // namespace ascend_sim
