// RandomChoiceWithMask (Note [RandomChoiceWithMask]): valid, distinct
// coordinates of true elements, padding, repeatability with a seed, fresh
// draws without one, and the errors.
#include <set>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

std::vector<int64_t> choose(const HostTensor& x, const Shape& shape, int64_t count, int64_t seed,
                            std::vector<int64_t>* mask) {
  HostTensor y(ACL_INT32, {count, static_cast<int64_t>(shape.size())}), m(ACL_BOOL, {count});
  run(makeCall("RandomChoiceWithMask", {&x}, {&y, &m},
               attrs({{"count", count}, {"seed", seed}, {"seed2", int64_t{0}}})));
  *mask = m.toInts();
  return y.toInts();
}

TEST(KernelRandomChoiceWithMask, DrawsDistinctTruePositionsAndPads) {
  const Shape shape{3, 4, 5};
  std::vector<int64_t> flags(60, 0);
  for (int64_t i : {1, 7, 8, 20, 33, 41, 42, 59}) flags[i] = 1;
  HostTensor x = HostTensor::ints(ACL_BOOL, shape, flags);
  std::vector<int64_t> mask;
  for (int64_t count : {3, 8, 12}) {
    SCOPED_TRACE(count);
    const std::vector<int64_t> y = choose(x, shape, count, 5, &mask);
    std::set<int64_t> seen;
    for (int64_t k = 0; k < count; ++k) {
      const int64_t flat = (y[k * 3] * 4 + y[k * 3 + 1]) * 5 + y[k * 3 + 2];
      if (k < std::min<int64_t>(count, 8)) {
        EXPECT_EQ(mask[k], 1);
        EXPECT_EQ(flags[flat], 1) << "row " << k << " is a false element";
        EXPECT_TRUE(seen.insert(flat).second) << "row " << k << " repeats";
      } else {
        EXPECT_EQ(mask[k], 0);
        EXPECT_EQ(flat, 0) << "padding rows are zero";
      }
    }
  }
  std::vector<int64_t> mask2;
  EXPECT_EQ(choose(x, shape, 5, 9, &mask), choose(x, shape, 5, 9, &mask2)) << "a seed repeats the draw";
  // Without a seed the launches differ: 20 draws of 4 of 8 positions are not all alike.
  std::set<std::vector<int64_t>> draws;
  for (int i = 0; i < 20; ++i) draws.insert(choose(x, shape, 4, 0, &mask));
  EXPECT_GT(draws.size(), 1u);
}

TEST(KernelRandomChoiceWithMask, Errors) {
  HostTensor x(ACL_FLOAT, {4}), y(ACL_INT32, {2, 1}), m(ACL_BOOL, {2});
  EXPECT_KERNEL_ERROR(makeCall("RandomChoiceWithMask", {&x}, {&y, &m}, attrs({{"count", int64_t{2}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "input x");
  HostTensor b(ACL_BOOL, {4});
  EXPECT_KERNEL_ERROR(makeCall("RandomChoiceWithMask", {&b}, {&y, &m}, attrs({{"count", int64_t{0}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "count must be positive");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
