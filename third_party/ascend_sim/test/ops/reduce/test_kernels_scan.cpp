// Cumsum, Cumprod, CumulativeLogsumexp, Cummax, Cummin against references
// computed here in double (values) or by direct definition (indices).
#include <cmath>
#include <limits>

#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

AttrMap scanAttrs(int64_t axis, bool exclusive = false, bool reverse = false) {
  return attrs({{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}});
}

// Position of element (o, d, i) of an [outer, dim, inner] tensor.
int64_t at3(int64_t o, int64_t d, int64_t i, int64_t dim, int64_t inner) { return (o * dim + d) * inner + i; }

double combine(const std::string& op, double acc, double x) {
  if (op == "Cumsum") return acc + x;
  if (op == "Cumprod") return acc * x;
  const double hi = std::max(acc, x), lo = std::min(acc, x);
  return hi == -INFINITY ? -INFINITY : hi + std::log1p(std::exp(lo - hi));
}
double identity(const std::string& op) { return op == "Cumsum" ? 0 : op == "Cumprod" ? 1 : -INFINITY; }

TEST(KernelScan, ValueScansMatchDoubleOnEveryAxisAndMode) {
  const int64_t A = 3, B = 40, C = 7;
  const auto v = randomFloats(A * B * C, 0.8f, 1.2f, 81);
  for (const std::string op : {"Cumsum", "Cumprod", "CumulativeLogsumexp"}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      HostTensor x = HostTensor::floats(dt, {A, B, C}, v);
      const auto rx = x.toFloats();
      for (int64_t axis : {0, 1, -1}) {
        for (bool exclusive : {false, true}) {
          for (bool reverse : {false, true}) {
            SCOPED_TRACE(op + " dtype " + dtypeName(dt) + " axis " + std::to_string(axis) +
                         (exclusive ? " exclusive" : "") + (reverse ? " reverse" : ""));
            HostTensor y(dt, {A, B, C});
            run(makeCall(op, {&x}, {&y}, scanAttrs(axis, exclusive, reverse)));
            const auto ry = y.toFloats();
            const int64_t ax = axis < 0 ? axis + 3 : axis;
            const int64_t outer = ax == 0 ? 1 : ax == 1 ? A : A * B;
            const int64_t dim = ax == 0 ? A : ax == 1 ? B : C;
            const int64_t inner = ax == 0 ? B * C : ax == 1 ? C : 1;
            for (int64_t o = 0; o < outer; ++o)
              for (int64_t i = 0; i < inner; ++i) {
                double acc = identity(op);
                for (int64_t s = 0; s < dim; ++s) {
                  const int64_t d = reverse ? dim - 1 - s : s;
                  const double next = combine(op, acc, rx[at3(o, d, i, dim, inner)]);
                  const double want = exclusive ? acc : next;
                  acc = next;
                  const double tol =
                      (dt == ACL_FLOAT ? 2e-6 : 2e-3) * (1 + std::fabs(want)) * (op == "Cumprod" ? 4 : 1);
                  if (std::isinf(want)) {  // the exclusive logsumexp starts at -inf
                    ASSERT_EQ(ry[at3(o, d, i, dim, inner)], want);
                    continue;
                  }
                  ASSERT_NEAR(ry[at3(o, d, i, dim, inner)], want, tol) << "at " << o << "," << d << "," << i;
                }
              }
          }
        }
      }
    }
  }
}

