// SearchSorted against a linear-scan reference, and Renorm against double.
#include <cmath>
#include <limits>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Insertion position by linear scan: the first i with seq[i] >= v (left) or > v (right).
int64_t linearPosition(const std::vector<float>& seq, float v, bool right) {
  for (size_t i = 0; i < seq.size(); ++i)
    if (right ? seq[i] > v : seq[i] >= v) return static_cast<int64_t>(i);
  return static_cast<int64_t>(seq.size());
}

TEST(KernelSearchSorted, OneDimensionalSequenceWithDuplicates) {
  const std::vector<float> seq = {-2, -1, -1, 0, 0.5f, 0.5f, 0.5f, 3, 7};
  const std::vector<float> vals = {-3, -2, -1, -0.5f, 0, 0.5f, 1, 3, 6.9f, 7, 8, -1, 0.5f};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (bool right : {false, true}) {
      HostTensor s = HostTensor::floats(dt, {9}, seq), v = HostTensor::floats(dt, {13}, vals), out(ACL_INT64, {13});
      run(makeCall("SearchSorted", {&s, &v}, {&out}, attrs({{"right", right}})));
      const auto rs = s.toFloats(), rv = v.toFloats();
      for (size_t i = 0; i < vals.size(); ++i) ASSERT_EQ(out.toInts()[i], linearPosition(rs, rv[i], right)) << i;
    }
  }
  // Values of any shape against a 1-D sequence; int32 output; 0-d value.
  HostTensor s = HostTensor::ints(ACL_INT64, {4}, {1, 3, 5, 7}), v = HostTensor::ints(ACL_INT64, {2, 2}, {0, 3, 6, 9});
  HostTensor out(ACL_INT32, {2, 2});
  run(makeCall("SearchSorted", {&s, &v}, {&out}, attrs({{"right", true}})));
  EXPECT_EQ(out.toInts(), (std::vector<int64_t>{0, 2, 3, 4}));
  HostTensor v0 = HostTensor::ints(ACL_INT64, {}, {4}), out0(ACL_INT64, {});
  run(makeCall("SearchSorted", {&s, &v0}, {&out0}, {}));
  EXPECT_EQ(out0.toInts()[0], 2);
}

TEST(KernelSearchSorted, BatchedRowsNaNAndEmpty) {
  // Each row of values searches its own row of the sequence.
  HostTensor s = HostTensor::floats(ACL_FLOAT, {2, 3}, {1, 2, 3, 10, 20, 30});
  HostTensor v = HostTensor::floats(ACL_FLOAT, {2, 2}, {2.5f, 0, 25, 31}), out(ACL_INT64, {2, 2});
  run(makeCall("SearchSorted", {&s, &v}, {&out}, {}));
  EXPECT_EQ(out.toInts(), (std::vector<int64_t>{2, 0, 2, 3}));
  // NaN values land at the end; NaN in the sequence is sorted last.
  HostTensor sn = HostTensor::floats(ACL_FLOAT, {3}, {1, 2, kNaN});
  HostTensor vn = HostTensor::floats(ACL_FLOAT, {3}, {kNaN, 2, 5}), on(ACL_INT64, {3});
  run(makeCall("SearchSorted", {&sn, &vn}, {&on}, {}));
  EXPECT_EQ(on.toInts(), (std::vector<int64_t>{3, 1, 3}));
  run(makeCall("SearchSorted", {&sn, &vn}, {&on}, attrs({{"right", true}})));
  EXPECT_EQ(on.toInts(), (std::vector<int64_t>{3, 3, 3}));
  // An empty sequence puts everything at 0; empty values give nothing.
  HostTensor se(ACL_FLOAT, {0}), ve = HostTensor::floats(ACL_FLOAT, {2}, {1, 2}), oe(ACL_INT64, {2});
  run(makeCall("SearchSorted", {&se, &ve}, {&oe}, {}));
  EXPECT_EQ(oe.toInts(), (std::vector<int64_t>{0, 0}));
  HostTensor v00(ACL_FLOAT, {0}), o00(ACL_INT64, {0});
  run(makeCall("SearchSorted", {&sn, &v00}, {&o00}, {}));
}

