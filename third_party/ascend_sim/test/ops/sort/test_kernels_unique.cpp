// UniqueWithCountsAndSorting and UniqueConsecutive against references
// computed here (std::map of values, run scanning).
#include <cmath>
#include <limits>
#include <map>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

struct UniqueOut {
  HostTensor y, inverse, counts, num;
  UniqueOut(aclDataType dt, Shape y_shape, Shape inverse_shape, int64_t slices)
      : y(dt, std::move(y_shape)),
        inverse(ACL_INT64, std::move(inverse_shape)),
        counts(ACL_INT64, {slices}),
        num(ACL_INT64, {1}) {}
};

void runUnique(const std::string& op, const HostTensor& x, UniqueOut& o, AttrMap a = {}) {
  run(makeCall(op, {&x}, {&o.y, &o.inverse, &o.counts, &o.num}, std::move(a)));
}

TEST(KernelUnique, SortedValuesInverseCountsAgainstMap) {
  const auto r = randomFloats(300, 0, 20, 121);
  std::vector<float> v(r.size());
  for (size_t k = 0; k < r.size(); ++k) v[k] = std::floor(r[k]) - 5;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32}) {
    HostTensor x = dt == ACL_INT32 ? HostTensor::ints(dt, {10, 30}, std::vector<int64_t>(v.begin(), v.end()))
                                   : HostTensor::floats(dt, {10, 30}, v);
    UniqueOut o(dt, {300}, {10, 30}, 300);
    runUnique("UniqueWithCountsAndSorting", x, o, attrs({{"sorted", false}}));
    std::map<float, int64_t> want;
    for (float e : v) ++want[e];
    const int64_t n = o.num.toInts()[0];
    ASSERT_EQ(n, static_cast<int64_t>(want.size()));
    int64_t g = 0;
    for (const auto& kv : want) {
      EXPECT_EQ(o.y.toFloats()[g], kv.first);
      EXPECT_EQ(o.counts.toInts()[g], kv.second);
      ++g;
    }
    for (int64_t k = n; k < 300; ++k) ASSERT_EQ(o.counts.toInts()[k], 0);  // zeroed tail
    for (size_t k = 0; k < v.size(); ++k) ASSERT_EQ(o.y.toFloats()[o.inverse.toInts()[k]], v[k]);
  }
}

TEST(KernelUnique, NaNIsAlwaysUniqueAndZeroDim) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {7}, {3, kNaN, 1, kNaN, 3, -1, 1});
  UniqueOut o(ACL_FLOAT, {7}, {7}, 7);
  runUnique("UniqueWithCountsAndSorting", x, o);
  ASSERT_EQ(o.num.toInts()[0], 5);
  const auto y = o.y.toFloats();
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 3.0f);
  EXPECT_TRUE(std::isnan(y[3]) && std::isnan(y[4]));
  EXPECT_EQ(o.inverse.toInts(), (std::vector<int64_t>{2, 3, 1, 4, 2, 0, 1}));
  EXPECT_EQ(o.counts.toInts(), (std::vector<int64_t>{1, 2, 2, 1, 1, 0, 0}));
  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {4});
  UniqueOut os(ACL_FLOAT, {1}, {}, 1);
  runUnique("UniqueWithCountsAndSorting", s, os);
  EXPECT_EQ(os.num.toInts()[0], 1);
  EXPECT_EQ(os.inverse.toInts()[0], 0);
}

TEST(KernelUnique, EmptyInputsReportNoUniqueElements) {
  for (const std::string op : {"UniqueWithCountsAndSorting", "UniqueConsecutive"}) {
    HostTensor e(ACL_FLOAT, {0});
    UniqueOut o(ACL_FLOAT, {0}, {0}, 0);
    runUnique(op, e, o);
    EXPECT_EQ(o.num.toInts()[0], 0);
    HostTensor e2(ACL_INT32, {0, 3});
    UniqueOut o2(ACL_INT32, {0, 3}, {0}, 0);
    runUnique(op, e2, o2, attrs({{"axis", int64_t{0}}}));
    EXPECT_EQ(o2.num.toInts()[0], 0);
  }
}