TEST(KernelScan, IntegersWrapAndSpecialFloats) {
  HostTensor xi = HostTensor::ints(ACL_INT32, {4}, {2147483647, 1, -5, 3}), yi(ACL_INT32, {4});
  run(makeCall("Cumsum", {&xi}, {&yi}, scanAttrs(0)));
  EXPECT_EQ(yi.toInts(), (std::vector<int64_t>{2147483647, -2147483648LL, 2147483643, 2147483646}));
  HostTensor xl = HostTensor::ints(ACL_INT64, {2, 3}, {1, 2, 3, -1, 4, 0}), yl(ACL_INT64, {2, 3});
  run(makeCall("Cumprod", {&xl}, {&yl}, scanAttrs(1)));
  EXPECT_EQ(yl.toInts(), (std::vector<int64_t>{1, 2, 6, -1, -4, 0}));
  // logcumsumexp: -inf is the identity, +inf absorbs, NaN propagates.
  HostTensor xf = HostTensor::floats(ACL_FLOAT, {5}, {-kInf, -kInf, 0, kInf, kNaN}), yf(ACL_FLOAT, {5});
  run(makeCall("CumulativeLogsumexp", {&xf}, {&yf}, scanAttrs(0)));
  const auto r = yf.toFloats();
  EXPECT_EQ(r[0], -kInf);
  EXPECT_EQ(r[1], -kInf);
  EXPECT_EQ(r[2], 0.0f);
  EXPECT_EQ(r[3], kInf);
  EXPECT_TRUE(std::isnan(r[4]));
  // Large values do not overflow: log(e^100 + e^100) = 100 + log 2.
  HostTensor xb = HostTensor::floats(ACL_FLOAT, {2}, {100, 100}), yb(ACL_FLOAT, {2});
  run(makeCall("CumulativeLogsumexp", {&xb}, {&yb}, scanAttrs(0)));
  EXPECT_NEAR(yb.toFloats()[1], 100 + std::log(2.0), 1e-5);
  // NaN propagates through Cumsum.
  HostTensor xn = HostTensor::floats(ACL_FLOAT, {3}, {1, kNaN, 2}), yn(ACL_FLOAT, {3});
  run(makeCall("Cumsum", {&xn}, {&yn}, scanAttrs(0)));
  EXPECT_EQ(yn.toFloats()[0], 1.0f);
  EXPECT_TRUE(std::isnan(yn.toFloats()[2]));
}

TEST(KernelScan, CummaxCumminTiesNaNAndAxes) {
  const std::vector<float> v = {1, 3, 3, 2, kNaN, 5, kNaN, 0};
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    HostTensor x = HostTensor::floats(dt, {8}, v), y(dt, {8}), i(ACL_INT64, {8});
    run(makeCall("Cummax", {&x}, {&y, &i}, attrs({{"dim", int64_t{0}}})));
    EXPECT_EQ(i.toInts(), (std::vector<int64_t>{0, 1, 2, 2, 4, 4, 6, 6}));
    EXPECT_EQ(y.toFloats()[3], 3.0f);
    EXPECT_TRUE(std::isnan(y.toFloats()[5]));
    run(makeCall("Cummin", {&x}, {&y, &i}, attrs({{"dim", int64_t{-1}}})));
    EXPECT_EQ(i.toInts(), (std::vector<int64_t>{0, 0, 0, 0, 4, 4, 6, 6}));
    EXPECT_EQ(y.toFloats()[2], 1.0f);
  }
  // Against a direct definition on a middle axis; int32 values and indices.
  const int64_t A = 2, B = 30, C = 3;
  const auto r = randomFloats(A * B * C, 0, 6, 82);
  std::vector<int64_t> iv(r.size());
  for (size_t k = 0; k < r.size(); ++k) iv[k] = static_cast<int64_t>(r[k]);  // many ties
  HostTensor xi = HostTensor::ints(ACL_INT32, {A, B, C}, iv), yi(ACL_INT32, {A, B, C}), ii(ACL_INT32, {A, B, C});
  for (const std::string op : {"Cummax", "Cummin"}) {
    run(makeCall(op, {&xi}, {&yi, &ii}, attrs({{"dim", int64_t{1}}})));
    for (int64_t a = 0; a < A; ++a)
      for (int64_t c = 0; c < C; ++c) {
        int64_t best = iv[at3(a, 0, c, B, C)], pos = 0;
        for (int64_t b = 0; b < B; ++b) {
          const int64_t cur = iv[at3(a, b, c, B, C)];
          if (op == "Cummax" ? cur >= best : cur <= best) {
            best = cur;
            pos = b;
          }
          ASSERT_EQ(yi.toInts()[at3(a, b, c, B, C)], best);
          ASSERT_EQ(ii.toInts()[at3(a, b, c, B, C)], pos);
        }
      }
  }
  HostTensor xb = HostTensor::ints(ACL_BOOL, {4}, {0, 1, 0, 1}), yb(ACL_BOOL, {4}), ib(ACL_INT64, {4});
  run(makeCall("Cummax", {&xb}, {&yb, &ib}, attrs({{"dim", int64_t{0}}})));
  EXPECT_EQ(yb.toInts(), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(ib.toInts(), (std::vector<int64_t>{0, 1, 1, 3}));
}

