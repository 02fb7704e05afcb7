// Ascend C on the simulator: the Vector unit's instructions on Unified Buffer tensors (the V pipe).
//
// Numerics: floating-point instructions compute in fp32 and round the result once to the
// destination type (half: round to nearest even), as the simulator's built-in Vector kernels do;
// integer instructions wrap. Cost: one start-up plus one cycle-count per 256-byte repeat of the
// widest operand (Note [Block timeline]).
#pragma once

#include <limits>

#include "ascend_sim/ascendc/tensor.h"

namespace AscendC {

namespace sim {

template <typename T>
using MathType = std::conditional_t<kIsFloat<T>, float, int64_t>;

// The element types the vector instructions take.
template <typename T>
constexpr bool kVectorType =
    kIsFloat<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int16_t> || std::is_same_v<T, uint8_t> ||
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>;

// A vector operand: allocated, in UB, 32-byte aligned (the chip's rule for vector operands), holding
// `count` elements.
template <typename T>
void checkVectorOperand(const LocalTensor<T>& t, int64_t count, const char* api, const char* role) {
  static_assert(kVectorType<T>, "vector instructions take half, float, (u)int8, (u)int16 or (u)int32 tensors");
  t.require(count, api, role);
  if (memoryOf(t.GetPosition()) != Memory::UB)
    fail(std::string(api) + ": " + role + " is at " + positionName(t.GetPosition()) +
         "; vector instructions work on UB positions (VECIN, VECOUT, VECCALC)");
  if (t.GetPhyAddr() % 32 != 0)
    fail(std::string(api) + ": " + role + " starts at byte " + std::to_string(t.GetPhyAddr()) +
         " of UB; vector operands start on a 32-byte boundary (" + t.owner() + ")");
}

inline void issueVector(const char* api, double bytes, std::initializer_list<Buffer*> reads, Buffer* write) {
  Block& b = block();
  b.issue(api, PIPE_V, b.vectorCycles(bytes), reads, write);
}

// dst[i] = f(a[i], b[i]).
template <typename T, typename F>
void binary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t count,
            F f) {
  checkVectorOperand(dst, count, api, "dst");
  checkVectorOperand(a, count, api, "src0");
  checkVectorOperand(b, count, api, "src1");
  T* d = dst.data();
  const T *x = a.data(), *y = b.data();
  for (int32_t i = 0; i < count; ++i)
    d[i] = static_cast<T>(f(static_cast<MathType<T>>(x[i]), static_cast<MathType<T>>(y[i])));
  issueVector(api, double(count) * sizeof(T), {a.buffer(), b.buffer()}, dst.buffer());
  block().countFlops(count);
}

// dst[i] = f(src[i]).
template <typename T, typename F>
void unary(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t count, F f) {
  checkVectorOperand(dst, count, api, "dst");
  checkVectorOperand(src, count, api, "src");
  T* d = dst.data();
  const T* s = src.data();
  for (int32_t i = 0; i < count; ++i) d[i] = static_cast<T>(f(static_cast<MathType<T>>(s[i])));
  issueVector(api, double(count) * sizeof(T), {src.buffer()}, dst.buffer());
  block().countFlops(count);
}

// Div's arithmetic: integer division by zero is an AI Core exception, not a host crash.
template <typename M>
M divide(M a, M b) {
  if constexpr (std::is_integral_v<M>) {
    if (b == 0) fail("Div: integer division by zero");
    if (b == -1) return static_cast<M>(-static_cast<std::make_unsigned_t<M>>(a));  // wraps, as the others do
  }
  return a / b;
}

}  // namespace sim

#define ASCENDC_SIM_BINARY(Name, expr)                                                                                 \
  template <typename T>                                                                                                \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count) { \
    sim::binary(#Name, dst, src0, src1, count, [](auto a, auto b) {                                                    \
      using namespace sim;                                                                                             \
      return expr;                                                                                                     \
    });                                                                                                                \
  }
ASCENDC_SIM_BINARY(Add, a + b)
ASCENDC_SIM_BINARY(Sub, a - b)
ASCENDC_SIM_BINARY(Mul, a* b)
ASCENDC_SIM_BINARY(Div, divide(a, b))
ASCENDC_SIM_BINARY(Max, (a > b || a != a) ? a : b)
ASCENDC_SIM_BINARY(Min, (a < b || a != a) ? a : b)
#undef ASCENDC_SIM_BINARY

