// OneHotD and MaskedFillRange (Note [OneHotD], [MaskedFillRange]) against
// references written here: every axis, out-of-range indices, each of the
// fill forms and dtypes, and the errors and faults.
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

TEST(KernelOneHotD, EveryAxisAndOutOfRangeIndices) {
  const std::vector<int64_t> idx{0, 3, 1, -1, 2, 5};  // -1 and 5 lie outside depth 4
  HostTensor x = HostTensor::ints(ACL_INT32, {2, 3}, idx);
  HostTensor on = HostTensor::floats(ACL_FLOAT, {1}, {2.5f}), off = HostTensor::floats(ACL_FLOAT, {1}, {-1.0f});
  for (int64_t axis : {-1, 0, 1, 2}) {
    SCOPED_TRACE(axis);
    Shape shape{2, 3};
    const int64_t at = axis == -1 ? 2 : axis;
    shape.insert(shape.begin() + at, 4);
    HostTensor y(ACL_FLOAT, shape);
    run(makeCall("OneHotD", {&x, &on, &off}, {&y}, attrs({{"depth", int64_t{4}}, {"axis", axis}})));
    const std::vector<float> got = y.toFloats();
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t d = 0; d < 4; ++d) {
          int64_t pos[3] = {r, c, 0};
          int64_t full[3];
          for (int64_t k = 0, src = 0; k < 3; ++k) full[k] = k == at ? d : pos[src++];
          const int64_t flat = (full[0] * shape[1] + full[1]) * shape[2] + full[2];
          EXPECT_EQ(got[flat], idx[r * 3 + c] == d ? 2.5f : -1.0f) << r << "," << c << "," << d;
        }
  }
  HostTensor y(ACL_FLOAT, {2, 3, 4});
  EXPECT_KERNEL_ERROR(makeCall("OneHotD", {&x, &on, &off}, {&y}, attrs({{"depth", int64_t{4}}, {"axis", int64_t{3}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "axis must lie in [-1, 2]");
  HostTensor half_on = HostTensor::floats(ACL_FLOAT16, {1}, {1.0f});
  EXPECT_KERNEL_ERROR(makeCall("OneHotD", {&x, &half_on, &off}, {&y}, attrs({{"depth", int64_t{4}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "on_value");
}

// The reference of Note [MaskedFillRange] on a float copy of x.
std::vector<float> fillRangeRef(std::vector<float> y, const Shape& s, const std::vector<int64_t>& start,
                                const std::vector<int64_t>& end, const std::vector<float>& value, int64_t ranges,
                                int64_t axis) {
  const int64_t rank = static_cast<int64_t>(s.size());
  const int64_t n1 = rank > 1 ? s[1] : 1, n2 = rank > 2 ? s[2] : 1;
  for (size_t i = 0; i < value.size(); ++i)
    for (int64_t j = 0; j < ranges; ++j)
      for (int64_t k = start[i * ranges + j]; k < end[i * ranges + j]; ++k)
        for (int64_t a = 0; a < s[0]; ++a)
          for (int64_t b = 0; b < n1; ++b)
            for (int64_t c = 0; c < n2; ++c) {
              const int64_t coord[3] = {a, b, c};
              if (coord[axis] != k) continue;
              if (rank > 1 && axis == rank - 1 && a != j) continue;
              y[(a * n1 + b) * n2 + c] = value[i];
            }
  return y;
}

TEST(KernelMaskedFillRange, EveryFormAndDtype) {
  const std::vector<Shape> shapes{{9}, {4, 7}, {4, 3, 6}};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT8})
    for (const Shape& s : shapes)
      for (int64_t axis = 0; axis < static_cast<int64_t>(s.size()); ++axis) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " rank " + std::to_string(s.size()) + " axis " +
                     std::to_string(axis));
        const int64_t numel = numelOf(s), size = s[axis];
        std::vector<float> xv(numel);
        for (int64_t e = 0; e < numel; ++e) xv[e] = static_cast<float>(e % 50 + 1);
        // Two rows of three ranges: one empty, one reaching the end of the axis.
        const std::vector<int64_t> start{0, 2, 1, 1, size - 1, 0}, end{1, 2, 3, 2, size, 1};
        const std::vector<float> value{-3, -7};
        HostTensor x = HostTensor::floats(dt, s, xv), st = HostTensor::ints(ACL_INT32, {2, 3}, start),
                   en = HostTensor::ints(ACL_INT32, {2, 3}, end), v = HostTensor::floats(dt, {2}, value), y(dt, s);
        run(makeCall("MaskedFillRange", {&x, &st, &en, &v}, {&y}, attrs({{"axis", axis}})));
        EXPECT_EQ(y.toFloats(), fillRangeRef(xv, s, start, end, value, 3, axis));
      }
  HostTensor x(ACL_FLOAT, {2, 5}), y(ACL_FLOAT, {2, 5}), v = HostTensor::floats(ACL_FLOAT, {1}, {1});
  HostTensor st = HostTensor::ints(ACL_INT32, {1, 1}, {3}), en = HostTensor::ints(ACL_INT32, {1, 1}, {6});
  EXPECT_KERNEL_ERROR(makeCall("MaskedFillRange", {&x, &st, &en, &v}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "range [3, 6) of start/end[0][0] lies outside [0, 5]");
  HostTensor st3 = HostTensor::ints(ACL_INT32, {1, 3}, {0, 0, 0}), en3 = HostTensor::ints(ACL_INT32, {1, 3}, {1, 1, 1});
  EXPECT_KERNEL_ERROR(makeCall("MaskedFillRange", {&x, &st3, &en3, &v}, {&y}, attrs({{"axis", int64_t{1}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "more than x's first dimension 2");
  HostTensor vi = HostTensor::ints(ACL_INT32, {1}, {1});
  EXPECT_KERNEL_ERROR(makeCall("MaskedFillRange", {&x, &st, &en, &vi}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH, "value");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