TEST(KernelScan, EmptyAndZeroDimInputs) {
  HostTensor e(ACL_FLOAT, {3, 0}), ye(ACL_FLOAT, {3, 0}), ie(ACL_INT64, {3, 0});
  run(makeCall("Cumsum", {&e}, {&ye}, scanAttrs(1)));
  run(makeCall("Cummin", {&e}, {&ye, &ie}, attrs({{"dim", int64_t{0}}})));
  HostTensor s = HostTensor::floats(ACL_FLOAT, {}, {2.5f}), ys(ACL_FLOAT, {}), is(ACL_INT64, {});
  run(makeCall("Cumprod", {&s}, {&ys}, scanAttrs(0)));
  EXPECT_EQ(ys.toFloats()[0], 2.5f);
  run(makeCall("Cummax", {&s}, {&ys, &is}, attrs({{"dim", int64_t{-1}}})));
  EXPECT_EQ(is.toInts()[0], 0);
}

TEST(KernelScan, Validation) {
  HostTensor x(ACL_FLOAT, {2, 3}), y(ACL_FLOAT, {2, 3}), bad(ACL_FLOAT, {3, 2}), yi(ACL_INT32, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cumsum", {&x}, {&bad}, scanAttrs(0)), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "output y shape [3,2]");
  EXPECT_KERNEL_ERROR(makeCall("Cumsum", {&x}, {&yi}, scanAttrs(0)), ACL_ERROR_OP_INPUT_NOT_MATCH, "int32");
  EXPECT_KERNEL_ERROR(makeCall("Cumprod", {&x}, {&y}, scanAttrs(2)), ACL_ERROR_OP_ATTR_NOT_MATCH, "out of range");
  EXPECT_KERNEL_ERROR(makeCall("Cumsum", {&x}, {&y}, {}), ACL_ERROR_OP_ATTR_NOT_MATCH, "axis");
  HostTensor xi(ACL_INT32, {2, 3}), yi2(ACL_INT32, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("CumulativeLogsumexp", {&xi}, {&yi2}, scanAttrs(0)), ACL_ERROR_OP_UNSUPPORTED_DTYPE,
                      "int32");
  HostTensor xb(ACL_BOOL, {2, 3}), yb(ACL_BOOL, {2, 3});
  EXPECT_KERNEL_ERROR(makeCall("Cumsum", {&xb}, {&yb}, scanAttrs(0)), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "bool");
  HostTensor idx_f(ACL_FLOAT, {2, 3}), idx_short(ACL_INT64, {2});
  EXPECT_KERNEL_ERROR(makeCall("Cummax", {&x}, {&y, &idx_f}, attrs({{"dim", int64_t{0}}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "output indices");
  EXPECT_KERNEL_ERROR(makeCall("Cummax", {&x}, {&y, &idx_short}, attrs({{"dim", int64_t{0}}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "output indices shape [2]");
  EXPECT_KERNEL_ERROR(makeCall("Cummax", {&x}, {&y}, attrs({{"dim", int64_t{0}}})), ACL_ERROR_OP_OUTPUT_NOT_MATCH,
                      "expected 2 outputs");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