// Instructions with a scalar operand: dst[i] = f(src[i], scalar).
#define ASCENDC_SIM_SCALAR(Name, expr)                                                                          \
  template <typename T>                                                                                         \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count) { \
    const auto s = static_cast<sim::MathType<T>>(scalarValue);                                                  \
    sim::unary(#Name, dst, src, count, [s](auto a) { return expr; });                                           \
  }
ASCENDC_SIM_SCALAR(Adds, a + s)
ASCENDC_SIM_SCALAR(Muls, a* s)
ASCENDC_SIM_SCALAR(Maxs, a > s ? a : s)
ASCENDC_SIM_SCALAR(Mins, a < s ? a : s)
ASCENDC_SIM_SCALAR(LeakyRelu, a >= 0 ? a : a * s)
#undef ASCENDC_SIM_SCALAR

#define ASCENDC_SIM_UNARY(Name, expr)                                                     \
  template <typename T>                                                                   \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) { \
    sim::unary(#Name, dst, src, count, [](auto a) { return expr; });                      \
  }
ASCENDC_SIM_UNARY(Abs, a < 0 ? -a : a)
ASCENDC_SIM_UNARY(Relu, a > 0 ? a : decltype(a)(0))
ASCENDC_SIM_UNARY(Exp, std::exp(float(a)))
ASCENDC_SIM_UNARY(Ln, std::log(float(a)))
ASCENDC_SIM_UNARY(Sqrt, std::sqrt(float(a)))
ASCENDC_SIM_UNARY(Rsqrt, 1.0f / std::sqrt(float(a)))
ASCENDC_SIM_UNARY(Reciprocal, 1.0f / float(a))
#undef ASCENDC_SIM_UNARY

// dst[i] = scalarValue.
template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count) {
  sim::checkVectorOperand(dst, count, "Duplicate", "dst");
  std::fill(dst.data(), dst.data() + count, scalarValue);
  sim::issueVector("Duplicate", double(count) * sizeof(T), {}, dst.buffer());
}

enum class RoundMode { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

// dst[i] = src[i] converted. To a floating type: rounded to nearest even (CAST_NONE or CAST_RINT;
// the simulator refuses the directed modes there). From floating to integer: rounded by `mode`
// (CAST_NONE: toward zero), saturated, NaN -> 0. Between integer types: saturated.
template <typename U, typename T>
void Cast(const LocalTensor<U>& dst, const LocalTensor<T>& src, const RoundMode& mode, const uint32_t& count) {
  sim::checkVectorOperand(dst, count, "Cast", "dst");
  sim::checkVectorOperand(src, count, "Cast", "src");
  if (sim::kIsFloat<U> && !std::is_same_v<U, T> && mode != RoundMode::CAST_NONE && mode != RoundMode::CAST_RINT)
    sim::fail("Cast to a floating type: the simulator rounds to nearest even only (CAST_NONE or CAST_RINT)");
  U* d = dst.data();
  const T* s = src.data();
  for (uint32_t i = 0; i < count; ++i) {
    if constexpr (sim::kIsFloat<U>) {
      d[i] = static_cast<U>(static_cast<float>(s[i]));
    } else if constexpr (!sim::kIsFloat<T>) {
      const int64_t v = static_cast<int64_t>(s[i]);
      constexpr int64_t lo = static_cast<int64_t>(std::numeric_limits<U>::lowest());
      constexpr int64_t hi = static_cast<int64_t>(std::numeric_limits<U>::max());
      d[i] = static_cast<U>(std::min(std::max(v, lo), hi));
    } else {
      float v = static_cast<float>(s[i]);
      switch (mode) {
        case RoundMode::CAST_RINT: v = std::nearbyint(v); break;
        case RoundMode::CAST_FLOOR: v = std::floor(v); break;
        case RoundMode::CAST_CEIL: v = std::ceil(v); break;
        case RoundMode::CAST_ROUND: v = std::round(v); break;
        default: v = std::trunc(v); break;
      }
      constexpr float lo = static_cast<float>(std::numeric_limits<U>::lowest());
      constexpr float hi = static_cast<float>(std::numeric_limits<U>::max());
      d[i] = v != v    ? U(0)
             : v <= lo ? std::numeric_limits<U>::lowest()
             : v >= hi ? std::numeric_limits<U>::max()
                       : U(v);
    }
  }
  sim::issueVector("Cast", double(count) * std::max(sizeof(T), sizeof(U)), {src.buffer()}, dst.buffer());
}

// dst[0] = the sum of src[0, count) (fp32 accumulation in index order). workLocal is the chip's scratch
// for the reduction tree; it must hold `count` elements.
template <typename T>
void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
               const int32_t count) {
  sim::checkVectorOperand(dst, 1, "ReduceSum", "dst");
  sim::checkVectorOperand(src, count, "ReduceSum", "src");
  sim::checkVectorOperand(workLocal, count, "ReduceSum", "workLocal");
  sim::MathType<T> acc = 0;
  for (int32_t i = 0; i < count; ++i) acc += static_cast<sim::MathType<T>>(src.data()[i]);
  dst.data()[0] = static_cast<T>(acc);
  sim::issueVector("ReduceSum", 2.0 * count * sizeof(T), {src.buffer()}, dst.buffer());
  sim::block().countFlops(count);
}

