// Helpers for the kernel test suites: host tensors, op calls, and running a
// kernel through the registry exactly as the runtime does (validate, then compute).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/host_isa.h"
#include "common/shape.h"
#include "kernel/kernel.h"

namespace ascend_sim {
namespace test {

class HostTensor {
 public:
  HostTensor(aclDataType dt, Shape shape) : dtype_(dt), shape_(std::move(shape)) {
    buf_.assign(static_cast<size_t>(numelOf(shape_)) * dtypeSize(dt) + 1, 0);
  }
  static HostTensor floats(aclDataType dt, Shape shape, const std::vector<float>& v) {
    HostTensor t(dt, std::move(shape));
    storeFloat(dt, t.data(), 0, static_cast<int64_t>(v.size()), v.data());
    return t;
  }
  static HostTensor ints(aclDataType dt, Shape shape, const std::vector<int64_t>& v) {
    HostTensor t(dt, std::move(shape));
    storeInt(dt, t.data(), 0, static_cast<int64_t>(v.size()), v.data());
    return t;
  }
  TensorArg arg() const {
    TensorArg a;
    a.dtype = dtype_;
    a.format = format_;
    a.shape = shape_;
    a.origin_format = format_;
    a.origin_shape = shape_;
    a.data = const_cast<uint8_t*>(buf_.data());
    a.bytes = buf_.size() - 1;
    return a;
  }
  std::vector<float> toFloats() const {
    std::vector<float> v(static_cast<size_t>(numel()));
    loadFloat(dtype_, buf_.data(), 0, 1, numel(), v.data());
    return v;
  }
  std::vector<int64_t> toInts() const {
    std::vector<int64_t> v(static_cast<size_t>(numel()));
    loadInt(dtype_, buf_.data(), 0, 1, numel(), v.data());
    return v;
  }
  void* data() { return buf_.data(); }
  int64_t numel() const { return numelOf(shape_); }
  aclDataType dtype() const { return dtype_; }
  void setFormat(aclFormat f) { format_ = f; }

 private:
  aclDataType dtype_;
  aclFormat format_ = ACL_FORMAT_ND;
  Shape shape_;
  std::vector<uint8_t> buf_;
};

inline OpCall makeCall(const std::string& op, std::initializer_list<const HostTensor*> ins,
                       std::initializer_list<const HostTensor*> outs, AttrMap attrs = {}) {
  OpCall c;
  c.op_type = op;
  for (const HostTensor* t : ins) c.inputs.push_back(t->arg());
  for (const HostTensor* t : outs) c.outputs.push_back(t->arg());
  c.attrs = std::move(attrs);
  return c;
}

inline const KernelDef& kernel(const std::string& op) {
  const KernelDef* k = findKernel(op);
  if (!k) throw std::runtime_error("no kernel " + op);
  return *k;
}

// Validates and computes; fails the test with the message on error.
inline void run(const OpCall& c) {
  const KernelDef& k = kernel(c.op_type);
  try {
    k.validate(c);
    k.compute(c);
    (void)k.cost(c);
  } catch (const KernelError& e) {
    ADD_FAILURE() << "kernel error " << e.code() << ": " << e.what();
  }
}

struct ErrorResult {
  aclError code = ACL_SUCCESS;
  std::string msg;
};
// Runs validate (and compute when validate passed); returns the KernelError.
inline ErrorResult runExpectError(const OpCall& c) {
  const KernelDef& k = kernel(c.op_type);
  try {
    k.validate(c);
    k.compute(c);
  } catch (const KernelError& e) {
    return {e.code(), e.what()};
  }
  return {};
}

#define EXPECT_KERNEL_ERROR(call, want_code, substr)                              \
  do {                                                                            \
    auto r_ = ::ascend_sim::test::runExpectError(call);                           \
    EXPECT_EQ(r_.code, want_code) << r_.msg;                                      \
    EXPECT_NE(r_.msg.find((call).op_type + ":"), std::string::npos) << r_.msg;    \
    EXPECT_NE(r_.msg.find(substr), std::string::npos) << r_.msg;                  \
  } while (0)

inline AttrMap attrs(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  AttrMap m;
  for (auto& p : kv) m.set(p.first, p.second);
  return m;
}

// Deterministic pseudo-random values in [lo, hi).
inline std::vector<float> randomFloats(size_t n, float lo, float hi, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
  }
  return v;
}

inline float roundTo(aclDataType dt, float v) {
  float r;
  HostTensor t = HostTensor::floats(dt, {1}, {v});
  loadFloat(dt, t.data(), 0, 1, 1, &r);
  return r;
}

// v as `dt` stores it (each element rounded to dt): the values a reference must see.
inline std::vector<float> stored(aclDataType dt, std::vector<float> v) {
  for (float& e : v) e = roundTo(dt, e);
  return v;
}

// The tolerance of a result computed in fp32 and rounded once to `dt`: rel·|ref| + abs, with
// fp16's relative 2e-3 and bf16's 8e-3 (about four and two of their unit roundoffs: the rounding
// plus the error of the fp32 sums before it), and the fp32 figures and the fp16/bf16 absolute
// floor that each kernel's sums need.
inline std::function<double(double)> oneRounding(aclDataType dt, double fp32_rel, double fp32_abs,
                                                 double low_precision_abs = 2e-3) {
  const double rel = dt == ACL_FLOAT16 ? 2e-3 : (dt == ACL_BF16 ? 8e-3 : fp32_rel);
  const double abs = dt == ACL_FLOAT ? fp32_abs : low_precision_abs;
  return [rel, abs](double ref) { return rel * std::fabs(ref) + abs; };
}

// Every got[i] within tol(want[i]) of a reference computed in double.
inline void expectNearReference(const std::vector<float>& got, const std::vector<double>& want,
                                const std::function<double(double)>& tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol(want[i])) << what << " element " << i;
}

// got and want hold the same fp32 bit patterns (-0 differs from 0, NaNs compare by payload).
inline void expectSameBits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want[i], 4);
    ASSERT_EQ(a, b) << what << " at " << i << ": got " << got[i] << " want " << want[i];
  }
}

// Runs fn(level) under every SIMD level this host has, from its own down to
// the portable one (Note [Host SIMD level]), then restores the cap.
inline void forEachHostIsa(const std::function<void(HostIsa)>& fn) {
  const HostIsa previous = capHostIsa(detectedHostIsa());
  for (int level = static_cast<int>(detectedHostIsa()); level >= 0; --level) {
    capHostIsa(static_cast<HostIsa>(level));
    SCOPED_TRACE(std::string("host SIMD level ") + hostIsaName(static_cast<HostIsa>(level)));
    fn(static_cast<HostIsa>(level));
  }
  capHostIsa(previous);
}

}  // namespace test
}  // namespace ascend_sim
