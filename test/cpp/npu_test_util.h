// Shared helpers of the plugin's GoogleTest suites.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/framework/FormatHelper.h"

namespace torch_npu_test {

inline at::Device npu(int index = 0) { return at::Device(at::DeviceType::PrivateUse1, index); }

// Expects |actual - expected| <= atol + rtol * |expected| elementwise, where
// `actual` may live on the NPU (it is copied back first). Same dtype & shape.
inline void expectClose(const at::Tensor& actual, const at::Tensor& expected, double rtol = 1e-4,
                        double atol = 1e-5) {
  at::Tensor a = actual.cpu();
  ASSERT_EQ(a.sizes(), expected.sizes());
  ASSERT_EQ(a.scalar_type(), expected.scalar_type());
  if (a.numel() == 0) return;
  if (!at::isFloatingType(a.scalar_type())) {
    EXPECT_TRUE(at::equal(a, expected)) << "actual:\n" << a << "\nexpected:\n" << expected;
    return;
  }
  at::Tensor ad = a.to(at::kDouble), ed = expected.to(at::kDouble);
  at::Tensor both_nan = at::isnan(ad).logical_and(at::isnan(ed));
  at::Tensor err = (ad - ed).abs().masked_fill(both_nan, 0);
  at::Tensor bound = ed.abs().mul(rtol).add(atol).masked_fill(both_nan, 1);
  const bool ok = err.le(bound).logical_or(ad.eq(ed)).all().item<bool>();
  EXPECT_TRUE(ok) << "max error " << err.max().item<double>() << " (rtol " << rtol << ", atol " << atol
                  << ")\nactual:\n" << a << "\nexpected:\n" << expected;
}

// fp16 results: one rounding of a value computed in fp32 (third_party/ascend_sim/OPS.md, "Numerics").
constexpr double kHalfRtol = 1e-3;
constexpr double kHalfAtol = 1e-3;

// Tolerances of a floating dtype: fp32 defaults, or the fp16 ones.
inline double rtolFor(at::ScalarType t) { return t == at::kHalf ? kHalfRtol : 1e-4; }
inline double atolFor(at::ScalarType t) { return t == at::kHalf ? kHalfAtol : 1e-5; }

using TensorFn = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

// Options of expectSameAutogradWith.
struct AutogradCheck {
  double rtol = 1e-4;
  double atol = 1e-5;
  // Per input: the ACL format its NPU copy is cast to (npu_format_cast), -1 = as copied.
  std::vector<int64_t> npu_formats = {};
  // Called with the NPU output (e.g. to check its storage format).
  std::function<void(const at::Tensor&)> check_npu_out = {};
};

// The custom op npu::npu_format_cast through the dispatcher.
inline at::Tensor npuFormatCast(const at::Tensor& t, int64_t acl_format) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("npu::npu_format_cast", "")
                             .typed<at::Tensor(const at::Tensor&, int64_t)>();
  return op.call(t, acl_format);
}

// Runs `fn` on CPU copies and NPU copies of `inputs` (floating inputs require
// grad), compares the outputs, then backpropagates the same random
// grad_output through both and compares every input's .grad. fp16 inputs
// are compared against the fp32 CPU result rounded once to fp16.
inline void expectSameAutogradWith(const TensorFn& fn, const std::vector<at::Tensor>& inputs,
                                   const AutogradCheck& check) {
  std::vector<at::Tensor> cpu_in, npu_in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = inputs[i];
    const bool grad = at::isFloatingType(t.scalar_type());
    const auto ref_type = t.scalar_type() == at::kHalf ? at::kFloat : t.scalar_type();
    cpu_in.push_back(t.to(ref_type).detach().clone().requires_grad_(grad));
    at::Tensor dev = t.to(npu());
    if (i < check.npu_formats.size() && check.npu_formats[i] >= 0) dev = npuFormatCast(dev, check.npu_formats[i]);
    npu_in.push_back(dev.detach().requires_grad_(grad));
  }
  at::Tensor npu_out = fn(npu_in);
  at::Tensor cpu_out = fn(cpu_in);
  EXPECT_EQ(npu_out.device(), npu());
  if (check.check_npu_out) check.check_npu_out(npu_out);
  expectClose(npu_out, cpu_out.to(npu_out.scalar_type()), check.rtol, check.atol);
  // An op that loses autograd on the NPU (an output with no grad_fn where
  // the CPU has one) is a failure, not a reason to skip the gradients.
  if (!cpu_out.requires_grad()) {
    EXPECT_FALSE(npu_out.requires_grad()) << "the NPU output requires grad but the CPU output does not";
    return;
  }
  ASSERT_TRUE(npu_out.requires_grad()) << "the NPU output lost autograd: it does not require grad, the CPU output does";
  at::Tensor grad_out = at::randn(cpu_out.sizes());
  cpu_out.backward(grad_out.to(cpu_out.scalar_type()).to(npu_out.scalar_type()).to(cpu_out.scalar_type()));
  npu_out.backward(grad_out.to(npu_out.scalar_type()).to(npu()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!cpu_in[i].requires_grad()) continue;
    SCOPED_TRACE("grad of input " + std::to_string(i));
    ASSERT_TRUE(npu_in[i].grad().defined());
    expectClose(npu_in[i].grad(), cpu_in[i].grad().to(inputs[i].scalar_type()), check.rtol, check.atol);
  }
}