namespace sim {
// dst[0] = the extreme of src[0, count); with calIndex, dst[1] holds its index's bits (the first one).
template <typename T, typename Better>
void reduceExtreme(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                   const LocalTensor<T>& workLocal, int32_t count, bool calIndex, Better better) {
  checkVectorOperand(dst, calIndex ? 2 : 1, api, "dst");
  checkVectorOperand(src, count, api, "src");
  checkVectorOperand(workLocal, count, api, "workLocal");
  if (count < 1) fail(std::string(api) + " of no elements");
  int32_t at = 0;
  for (int32_t i = 1; i < count; ++i)
    if (better(src.data()[i], src.data()[at])) at = i;
  dst.data()[0] = src.data()[at];
  if (calIndex) {
    T index_bits{};
    const uint32_t idx = static_cast<uint32_t>(at);
    std::memcpy(&index_bits, &idx, std::min(sizeof(T), sizeof(idx)));
    dst.data()[1] = index_bits;
  }
  issueVector(api, 2.0 * count * sizeof(T), {src.buffer()}, dst.buffer());
}
}  // namespace sim

template <typename T>
void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
               const int32_t count, bool calIndex = false) {
  sim::reduceExtreme("ReduceMax", dst, src, workLocal, count, calIndex, [](T a, T b) { return a > b; });
}
template <typename T>
void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& workLocal,
               const int32_t count, bool calIndex = false) {
  sim::reduceExtreme("ReduceMin", dst, src, workLocal, count, calIndex, [](T a, T b) { return a < b; });
}

enum class CMPMODE { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

// Bit i of dst (a uint8_t mask, least significant bit first) = src0[i] <cmpMode> src1[i]. The chip
// compares whole 256-byte repeats: count x sizeof(T) must be a multiple of 256.
template <typename T>
void Compare(const LocalTensor<uint8_t>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             uint32_t count) {
  if ((count * sizeof(T)) % 256 != 0)
    sim::fail("Compare of " + std::to_string(count) + " elements: the length must be a multiple of 256 bytes (" +
              std::to_string(256 / sizeof(T)) + " elements of this type)");
  sim::checkVectorOperand(dst, (count + 7) / 8, "Compare", "dst");
  sim::checkVectorOperand(src0, count, "Compare", "src0");
  sim::checkVectorOperand(src1, count, "Compare", "src1");
  std::vector<uint8_t> bits((count + 7) / 8, 0);
  for (uint32_t i = 0; i < count; ++i) {
    const auto a = static_cast<sim::MathType<T>>(src0.data()[i]);
    const auto b = static_cast<sim::MathType<T>>(src1.data()[i]);
    bool r = false;
    switch (cmpMode) {
      case CMPMODE::LT: r = a < b; break;
      case CMPMODE::GT: r = a > b; break;
      case CMPMODE::EQ: r = a == b; break;
      case CMPMODE::LE: r = a <= b; break;
      case CMPMODE::GE: r = a >= b; break;
      case CMPMODE::NE: r = a != b; break;
    }
    if (r) bits[i / 8] |= uint8_t(1u << (i % 8));
  }
  std::memcpy(dst.data(), bits.data(), bits.size());
  sim::issueVector("Compare", double(count) * sizeof(T), {src0.buffer(), src1.buffer()}, dst.buffer());
}

// dst[i] = bit i of selMask ? src0[i] : src1[i] (VSEL_TENSOR_TENSOR_MODE).
template <typename T>
void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE)
    sim::fail("Select with two tensors takes SELMODE::VSEL_TENSOR_TENSOR_MODE");
  sim::checkVectorOperand(dst, count, "Select", "dst");
  sim::checkVectorOperand(selMask, (count + 7) / 8, "Select", "selMask");
  sim::checkVectorOperand(src0, count, "Select", "src0");
  sim::checkVectorOperand(src1, count, "Select", "src1");
  for (uint32_t i = 0; i < count; ++i)
    dst.data()[i] = (selMask.data()[i / 8] >> (i % 8)) & 1u ? src0.data()[i] : src1.data()[i];
  sim::issueVector("Select", double(count) * sizeof(T), {selMask.buffer(), src0.buffer(), src1.buffer()}, dst.buffer());
}

// dst[i] = bit i of selMask ? src0[i] : scalar (VSEL_TENSOR_SCALAR_MODE).
template <typename T>
void Select(const LocalTensor<T>& dst, const LocalTensor<uint8_t>& selMask, const LocalTensor<T>& src0, T scalar,
            SELMODE selMode, uint32_t count) {
  if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
    sim::fail("Select with a scalar takes SELMODE::VSEL_TENSOR_SCALAR_MODE");
  sim::checkVectorOperand(dst, count, "Select", "dst");
  sim::checkVectorOperand(selMask, (count + 7) / 8, "Select", "selMask");
  sim::checkVectorOperand(src0, count, "Select", "src0");
  for (uint32_t i = 0; i < count; ++i)
    dst.data()[i] = (selMask.data()[i / 8] >> (i % 8)) & 1u ? src0.data()[i] : scalar;
  sim::issueVector("Select", double(count) * sizeof(T), {selMask.buffer(), src0.buffer()}, dst.buffer());
}

}  // namespace AscendC
