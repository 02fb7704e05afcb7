#include "hccl/reduce_kernel.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "common/dtype.h"

namespace ascend_sim {
namespace hccl {

namespace {

// Note [Reduction loops per op]
// The op is chosen once per call, outside the loop, so that each loop body is
// one operation the compiler can vectorise (SUM of fp32 runs 4-8 lanes wide
// instead of testing the op per element). Every lane computes what the scalar
// form computes, in the same order per element, so the bits do not change.

// Integer ops with wrap-around (computed on the unsigned type: no UB).
template <typename T>
struct IntSum {
  T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
};
template <typename T>
struct IntProd {
  T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  }
};
template <typename T>
struct Max {
  T operator()(T a, T b) const { return a > b ? a : b; }
};
template <typename T>
struct Min {
  T operator()(T a, T b) const { return a < b ? a : b; }
};

struct FloatSum {
  float operator()(float a, float b) const { return a + b; }
};
struct FloatProd {
  float operator()(float a, float b) const { return a * b; }
};
// MAX / MIN propagate NaN (as the canonical quiet NaN).
struct FloatMax {
  float operator()(float a, float b) const { return a != a || b != b ? NAN : (a > b ? a : b); }
};
struct FloatMin {
  float operator()(float a, float b) const { return a != a || b != b ? NAN : (a < b ? a : b); }
};

template <typename T, typename Op>
void elementwise(void* dst, const void* src, size_t n, Op op) {
  T* d = static_cast<T*>(dst);
  const T* s = static_cast<const T*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = op(d[i], s[i]);
}

template <typename T>
void reduceInts(void* dst, const void* src, size_t n, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return elementwise<T>(dst, src, n, IntSum<T>{});
    case HCCL_REDUCE_PROD: return elementwise<T>(dst, src, n, IntProd<T>{});
    case HCCL_REDUCE_MAX: return elementwise<T>(dst, src, n, Max<T>{});
    case HCCL_REDUCE_MIN: return elementwise<T>(dst, src, n, Min<T>{});
  }
}

void reduceFp32(void* dst, const void* src, size_t n, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return elementwise<float>(dst, src, n, FloatSum{});
    case HCCL_REDUCE_PROD: return elementwise<float>(dst, src, n, FloatProd{});
    case HCCL_REDUCE_MAX: return elementwise<float>(dst, src, n, FloatMax{});
    case HCCL_REDUCE_MIN: return elementwise<float>(dst, src, n, FloatMin{});
  }
}

float floatOp(float a, float b, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return FloatSum{}(a, b);
    case HCCL_REDUCE_PROD: return FloatProd{}(a, b);
    case HCCL_REDUCE_MAX: return FloatMax{}(a, b);
    case HCCL_REDUCE_MIN: return FloatMin{}(a, b);
  }
  return a;
}

constexpr uint16_t kHalfExpMask = 0x7c00;  // exponent all ones: inf or NaN
constexpr uint16_t kHalfMantMask = 0x03ff;
constexpr uint16_t kHalfMax = 0x7bff;      // 65504
constexpr uint16_t kHalfSign = 0x8000;

bool reduceFp16(void* dst, const void* src, size_t n, HcclReduceOp op, bool saturate) {
  uint16_t* d = static_cast<uint16_t*>(dst);
  const uint16_t* s = static_cast<const uint16_t*>(src);
  bool overflow = false;
  for (size_t i = 0; i < n; ++i) {
    uint16_t h = floatToHalf(floatOp(halfToFloat(d[i]), halfToFloat(s[i]), op));
    if (saturate && (h & kHalfExpMask) == kHalfExpMask) {
      overflow = true;
      h = (h & kHalfMantMask) ? 0 : static_cast<uint16_t>((h & kHalfSign) | kHalfMax);  // NaN -> 0, inf -> ±65504
    }
    d[i] = h;
  }
  return overflow;
}

// bf16 has fp32's exponent range: a finite sum can still round to inf, which
// is kept (no saturation mode applies to bf16).
void reduceBf16(void* dst, const void* src, size_t n, HcclReduceOp op) {
  uint16_t* d = static_cast<uint16_t*>(dst);
  const uint16_t* s = static_cast<const uint16_t*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = floatToBf16(floatOp(bf16ToFloat(d[i]), bf16ToFloat(s[i]), op));
}

}  // namespace

bool reduceInto(void* dst, const void* src, size_t n, HcclDataType dt, HcclReduceOp op, bool fp16_saturate) {
  if (n == 0) return false;
  switch (dt) {
    case HCCL_DATA_TYPE_INT8: reduceInts<int8_t>(dst, src, n, op); return false;
    case HCCL_DATA_TYPE_INT32: reduceInts<int32_t>(dst, src, n, op); return false;
    case HCCL_DATA_TYPE_FP32: reduceFp32(dst, src, n, op); return false;
    case HCCL_DATA_TYPE_FP16: return reduceFp16(dst, src, n, op, fp16_saturate);
    case HCCL_DATA_TYPE_BFP16: reduceBf16(dst, src, n, op); return false;
    default: throw std::logic_error("reduceInto: dtype was not validated");
  }
}

}  // namespace hccl
}  // namespace ascend_sim
