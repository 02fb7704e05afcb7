// Helpers of the pointwise math and activation kernel suites
// (test_kernels_pointwise_math.cpp, test_kernels_elu_softplus_shrink.cpp):
// running a 1-D elementwise op on value vectors, comparing against double
// references with fp32/fp16 tolerances, and the private-format check.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {

// v rounded to dt (as a dt tensor would hold it).
inline std::vector<float> roundedTo(aclDataType dt, const std::vector<float>& v) {
  return HostTensor::floats(dt, {static_cast<int64_t>(v.size())}, v).toFloats();
}

// op over 1-D float inputs of equal length (dtype dt), output dt.
inline std::vector<float> runFloatOp(const std::string& op, aclDataType dt, const std::vector<std::vector<float>>& ins,
                                     AttrMap a = {}) {
  const int64_t n = static_cast<int64_t>(ins[0].size());
  std::vector<HostTensor> ts;
  for (const auto& v : ins) ts.push_back(HostTensor::floats(dt, {n}, v));
  HostTensor y(dt, {n});
  OpCall c;
  c.op_type = op;
  for (const auto& t : ts) c.inputs.push_back(t.arg());
  c.outputs.push_back(y.arg());
  c.attrs = std::move(a);
  run(c);
  return y.toFloats();
}

// op over 1-D integer inputs (dtype dt), output out_dt (default dt).
inline std::vector<int64_t> runIntOp(const std::string& op, aclDataType dt,
                                     const std::vector<std::vector<int64_t>>& ins,
                                     aclDataType out_dt = ACL_DT_UNDEFINED) {
  const int64_t n = static_cast<int64_t>(ins[0].size());
  std::vector<HostTensor> ts;
  for (const auto& v : ins) ts.push_back(HostTensor::ints(dt, {n}, v));
  HostTensor y(out_dt == ACL_DT_UNDEFINED ? dt : out_dt, {n});
  OpCall c;
  c.op_type = op;
  for (const auto& t : ts) c.inputs.push_back(t.arg());
  c.outputs.push_back(y.arg());
  run(c);
  return y.toInts();
}

// A float-input, bool-output op, as 0/1.
inline std::vector<int64_t> runToBool(const std::string& op, aclDataType dt, const std::vector<float>& x) {
  const int64_t n = static_cast<int64_t>(x.size());
  HostTensor xt = HostTensor::floats(dt, {n}, x), y(ACL_BOOL, {n});
  run(makeCall(op, {&xt}, {&y}));
  return y.toInts();
}

// fp32: a few ulps of the C library (4e-6 relative) plus 1e-6·abs_scale;
// fp16: `roundings` fp16 roundings of the exact value plus fp32 slack.
inline void expectNear(aclDataType dt, const std::vector<float>& got, const std::vector<double>& want,
                       double abs_scale = 1.0, double roundings = 1.0) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << "element " << i;
      continue;
    }
    if (std::isinf(want[i])) {
      ASSERT_EQ(got[i], want[i]) << "element " << i;
      continue;
    }
    const double a = std::fabs(want[i]);
    double tol = 4e-6 * a + 1e-6 * abs_scale;
    if (dt == ACL_FLOAT16) {
      const double ulp = a < 6.103515625e-05 ? 5.960464477539063e-08 : std::ldexp(1.0, std::ilogb(a) - 10);
      tol += roundings * ulp;
    }
    ASSERT_LE(std::fabs(got[i] - want[i]), tol)
        << dtypeName(dt) << " element " << i << " want " << want[i] << " got " << got[i];
  }
}

// A float32 [2,19,3,5] tensor in NC1HWC0 holding `v`, with 0xAB garbage in the pads.
struct PrivateTensor {
  TensorArg arg;
  std::shared_ptr<std::vector<uint8_t>> buf;
  StorageMap map;
};
inline PrivateTensor nc1hwc0(const Shape& logical, const std::vector<float>& v) {
  PrivateTensor t;
  Shape storage;
  std::string err;
  EXPECT_TRUE(formatStorageShape(ACL_FORMAT_NC1HWC0, ACL_FLOAT, logical, &storage, &err)) << err;
  EXPECT_TRUE(makeStorageMap(ACL_FORMAT_NC1HWC0, ACL_FLOAT, logical, &t.map, &err)) << err;
  t.buf = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(numelOf(storage)) * 4 + 1, 0xAB);
  t.arg.dtype = ACL_FLOAT;
  t.arg.format = ACL_FORMAT_NC1HWC0;
  t.arg.shape = storage;
  t.arg.origin_format = ACL_FORMAT_NCHW;
  t.arg.origin_shape = logical;
  t.arg.data = t.buf->data();
  t.arg.bytes = t.buf->size() - 1;
  storeLogicalFloat(t.arg, t.map, v.data());
  return t;
}

// `op` with `nin` inputs on NC1HWC0 operands gives the ND result's bits, with zero output pads.
inline void expectPrivateFormatMatchesNd(const std::string& op, const AttrMap& a, int nin) {
  SCOPED_TRACE(op + " on NC1HWC0");
  const Shape logical = {2, 19, 3, 5};
  const int64_t n = numelOf(logical);
  std::vector<std::vector<float>> vals;
  for (int k = 0; k < nin; ++k) vals.push_back(randomFloats(static_cast<size_t>(n), 0.05f, 0.95f, 20 + k));
  std::vector<HostTensor> nd;
  for (const auto& v : vals) nd.push_back(HostTensor::floats(ACL_FLOAT, logical, v));
  HostTensor ynd(ACL_FLOAT, logical);
  OpCall cn;
  cn.op_type = op;
  for (const auto& t : nd) cn.inputs.push_back(t.arg());
  cn.outputs.push_back(ynd.arg());
  cn.attrs = a;
  run(cn);
  std::vector<PrivateTensor> priv;
  for (const auto& v : vals) priv.push_back(nc1hwc0(logical, v));
  PrivateTensor y5 = nc1hwc0(logical, std::vector<float>(static_cast<size_t>(n), 0));
  OpCall c5;
  c5.op_type = op;
  for (const auto& t : priv) c5.inputs.push_back(t.arg);
  c5.outputs.push_back(y5.arg);
  c5.attrs = a;
  run(c5);
  std::vector<float> back(static_cast<size_t>(n));
  loadLogicalFloat(y5.arg, y5.map, back.data());
  EXPECT_EQ(std::memcmp(back.data(), ynd.toFloats().data(), static_cast<size_t>(n) * 4), 0);
  std::vector<uint8_t> copy = *y5.buf;
  TensorArg c = y5.arg;
  c.data = copy.data();
  zeroPads(c, y5.map);
  EXPECT_EQ(copy, *y5.buf) << "pads not zero";
}

}  // namespace test
}  // namespace ascend_sim