TEST(KernelSearchSorted, Validation) {
  HostTensor s(ACL_FLOAT, {2, 3}), v(ACL_FLOAT, {3, 2}), out(ACL_INT64, {3, 2}), vi(ACL_INT32, {2, 2});
  HostTensor outf(ACL_FLOAT, {3, 2}), bad(ACL_INT64, {2, 3}), s0(ACL_FLOAT, {}), v1(ACL_FLOAT, {2}), o1(ACL_INT64, {2});
  EXPECT_KERNEL_ERROR(makeCall("SearchSorted", {&s, &v}, {&out}, {}), ACL_ERROR_OP_INPUT_NOT_MATCH, "leading dims");
  EXPECT_KERNEL_ERROR(makeCall("SearchSorted", {&s, &vi}, {&bad}, {}), ACL_ERROR_OP_INPUT_NOT_MATCH, "values dtype");
  EXPECT_KERNEL_ERROR(makeCall("SearchSorted", {&v1, &v}, {&outf}, {}), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output out");
  EXPECT_KERNEL_ERROR(makeCall("SearchSorted", {&v1, &v}, {&bad}, {}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output out shape [2,3]");
  EXPECT_KERNEL_ERROR(makeCall("SearchSorted", {&s0, &v1}, {&o1}, {}), ACL_ERROR_OP_INPUT_NOT_MATCH, "at least 1 dim");
}

TEST(KernelRenorm, FactorsAgainstDouble) {
  const int64_t A = 3, B = 4, C = 70;
  const auto v = randomFloats(A * B * C, -2, 2, 111);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {A, B, C}, v);
    const auto rx = x.toFloats();
    for (float p : {1.0f, 2.0f, 3.0f, INFINITY}) {
      for (aclDataType yt : {dt, ACL_FLOAT}) {
        HostTensor y(yt, {1, B, 1});
        const float maxnorm = 5;
        run(makeCall("Renorm", {&x}, {&y}, attrs({{"p", p}, {"dim", int64_t{1}}, {"maxnorm", maxnorm}})));
        for (int64_t b = 0; b < B; ++b) {
          double acc = 0;
          for (int64_t a = 0; a < A; ++a)
            for (int64_t c = 0; c < C; ++c) {
              const double e = std::fabs(rx[(a * B + b) * C + c]);
              acc = std::isinf(p) ? std::max(acc, e) : acc + std::pow(e, p);
            }
          const double norm = std::isinf(p) ? acc : std::pow(acc, 1.0 / p);
          const double want = norm > maxnorm ? maxnorm / (norm + 1e-7) : 1.0;
          ASSERT_NEAR(y.toFloats()[b], want, (yt == ACL_FLOAT ? 1e-5 : 1e-3) * want) << "p " << p << " slice " << b;
        }
      }
    }
  }
  // Slices under maxnorm keep factor 1; empty slices have norm 0.
  HostTensor x = HostTensor::floats(ACL_FLOAT, {2, 2}, {3, 4, 0.1f, 0.1f}), y(ACL_FLOAT, {2, 1});
  run(makeCall("Renorm", {&x}, {&y}, attrs({{"p", 2.0f}, {"dim", int64_t{0}}, {"maxnorm", 1.0f}})));
  EXPECT_NEAR(y.toFloats()[0], 1.0 / 5, 1e-6);
  EXPECT_EQ(y.toFloats()[1], 1.0f);
  HostTensor e(ACL_FLOAT, {3, 0}), ye(ACL_FLOAT, {3, 1});
  run(makeCall("Renorm", {&e}, {&ye}, attrs({{"p", 2.0f}, {"dim", int64_t{0}}, {"maxnorm", 1.0f}})));
  EXPECT_EQ(ye.toFloats(), (std::vector<float>{1, 1, 1}));
}

TEST(KernelRenorm, Validation) {
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 1}), yb(ACL_FLOAT, {2, 3}), yi(ACL_INT32, {2, 1});
  HostTensor xh(ACL_FLOAT16, {2, 3}), yh(ACL_FLOAT16, {2, 1}), x0(ACL_FLOAT, {}), y0(ACL_FLOAT, {});
  auto at = [](float p, float maxnorm) { return attrs({{"p", p}, {"dim", int64_t{0}}, {"maxnorm", maxnorm}}); };
  EXPECT_KERNEL_ERROR(makeCall("Renorm", {&x}, {&y}, at(0, 1)), ACL_ERROR_OP_ATTR_NOT_MATCH, "'p' must be > 0");
  EXPECT_KERNEL_ERROR(makeCall("Renorm", {&x}, {&y}, at(2, -1)), ACL_ERROR_OP_ATTR_NOT_MATCH, "'maxnorm' must be >= 0");
  EXPECT_KERNEL_ERROR(makeCall("Renorm", {&x}, {&yb}, at(2, 1)), ACL_ERROR_OP_INPUT_NOT_MATCH, "output y shape [2,3]");
  EXPECT_KERNEL_ERROR(makeCall("Renorm", {&x}, {&yi}, at(2, 1)), ACL_ERROR_OP_INPUT_NOT_MATCH, "int32");
  EXPECT_KERNEL_ERROR(makeCall("Renorm", {&x}, {&yh}, at(2, 1)), ACL_ERROR_OP_INPUT_NOT_MATCH, "float16");
  EXPECT_KERNEL_ERROR(makeCall("Renorm", {&x0}, {&y0}, at(2, 1)), ACL_ERROR_OP_INPUT_NOT_MATCH, "at least 1 dim");
  run(makeCall("Renorm", {&xh}, {&yh}, at(2, 1)));  // fp16 factors are allowed too
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
