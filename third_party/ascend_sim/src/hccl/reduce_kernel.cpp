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

// Integer op with wrap-around (computed on the unsigned type: no UB).
template <typename T>
T intOp(T a, T b, HcclReduceOp op) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case HCCL_REDUCE_SUM: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case HCCL_REDUCE_PROD: return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    case HCCL_REDUCE_MAX: return a > b ? a : b;
    case HCCL_REDUCE_MIN: return a < b ? a : b;
  }
  return a;
}

float floatOp(float a, float b, HcclReduceOp op) {
  switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    case HCCL_REDUCE_MAX: return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
    case HCCL_REDUCE_MIN: return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
  }
  return a;
}

template <typename T>
void reduceInts(void* dst, const void* src, size_t n, HcclReduceOp op) {
  T* d = static_cast<T*>(dst);
  const T* s = static_cast<const T*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = intOp<T>(d[i], s[i], op);
}

void reduceFp32(void* dst, const void* src, size_t n, HcclReduceOp op) {
  float* d = static_cast<float*>(dst);
  const float* s = static_cast<const float*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = floatOp(d[i], s[i], op);
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

}  // namespace

bool reduceInto(void* dst, const void* src, size_t n, HcclDataType dt, HcclReduceOp op, bool fp16_saturate) {
  if (n == 0) return false;
  switch (dt) {
    case HCCL_DATA_TYPE_INT8: reduceInts<int8_t>(dst, src, n, op); return false;
    case HCCL_DATA_TYPE_INT32: reduceInts<int32_t>(dst, src, n, op); return false;
    case HCCL_DATA_TYPE_FP32: reduceFp32(dst, src, n, op); return false;
    case HCCL_DATA_TYPE_FP16: return reduceFp16(dst, src, n, op, fp16_saturate);
    default: throw std::logic_error("reduceInto: dtype was not validated");
  }
}

}  // namespace hccl
}  // namespace ascend_sim