inline void expectSameAutograd(const TensorFn& fn, const std::vector<at::Tensor>& inputs, double rtol = 1e-4,
                               double atol = 1e-5) {
  AutogradCheck check;
  check.rtol = rtol;
  check.atol = atol;
  expectSameAutogradWith(fn, inputs, check);
}

// Sets torch_npu::allowInternalFormat() for a scope, then restores it.
class InternalFormatGuard {
 public:
  explicit InternalFormatGuard(bool allow) : saved_(torch_npu::allowInternalFormat()) {
    torch_npu::setAllowInternalFormat(allow);
  }
  ~InternalFormatGuard() { torch_npu::setAllowInternalFormat(saved_); }
  InternalFormatGuard(const InternalFormatGuard&) = delete;
  InternalFormatGuard& operator=(const InternalFormatGuard&) = delete;

 private:
  bool saved_;
};

// Runs `body(allow)` with internal formats allowed, then with them disabled.
inline void forBothFormatModes(const std::function<void(bool)>& body) {
  for (bool allow : {true, false}) {
    SCOPED_TRACE(allow ? "internal formats allowed" : "internal formats disabled");
    InternalFormatGuard guard(allow);
    body(allow);
  }
}

// A check_npu_out expecting `private_format` when internal formats are
// allowed, else a base format (ND/NCHW/NCDHW).
inline std::function<void(const at::Tensor&)> expectFormatWhenAllowed(bool allow, aclFormat private_format) {
  return [allow, private_format](const at::Tensor& t) {
    const aclFormat actual = torch_npu::npuFormatOf(t);
    if (allow) {
      EXPECT_EQ(actual, private_format) << "got " << torch_npu::formatName(actual) << ", expected "
                                        << torch_npu::formatName(private_format);
    } else {
      EXPECT_TRUE(torch_npu::isBaseFormat(actual)) << "got " << torch_npu::formatName(actual)
                                                   << " with internal formats disabled";
    }
  };
}

// dtypes every op-family suite covers.
inline std::vector<at::ScalarType> floatAndHalf() { return {at::kFloat, at::kHalf}; }

// fp16 tolerances doubled: a backward that consumes an fp16-rounded forward
// result (or rounds an fp16 intermediate) is two fp16 roundings away from the
// fp32 reference.
inline double rtolTwoRoundings(at::ScalarType t) { return t == at::kHalf ? 2 * kHalfRtol : 1e-4; }
inline double atolTwoRoundings(at::ScalarType t) { return t == at::kHalf ? 2 * kHalfAtol : 1e-5; }

// Records the device tasks (ops, copies) of device 0 while in scope (the
// simulator's per-op records, torch.npu.op_records in Python).
class OpRecorder {
 public:
  OpRecorder() {
    torch_npu::sim::clearTaskRecords(0);
    torch_npu::sim::setProfiling(0, true);
  }
  ~OpRecorder() {
    torch_npu::sim::setProfiling(0, false);
    torch_npu::sim::clearTaskRecords(0);
  }
  OpRecorder(const OpRecorder&) = delete;
  OpRecorder& operator=(const OpRecorder&) = delete;

  // The op types recorded so far, in launch order (waits for the device).
  std::vector<std::string> opTypes() const {
    std::vector<std::string> types;
    for (const auto& r : torch_npu::sim::taskRecords(0)) types.push_back(r.op_type);
    return types;
  }
  int64_t count(const std::string& op_type) const {
    const auto types = opTypes();
    return std::count(types.begin(), types.end(), op_type);
  }
  std::string summary() const {
    std::string out;
    for (const auto& t : opTypes()) out += (out.empty() ? "" : " ") + t;
    return out;
  }
};

// A custom operator (e.g. "npu::npu_swiglu") through the dispatcher, typed.
template <typename Signature>
c10::TypedOperatorHandle<Signature> npuOp(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

// Expects `stmt` to throw a c10::Error whose message contains every fragment.
#define EXPECT_THROW_WITH(stmt, ...)                                                       \
  do {                                                                                     \
    try {                                                                                  \
      stmt;                                                                                \
      ADD_FAILURE() << "expected an exception from " #stmt;                                \
    } catch (const std::exception& e) {                                                   \
      const std::string msg = e.what();                                                    \
      for (const std::string& frag : std::vector<std::string>{__VA_ARGS__}) {              \
        EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in: " << msg; \
      }                                                                                    \
    }                                                                                      \
  } while (0)

}  // namespace torch_npu_test