TEST(KernelUnique, ConsecutiveRuns) {
  HostTensor x = HostTensor::floats(ACL_FLOAT, {9}, {1, 1, kNaN, kNaN, 2, 2, 2, 1, 1});
  UniqueOut o(ACL_FLOAT, {9}, {9}, 9);
  runUnique("UniqueConsecutive", x, o);
  ASSERT_EQ(o.num.toInts()[0], 5);
  EXPECT_EQ(o.inverse.toInts(), (std::vector<int64_t>{0, 0, 1, 2, 3, 3, 3, 4, 4}));
  EXPECT_EQ(o.counts.toInts(), (std::vector<int64_t>{2, 1, 1, 3, 2, 0, 0, 0, 0}));
  EXPECT_EQ(o.y.toFloats()[3], 2.0f);
  EXPECT_EQ(o.y.toFloats()[4], 1.0f);
}

TEST(KernelUnique, SlicesAlongAnAxis) {
  // x [3, 4, 2], slices along axis 1: slices 0 and 2 are equal, 3 sorts first.
  std::vector<int64_t> v(24);
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 2; ++c) v[(a * 4 + b) * 2 + c] = b == 2 ? a + c : b == 3 ? -1 : a + c + b;
  HostTensor x = HostTensor::ints(ACL_INT64, {3, 4, 2}, v);
  UniqueOut o(ACL_INT64, {3, 4, 2}, {4}, 4);
  runUnique("UniqueWithCountsAndSorting", x, o, attrs({{"axis", int64_t{1}}}));
  ASSERT_EQ(o.num.toInts()[0], 3);
  EXPECT_EQ(o.inverse.toInts(), (std::vector<int64_t>{1, 2, 1, 0}));
  EXPECT_EQ(o.counts.toInts(), (std::vector<int64_t>{1, 2, 1, 0}));
  const auto y = o.y.toInts();
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t c = 0; c < 2; ++c) {
      EXPECT_EQ(y[(a * 4 + 0) * 2 + c], -1);         // slice 3
      EXPECT_EQ(y[(a * 4 + 1) * 2 + c], a + c);      // slices 0, 2
      EXPECT_EQ(y[(a * 4 + 2) * 2 + c], a + c + 1);  // slice 1
    }
  UniqueOut oc(ACL_INT64, {3, 4, 2}, {4}, 4);
  runUnique("UniqueConsecutive", x, oc, attrs({{"axis", int64_t{-2}}}));
  EXPECT_EQ(oc.num.toInts()[0], 4);
  EXPECT_EQ(oc.inverse.toInts(), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(KernelUnique, Validation) {
  HostTensor x(ACL_FLOAT, {2, 3});
  UniqueOut ok(ACL_FLOAT, {6}, {2, 3}, 6);
  UniqueOut bad_y(ACL_FLOAT, {5}, {2, 3}, 6), bad_inv(ACL_FLOAT, {6}, {6}, 6), bad_dt(ACL_INT32, {6}, {2, 3}, 6);
  const std::string op = "UniqueWithCountsAndSorting";
  EXPECT_KERNEL_ERROR(makeCall(op, {&x}, {&bad_y.y, &ok.inverse, &ok.counts, &ok.num}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [5]");
  EXPECT_KERNEL_ERROR(makeCall(op, {&x}, {&ok.y, &bad_inv.inverse, &ok.counts, &ok.num}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output inverse shape [6]");
  EXPECT_KERNEL_ERROR(makeCall(op, {&x}, {&bad_dt.y, &ok.inverse, &ok.counts, &ok.num}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y dtype int32");
  HostTensor num_f(ACL_FLOAT, {1});
  EXPECT_KERNEL_ERROR(makeCall(op, {&x}, {&ok.y, &ok.inverse, &ok.counts, &num_f}), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "output num");
  EXPECT_KERNEL_ERROR(makeCall(op, {&x}, {&ok.y, &ok.inverse, &ok.counts, &ok.num}, attrs({{"axis", int64_t{2}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "out of range");
  HostTensor s(ACL_FLOAT, {});
  UniqueOut os(ACL_FLOAT, {1}, {}, 1);
  EXPECT_KERNEL_ERROR(makeCall(op, {&s}, {&os.y, &os.inverse, &os.counts, &os.num}, attrs({{"axis", int64_t{0}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "at least 1 dim");
  EXPECT_KERNEL_ERROR(makeCall(op, {&x}, {&ok.y, &ok.inverse, &ok.counts}), ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                      "expected 4 outputs");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
