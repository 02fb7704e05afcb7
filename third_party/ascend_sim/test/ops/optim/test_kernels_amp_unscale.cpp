// ForeachNonFiniteCheckAndUnscale (OPS.md "Optimizers") against a reference
// computed here: products rounded once to each gradient's dtype, found_inf
// raised by any inf or NaN and otherwise kept.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

HostTensor one(float v) { return HostTensor::floats(ACL_FLOAT, {1}, {v}); }

TEST(KernelAmpUnscale, UnscalesEveryGradientAndFindsNonFinite) {
  const auto a = randomFloats(5000, -100, 100, 1), b = randomFloats(37, -100, 100, 2);
  HostTensor ga = HostTensor::floats(ACL_FLOAT, {5000}, a), gb = HostTensor::floats(ACL_FLOAT16, {37}, b);
  HostTensor found = one(0), inv = one(0.125f);
  run(makeCall("ForeachNonFiniteCheckAndUnscale", {&ga, &gb, &found, &inv}, {&ga, &gb, &found}));
  EXPECT_EQ(found.toFloats()[0], 0.0f);
  const auto got_a = ga.toFloats(), got_b = gb.toFloats();
  const auto b16 = HostTensor::floats(ACL_FLOAT16, {37}, b).toFloats();  // the fp16 inputs as stored
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(got_a[i], a[i] * 0.125f) << i;
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(got_b[i], b16[i] * 0.125f) << i;
  for (float bad : {INFINITY, -INFINITY, NAN}) {
    std::vector<float> v(300, 1.0f);
    v[299] = bad;
    HostTensor g = HostTensor::floats(ACL_FLOAT16, {300}, v), f = one(0), keep = one(0.5f), inv2 = one(0.5f);
    run(makeCall("ForeachNonFiniteCheckAndUnscale", {&g, &f, &inv2}, {&g, &f}));
    EXPECT_EQ(f.toFloats()[0], 1.0f) << bad;
    HostTensor fine = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, 3});
    run(makeCall("ForeachNonFiniteCheckAndUnscale", {&fine, &keep, &inv2}, {&fine, &keep}));
    EXPECT_EQ(keep.toFloats()[0], 0.5f) << "found_inf keeps its value";
  }
}

TEST(KernelAmpUnscale, Validation) {
  HostTensor g(ACL_FLOAT, {4}), found = one(0), inv = one(1), i32(ACL_INT32, {4});
  EXPECT_KERNEL_ERROR(makeCall("ForeachNonFiniteCheckAndUnscale", {&found, &inv}, {&found}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "expects gradients");
  EXPECT_KERNEL_ERROR(makeCall("ForeachNonFiniteCheckAndUnscale", {&i32, &found, &inv}, {&i32, &found}),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "gradient 0");
  HostTensor two(ACL_FLOAT, {2});
  EXPECT_KERNEL_ERROR(makeCall("ForeachNonFiniteCheckAndUnscale", {&g, &found, &two}, {&g, &found}),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "inv_scale must hold one value");
}

}  // namespace
