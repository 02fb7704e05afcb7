// Scalar op functors for the elementwise tables and the templates that lift
// them to chunk functions (see Note [Elementwise engine]). A functor has a
// float overload (fp32 math) and, where integers are supported, an int64
// overload (wrapping two's-complement math).
#pragma once

#include <cmath>
#include <cstdint>

#include "ops/pointwise/elementwise.h"

namespace ascend_sim {

// Note [Lifted loops on AVX2]: the chunk loops are compiled twice, for the
// baseline x86-64 and for AVX2 (chosen at load time by the CPU), so the
// simple ops run 8 fp32 lanes wide where the host allows. AVX2 without FMA:
// the same IEEE operations in the same order, so the same bits. Not under
// ThreadSanitizer: the clones' load-time resolvers would run, instrumented,
// before its runtime is up, and crash the program while it loads.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define ASCEND_SIM_LIFT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ASCEND_SIM_LIFT_CLONES
#endif

template <typename T, class Op>
ASCEND_SIM_LIFT_CLONES void lift1(const T* const* in, T* o, int64_t n, const float* p) {
  const Op op{};
  const T* a = in[0];
  for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], p);
}
template <typename T, class Op>
ASCEND_SIM_LIFT_CLONES void lift2(const T* const* in, T* o, int64_t n, const float* p) {
  const Op op{};
  const T* a = in[0];
  const T* b = in[1];
  for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i], p);
}
template <typename T, class Op>
ASCEND_SIM_LIFT_CLONES void lift3(const T* const* in, T* o, int64_t n, const float* p) {
  const Op op{};
  const T* a = in[0];
  const T* b = in[1];
  const T* c = in[2];
  for (int64_t i = 0; i < n; ++i) o[i] = op(a[i], b[i], c[i], p);
}

inline int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline int64_t wrapNeg(int64_t a) { return static_cast<int64_t>(0 - static_cast<uint64_t>(a)); }

}  // namespace ascend_sim

// Spec-table shorthands: chunk functions of a functor for a 1/2/3-input op.
#define ASCEND_SIM_F1(Op) (&::ascend_sim::lift1<float, Op>)
#define ASCEND_SIM_I1(Op) (&::ascend_sim::lift1<int64_t, Op>)
#define ASCEND_SIM_F2(Op) (&::ascend_sim::lift2<float, Op>)
#define ASCEND_SIM_I2(Op) (&::ascend_sim::lift2<int64_t, Op>)
#define ASCEND_SIM_F3(Op) (&::ascend_sim::lift3<float, Op>)
#define ASCEND_SIM_I3(Op) (&::ascend_sim::lift3<int64_t, Op>)
