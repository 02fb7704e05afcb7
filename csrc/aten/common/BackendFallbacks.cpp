// Note [No silent CPU fallback]
// An aten operator without an NPU kernel must fail loudly, naming the
// operator and the backend, instead of PyTorch's generic "Could not run ...
// 'PrivateUse1'" or, worse, silently running on the CPU. A boxed fallback on
// PrivateUse1 does that. AutogradPrivateUse1 gets a fallthrough, which
// PyTorch 1.13 does not register itself (custom and c10d ops need it).
//
// Opt-in, TORCH_NPU_CPU_FALLBACK=1 makes the same fallback run the operator
// on the CPU instead (PyTorch's cpu_fallback: NPU arguments are copied to the
// host, results and mutated arguments back), warning once per operator; each
// run is kept as a host-fallback record that torch.npu.op_records lists with
// the device's tasks, so a profile shows where a port leaves the device. An
// operator with no CPU kernel either still fails, saying so.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "csrc/aten/common/HostFallback.h"
#include "csrc/core/Env.h"
#include "csrc/core/NPUFunctions.h"

namespace torch_npu {
namespace {

constexpr const char* kFallbackEnv = "TORCH_NPU_CPU_FALLBACK";

std::mutex& fallbackMutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::map<c10::DeviceIndex, std::vector<HostFallbackRecord>>& fallbackRecords() {
  static auto* r = new std::map<c10::DeviceIndex, std::vector<HostFallbackRecord>>();
  return *r;
}

// The device of the first NPU tensor argument (else the current device), and
// the arguments' dtypes and shapes.
std::pair<c10::DeviceIndex, std::string> describeArguments(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const size_t n = op.schema().arguments().size();
  c10::DeviceIndex device = -1;
  std::ostringstream shapes;
  for (size_t i = stack.size() - n; i < stack.size(); ++i) {
    const c10::IValue& v = stack[i];
    if (!v.isTensor() || !v.toTensor().defined()) continue;
    const at::Tensor& t = v.toTensor();
    if (t.device().type() == c10::DeviceType::PrivateUse1 && device < 0) device = t.device().index();
    shapes << (shapes.tellp() > 0 ? "; " : "") << t.scalar_type() << t.sizes();
  }
  return {device < 0 ? current_device() : device, shapes.str()};
}

void notImplementedOnNpu(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string name = c10::toString(op.schema().operator_name());
  TORCH_CHECK_NOT_IMPLEMENTED(envFlag(kFallbackEnv, false), "The operator '", name,
                              "' is not implemented for the NPU backend (torch_npu, device type 'npu'). "
                              "torch.npu.get_supported_ops() lists the operators it implements. Move the tensors "
                              "to the CPU with .cpu() for this operation, or set ", kFallbackEnv,
                              "=1 to run unsupported operators on the CPU automatically.");
  const auto [device, shapes] = describeArguments(op, *stack);
  {
    std::lock_guard<std::mutex> lock(fallbackMutex());
    static std::set<std::string> warned;
    if (warned.insert(name).second) {
      TORCH_WARN("The operator '", name, "' is not implemented for the NPU backend: it runs on the CPU (",
                 kFallbackEnv, "=1), its NPU arguments and results copied between the host and the device.");
    }
  }
  const double start_us = simulatedTimeUs(device);
  try {
    at::native::cpu_fallback(op, stack);
  } catch (const c10::NotImplementedError& e) {
    TORCH_CHECK_NOT_IMPLEMENTED(false, "The operator '", name, "' is not implemented for the NPU backend, and the ",
                                "CPU fallback (", kFallbackEnv, "=1) cannot run it either: ",
                                e.what_without_backtrace());
  }
  std::lock_guard<std::mutex> lock(fallbackMutex());
  fallbackRecords()[device].push_back({name, shapes, start_us});
}

}  // namespace

std::vector<HostFallbackRecord> hostFallbackRecords(c10::DeviceIndex device) {
  std::lock_guard<std::mutex> lock(fallbackMutex());
  return fallbackRecords()[device];
}

void clearHostFallbackRecords(c10::DeviceIndex device) {
  std::lock_guard<std::mutex> lock(fallbackMutex());
  fallbackRecords()[device].clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&notImplementedOnNpu>());
}

TORCH_LIBRARY_IMPL(_, AutogradPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

}  // namespace torch_npu
