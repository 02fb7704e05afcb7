// The walk shared by the complex64 elementwise kernels (complex_arith.cpp,
// complex_cast.cpp): operands read and written as stored, float32 or
// complex64, with the table ops' NumPy broadcasting.
//
// Note [Complex elementwise kernels]
// A complex64 element is std::complex<float>: the real part, then the
// imaginary part, each a float32. The kernels compute on the two components in
// fp32 with the textbook formulas, one IEEE operation at a time (each product,
// sum and quotient rounded, no FMA), which is what PyTorch's vectorised CPU
// kernels do; they never go through the fp32 / int64 scratch of the table
// engine (Note [Compute domains]), whose fp32 lanes would drop the imaginary
// part. Operands are in base formats; inputs broadcast to the output as in the
// table ops. The work is split as the table engine splits it (whole kChunk
// chunks of the output, one range per simulated vector core, elements
// independent, so the bits do not depend on the host's thread count), and it
// is costed by the engine's own account-only walk (elementwiseWalkCost): a
// complex64 operand streams 8 bytes per element.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>

#include "ops/pointwise/elementwise.h"

namespace ascend_sim {

using Complex64 = std::complex<float>;

// Calls fn(offsets, len, strides) for runs of the output's row-major index
// space, operand 0 being the output and 1.. the inputs (element offsets and
// strides, 0 along broadcast dims), split over the simulated vector cores
// (run on the host pool). Requires every input to broadcast to output 0.
void forEachElementRun(const OpCall& call,
                       const std::function<void(const int64_t* off, int64_t len, const int64_t* st)>& fn);

// y[i] = fn(x[i]) for one input; Out and In are float or Complex64, the
// element types of the output and the input as stored.
template <typename Out, typename In, typename Fn>
void mapElements(const OpCall& call, Fn fn) {
  const In* x = static_cast<const In*>(call.inputs[0].data);
  Out* y = static_cast<Out*>(call.outputs[0].data);
  forEachElementRun(call, [&](const int64_t* off, int64_t len, const int64_t* st) {
    for (int64_t i = 0; i < len; ++i) y[off[0] + i * st[0]] = fn(x[off[1] + i * st[1]]);
  });
}

// y[i] = fn(x1[i], x2[i]) for two broadcast inputs of element type In.
template <typename Out, typename In, typename Fn>
void mapElements2(const OpCall& call, Fn fn) {
  const In* a = static_cast<const In*>(call.inputs[0].data);
  const In* b = static_cast<const In*>(call.inputs[1].data);
  Out* y = static_cast<Out*>(call.outputs[0].data);
  forEachElementRun(call, [&](const int64_t* off, int64_t len, const int64_t* st) {
    for (int64_t i = 0; i < len; ++i) y[off[0] + i * st[0]] = fn(a[off[1] + i * st[1]], b[off[2] + i * st[2]]);
  });
}

// The value of a one-element tensor of any storage dtype as complex64:
// complex64 as it is, anything else as (its fp32 value, 0) — Cast's rule.
Complex64 complexScalarOf(const TensorArg& t);

}  // namespace ascend_sim
