// The reducing collectives' elementwise kernel (hccl/reduce_kernel.h) against
// a one-element-at-a-time reference, for every dtype and op, at lengths that
// leave every vector tail, with the values where the ops differ: NaN, ±inf,
// ±0, subnormals, integer extremes. Results must match bit for bit (a NaN
// matches any NaN: which input's payload survives is the compiler's choice).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/dtype.h"
#include "hccl/reduce_kernel.h"

namespace ascend_sim {
namespace hccl {
namespace {

const HcclReduceOp kOps[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX, HCCL_REDUCE_MIN};
const size_t kLengths[] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 1000, 4099};

float refFloat(float a, float b, HcclReduceOp op) {
  const bool nan = std::isnan(a) || std::isnan(b);
  switch (op) {
    case HCCL_REDUCE_SUM: return a + b;
    case HCCL_REDUCE_PROD: return a * b;
    // Equal operands (+0 and -0) give the second one, the incoming value.
    case HCCL_REDUCE_MAX: return nan ? NAN : (a > b ? a : b);
    case HCCL_REDUCE_MIN: return nan ? NAN : (a < b ? a : b);
  }
  return 0;
}

template <typename T>
T refInt(T a, T b, HcclReduceOp op) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case HCCL_REDUCE_SUM: return static_cast<T>(static_cast<U>(U(a) + U(b)));
    case HCCL_REDUCE_PROD: return static_cast<T>(static_cast<U>(U(a) * U(b)));
    case HCCL_REDUCE_MAX: return std::max(a, b);
    case HCCL_REDUCE_MIN: return std::min(a, b);
  }
  return 0;
}

std::vector<float> specialFloats(size_t n, uint32_t seed) {
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, 3.0e38f, -3.0e38f, 1.0f};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = rng() % 4 == 0 ? specials[rng() % 10] : uni(rng);
  return v;
}

bool sameFloat(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  uint32_t a, b;
  std::memcpy(&a, &got, 4);
  std::memcpy(&b, &want, 4);
  return a == b;
}

TEST(HcclReduceKernel, Fp32MatchesElementwiseReference) {
  for (HcclReduceOp op : kOps) {
    for (size_t n : kLengths) {
      std::vector<float> dst = specialFloats(n, 1 + static_cast<uint32_t>(n)), src = specialFloats(n, 99);
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) want[i] = refFloat(dst[i], src[i], op);
      EXPECT_FALSE(reduceInto(dst.data(), src.data(), n, HCCL_DATA_TYPE_FP32, op, true));
      for (size_t i = 0; i < n; ++i)
        ASSERT_TRUE(sameFloat(dst[i], want[i])) << "op " << op << " n " << n << " i " << i << ": " << dst[i]
                                                << " want " << want[i];
    }
  }
}

template <typename T>
void checkInts(HcclDataType dt) {
  std::mt19937 rng(7);
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  auto value = [&] {
    switch (rng() % 4) {
      case 0: return lo;
      case 1: return hi;
      default: return static_cast<T>(rng());
    }
  };
  for (HcclReduceOp op : kOps) {
    for (size_t n : kLengths) {
      std::vector<T> dst(n), src(n), want(n);
      for (size_t i = 0; i < n; ++i) dst[i] = value(), src[i] = value(), want[i] = refInt<T>(dst[i], src[i], op);
      EXPECT_FALSE(reduceInto(dst.data(), src.data(), n, dt, op, true));
      ASSERT_EQ(dst, want) << "op " << op << " n " << n;
    }
  }
}

TEST(HcclReduceKernel, Int32WrapsAndMatchesElementwiseReference) { checkInts<int32_t>(HCCL_DATA_TYPE_INT32); }
TEST(HcclReduceKernel, Int8WrapsAndMatchesElementwiseReference) { checkInts<int8_t>(HCCL_DATA_TYPE_INT8); }

TEST(HcclReduceKernel, Fp16RoundsOncePerStepAndSaturatesOnlyWhenAsked) {
  for (HcclReduceOp op : kOps) {
    for (size_t n : kLengths) {
      std::vector<float> a = specialFloats(n, 5), b = specialFloats(n, 6);
      std::vector<uint16_t> dst(n), src(n);
      for (size_t i = 0; i < n; ++i) dst[i] = floatToHalf(a[i] / 4), src[i] = floatToHalf(b[i] / 4);
      for (bool saturate : {false, true}) {
        std::vector<uint16_t> got = dst;
        bool want_overflow = false;
        const bool overflow = reduceInto(got.data(), src.data(), n, HCCL_DATA_TYPE_FP16, op, saturate);
        for (size_t i = 0; i < n; ++i) {
          const float exact = refFloat(halfToFloat(dst[i]), halfToFloat(src[i]), op);
          uint16_t want = floatToHalf(exact);
          if (saturate && (want & 0x7c00) == 0x7c00) {
            want_overflow = true;
            want = (want & 0x3ff) ? 0 : static_cast<uint16_t>((want & 0x8000) | 0x7bff);
          }
          if (std::isnan(halfToFloat(want)))
            ASSERT_TRUE(std::isnan(halfToFloat(got[i]))) << "op " << op << " n " << n << " i " << i;
          else
            ASSERT_EQ(got[i], want) << "op " << op << " n " << n << " i " << i << " saturate " << saturate;
        }
        EXPECT_EQ(overflow, want_overflow) << "op " << op << " n " << n << " saturate " << saturate;
      }
    }
  }
}

TEST(HcclReduceKernel, Bf16RoundsOncePerStepAndNeverSaturates) {
  for (HcclReduceOp op : kOps) {
    for (size_t n : kLengths) {
      std::vector<float> a = specialFloats(n, 7), b = specialFloats(n, 8);
      std::vector<uint16_t> dst(n), src(n);
      for (size_t i = 0; i < n; ++i) dst[i] = floatToBf16(a[i] * 3), src[i] = floatToBf16(b[i] / 3);
      for (bool saturate : {false, true}) {  // the fp16 saturation flag does not apply to bf16
        std::vector<uint16_t> got = dst;
        EXPECT_FALSE(reduceInto(got.data(), src.data(), n, HCCL_DATA_TYPE_BFP16, op, saturate));
        for (size_t i = 0; i < n; ++i) {
          const uint16_t want = floatToBf16(refFloat(bf16ToFloat(dst[i]), bf16ToFloat(src[i]), op));
          if (std::isnan(bf16ToFloat(want)))
            ASSERT_TRUE(std::isnan(bf16ToFloat(got[i]))) << "op " << op << " n " << n << " i " << i;
          else
            ASSERT_EQ(got[i], want) << "op " << op << " n " << n << " i " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hccl
}  // namespace ascend_sim
