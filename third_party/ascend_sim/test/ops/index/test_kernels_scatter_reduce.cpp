// ScatterElements reductions "mul", "max", "min", "mean" and include_self
// (Note [Scatter reductions]) against a double / int64 reference that
// applies the updates in row-major index order: float, fp16 and integer
// dtypes, duplicates, NaN propagation, floor means, untouched elements,
// empty indices and thread-count independence.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

const char* kReductions[] = {"add", "mul", "max", "min", "mean"};

// data [4, 5], index / updates [3, 5] along axis 0 (many duplicates, row 3 untouched in column 4).
struct Problem {
  Shape data{4, 5}, idx{3, 5};
  std::vector<int64_t> index = {0, 1, 2, 0, 1, 0, 1, 0, 2, 2, 0, 0, 0, 1, 2};
};

double reduceRef(const std::string& r, double a, double b) {
  if (r == "mul") return a * b;
  if (r == "max") return std::isnan(b) ? b : (a < b ? b : a);
  if (r == "min") return std::isnan(b) ? b : (b < a ? b : a);
  return a + b;
}

double identityRef(const std::string& r) {
  if (r == "mul") return 1;
  if (r == "max") return -INFINITY;
  if (r == "min") return INFINITY;
  return 0;
}

std::vector<double> reference(const Problem& p, const std::string& r, bool include_self, const std::vector<double>& data,
                              const std::vector<double>& upd, bool integer) {
  std::vector<double> y = data;
  std::vector<int64_t> count(data.size(), include_self ? 1 : 0);
  if (!include_self)
    for (size_t q = 0; q < p.index.size(); ++q) y[static_cast<size_t>(p.index[q] * 5 + q % 5)] = identityRef(r);
  for (size_t q = 0; q < p.index.size(); ++q) {
    const size_t t = static_cast<size_t>(p.index[q] * 5 + q % 5);
    y[t] = reduceRef(r, y[t], upd[q]);
    ++count[t];
  }
  if (r == "mean")
    for (size_t t = 0; t < y.size(); ++t)
      if (count[t] > 1) y[t] = integer ? std::floor(y[t] / count[t]) : y[t] / count[t];
  return y;
}

OpCall scatterCall(const HostTensor& d, const HostTensor& i, const HostTensor& u, const HostTensor& y, const char* r,
                   bool include_self) {
  return makeCall("ScatterElements", {&d, &i, &u}, {&y},
                  attrs({{"axis", int64_t{0}}, {"reduction", std::string(r)}, {"include_self", include_self}}));
}

}  // namespace

TEST(KernelScatterReduce, FloatReductionsMatchReference) {
  const Problem p;
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    for (const char* r : kReductions) {
      for (bool include_self : {true, false}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " " + r + (include_self ? " include_self" : ""));
        std::vector<float> dv = randomFloats(20, 0.5f, 2.0f, 1), uv = randomFloats(15, -2.0f, 2.0f, 2);
        dv[7] = NAN;   // a NaN accumulator stays for max / min
        uv[4] = NAN;   // a NaN update wins for max / min (target [0, 4])
        const HostTensor d = HostTensor::floats(dt, p.data, dv), u = HostTensor::floats(dt, p.idx, uv);
        const HostTensor i = HostTensor::ints(ACL_INT64, p.idx, p.index);
        HostTensor y(dt, p.data);
        run(scatterCall(d, i, u, y, r, include_self));
        const std::vector<float> ds = d.toFloats(), us = u.toFloats();
        const std::vector<double> want = reference(p, r, include_self, std::vector<double>(ds.begin(), ds.end()),
                                                   std::vector<double>(us.begin(), us.end()), false);
        const std::vector<float> got = y.toFloats();
        for (size_t t = 0; t < want.size(); ++t) {
          if (std::isnan(want[t])) {
            EXPECT_TRUE(std::isnan(got[t])) << t;
            continue;
          }
          const double tol = dt == ACL_FLOAT ? 1e-6 : 1e-3;
          EXPECT_NEAR(got[t], want[t], tol * (1 + std::fabs(want[t]))) << "element " << t;
        }
      }
    }
  }
}

TEST(KernelScatterReduce, IntegerReductionsMatchReference) {
  const Problem p;
  for (aclDataType dt : {ACL_INT32, ACL_INT64}) {
    for (const char* r : kReductions) {
      for (bool include_self : {true, false}) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " " + r + (include_self ? " include_self" : ""));
        std::vector<int64_t> dv(20), uv(15);
        for (size_t k = 0; k < dv.size(); ++k) dv[k] = static_cast<int64_t>(k * 7 % 11) - 5;
        for (size_t k = 0; k < uv.size(); ++k) uv[k] = static_cast<int64_t>(k * 5 % 9) - 4;
        const HostTensor d = HostTensor::ints(dt, p.data, dv), u = HostTensor::ints(dt, p.idx, uv);
        const HostTensor i = HostTensor::ints(ACL_INT32, p.idx, p.index);
        HostTensor y(dt, p.data);
        run(scatterCall(d, i, u, y, r, include_self));
        const std::vector<double> want = reference(p, r, include_self, std::vector<double>(dv.begin(), dv.end()),
                                                   std::vector<double>(uv.begin(), uv.end()), true);
        const std::vector<int64_t> got = y.toInts();
        for (size_t t = 0; t < want.size(); ++t) EXPECT_EQ(got[t], static_cast<int64_t>(want[t])) << "element " << t;
      }
    }
  }
}

TEST(KernelScatterReduce, EmptyIndexAndThreadIndependence) {
  const HostTensor d = HostTensor::floats(ACL_FLOAT, {3, 4}, randomFloats(12, -1, 1, 3));
  const HostTensor i(ACL_INT64, {0, 4}), u(ACL_FLOAT, {0, 4});
  HostTensor y(ACL_FLOAT, {3, 4});
  run(scatterCall(d, i, u, y, "mean", false));
  EXPECT_EQ(y.toFloats(), d.toFloats());
  // 170 updates per row scattered into 17 columns: identical bits on one and all host threads.
  const int64_t cols = 700;
  std::vector<int64_t> idx(static_cast<size_t>(cols * 170));
  for (size_t k = 0; k < idx.size(); ++k) idx[k] = static_cast<int64_t>((k * 31) % 17);
  const HostTensor big_d = HostTensor::floats(ACL_FLOAT16, {cols, 17}, randomFloats(cols * 17, -1, 1, 4));
  const HostTensor di = HostTensor::ints(ACL_INT64, {cols, 170}, idx);
  const HostTensor du = HostTensor::floats(ACL_FLOAT16, {cols, 170}, randomFloats(cols * 170, -1, 1, 5));
  for (const char* r : kReductions) {
    std::vector<std::vector<float>> out;
    for (int threads : {1, 0}) {
      setHostThreadLimitForTesting(threads);
      HostTensor y2(ACL_FLOAT16, {cols, 17});
      run(makeCall("ScatterElements", {&big_d, &di, &du}, {&y2},
                   attrs({{"axis", int64_t{1}}, {"reduction", std::string(r)}, {"include_self", false}})));
      out.push_back(y2.toFloats());
    }
    setHostThreadLimitForTesting(0);
    EXPECT_EQ(out[0], out[1]) << r;
  }
}
