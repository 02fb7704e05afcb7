// The operands of the optimizer kernels (OPS.md "Optimizers": ApplyMomentum,
// ApplyAdamW, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdadelta, ApplyLamb):
// buffers updated in place (var first, then the optimizer state), one
// gradient, and hyper-parameters as 0-d float64 inputs (host scalars).
#pragma once

#include <cstddef>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

struct OptimizerOperands {
  std::vector<const char*> names;  // of every input, in order
  std::vector<size_t> buffers;     // inputs updated in place; the outputs are these, in this order
  size_t grad;                     // the gradient input; every other input is a host scalar
};

// Checks the call against `operands`: buffers and gradient of var's float
// dtype and storage shape, all in one format (a private one is updated as
// stored), one float64 value per scalar, one output per buffer.
void validateOptimizerOperands(const OpCall& call, const OptimizerOperands& operands);

// The value of float64 host-scalar input i.
inline double scalarInput(const OpCall& call, size_t i) { return *static_cast<const double*>(call.inputs[i].data); }
// A hyper-parameter as the kernel's fp32 arithmetic uses it (an op's scalar argument: one rounding).
inline float asF(double v) { return static_cast<float>(v); }

}  // namespace ascend_sim
