// Cast with a complex64 input or output (OPS.md "Complex numbers"): the
// complex variant of the table's Cast (Note [Complex variants of table ops]
// in elementwise.h), with PyTorch's rules:
//   real -> complex64     (v, 0), v the float32 Cast gives (one RNE rounding
//                         from int64 / int32 / float64, exact from the others)
//   complex64 -> complex64 a copy
//   complex64 -> real     the real part, stored by Cast's float rules (Note
//                         [Compute domains]); the imaginary part is dropped,
//                         as torch does (it warns) — so complex -> bool tests
//                         the real part only, as PyTorch 1.13's CPU cast.
// Base formats only; x and y have one shape. An fp16 y saturates here on a
// saturating chip, since the table kernel's flags tell the runtime that it
// does (Note [fp16 overflow in the store]).
#include <algorithm>
#include <atomic>
#include <cstring>

#include "ops/pointwise/complex_elementwise.h"

namespace ascend_sim {
namespace {

void validateComplexCast(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input x", kStorageTypes);
  checkDtype(call, y, "output y", kStorageTypes);
  checkShapeEq(call, y, "output y", x.shape, "input x shape");
}

// y[o, o + n) = the real parts of x[o, o + n), by storeFloat's rules.
bool storeRealParts(const OpCall& call, int64_t o, int64_t n) {
  const TensorArg& y = call.outputs[0];
  const Complex64* x = static_cast<const Complex64*>(call.inputs[0].data) + o;
  float real[kChunk];
  bool overflow = false;
  for (int64_t done = 0; done < n; done += kChunk) {
    const int64_t m = std::min(kChunk, n - done);
    for (int64_t i = 0; i < m; ++i) real[i] = x[done + i].real();
    storeFloat(y.dtype, y.data, o + done, m, real);
    if (y.dtype == ACL_FLOAT16 && call.ctx.fp16_saturation)
      overflow = vectorUnit().fp16_overflow(static_cast<uint16_t*>(y.data) + o + done, m, true) || overflow;
  }
  return overflow;
}

// y[o, o + n) = (x as float32, 0).
void storeAsComplex(const OpCall& call, int64_t o, int64_t n) {
  const TensorArg& x = call.inputs[0];
  Complex64* y = static_cast<Complex64*>(call.outputs[0].data) + o;
  float real[kChunk];
  for (int64_t done = 0; done < n; done += kChunk) {
    const int64_t m = std::min(kChunk, n - done);
    loadFloat(x.dtype, x.data, o + done, 1, m, real);
    for (int64_t i = 0; i < m; ++i) y[done + i] = Complex64(real[i], 0.0f);
  }
}

void computeComplexCast(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const bool from_complex = isComplexDtype(x.dtype), to_complex = isComplexDtype(y.dtype);
  std::atomic<bool> overflow{false};
  forEachElementRun(call, [&](const int64_t* off, int64_t len, const int64_t*) {
    const int64_t o = off[0];  // x and y are both contiguous and of one shape
    if (from_complex && to_complex) {
      if (x.data != y.data)
        std::memcpy(static_cast<Complex64*>(y.data) + o, static_cast<const Complex64*>(x.data) + o,
                    static_cast<size_t>(len) * sizeof(Complex64));
    } else if (from_complex) {
      if (storeRealParts(call, o, len)) overflow = true;
    } else {
      storeAsComplex(call, o, len);
    }
  });
  if (overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

const bool kRegistered =
    (registerComplexVariant(KernelDef{"Cast", &validateComplexCast, &computeComplexCast, &elementwiseWalkCost}), true);

}  // namespace
}  // namespace ascend_sim
