// fp16 elementwise ops that run on their bits (Note [fp16 ops on their bits]
// in src/ops/pointwise/elementwise.cpp) against the fp32 path: every fp16 bit pattern
// through Relu, out of place and in place, on an IEEE and on a saturating
// chip (910A: ±inf -> ±65504, NaN -> 0, and the overflow flag).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

// All 65536 fp16 patterns.
HostTensor everyHalf() {
  HostTensor t(ACL_FLOAT16, {65536});
  auto* h = static_cast<uint16_t*>(t.data());
  for (int i = 0; i < 65536; ++i) h[i] = static_cast<uint16_t>(i);
  return t;
}

std::vector<uint16_t> bitsOf(HostTensor& t) {
  std::vector<uint16_t> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data(), v.size() * sizeof(uint16_t));
  return v;
}

// The fp32 path's result for one pattern: relu in fp32, one rounding back, then the chip's saturation.
uint16_t expectedRelu(uint16_t h, bool saturate, bool* overflow) {
  const float x = halfToFloat(h);
  const float r = x > 0 ? x : (x != x ? x : 0.0f);
  uint16_t out = floatToHalf(r);
  if (saturate && (out & 0x7c00) == 0x7c00) {
    *overflow = true;
    out = (out & 0x03ff) ? uint16_t{0} : static_cast<uint16_t>((out & 0x8000) | 0x7bff);
  }
  return out;
}

TEST(KernelFp16Bits, ReluEqualsTheFp32PathOnEveryPattern) {
  for (bool saturate : {false, true}) {
    for (bool in_place : {false, true}) {
      SCOPED_TRACE(std::string(saturate ? "saturating" : "IEEE") + (in_place ? ", in place" : ""));
      HostTensor x = everyHalf(), y(ACL_FLOAT16, {65536});
      OpCall call = in_place ? makeCall("Relu", {&x}, {&x}) : makeCall("Relu", {&x}, {&y});
      bool overflow = false;
      call.ctx.fp16_saturation = saturate;
      call.ctx.overflow = &overflow;
      run(call);
      const std::vector<uint16_t> got = bitsOf(in_place ? x : y);
      bool want_overflow = false;
      for (int i = 0; i < 65536; ++i)
        ASSERT_EQ(got[i], expectedRelu(static_cast<uint16_t>(i), saturate, &want_overflow)) << "pattern " << i;
      EXPECT_EQ(overflow, want_overflow);
      EXPECT_EQ(overflow, saturate);  // +inf is among the patterns
    }
  }
}

}  // namespace
