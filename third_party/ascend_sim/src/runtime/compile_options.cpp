#include "runtime/compile_options.h"

#include <atomic>

#include "runtime/error_state.h"

namespace ascend_sim {

namespace {
constexpr int kUnset = -1;
std::atomic<int> g_precision{kUnset};  // a PrecisionMode, or kUnset (= preset default)
std::atomic<bool> g_jit_compile{true};

const PrecisionMode kModes[] = {PrecisionMode::kAllowFp32ToFp16, PrecisionMode::kMustKeepOriginDtype,
                                PrecisionMode::kForceFp16};
}  // namespace

const char* precisionModeName(PrecisionMode m) {
  switch (m) {
    case PrecisionMode::kAllowFp32ToFp16: return "allow_fp32_to_fp16";
    case PrecisionMode::kMustKeepOriginDtype: return "must_keep_origin_dtype";
    case PrecisionMode::kForceFp16: return "force_fp16";
  }
  return "unknown";
}

PrecisionMode currentPrecisionMode(const ChipConfig& chip) {
  const int v = g_precision.load(std::memory_order_relaxed);
  if (v != kUnset) return static_cast<PrecisionMode>(v);
  return chip.default_fp32_to_fp16 ? PrecisionMode::kAllowFp32ToFp16 : PrecisionMode::kMustKeepOriginDtype;
}

void setPrecisionMode(const std::string& name) {
  std::string valid;
  for (PrecisionMode m : kModes) {
    if (name == precisionModeName(m)) {
      g_precision.store(static_cast<int>(m));
      return;
    }
    valid += std::string(valid.empty() ? "" : ", ") + precisionModeName(m);
  }
  throwAcl(ACL_ERROR_INVALID_PARAM, "unknown ACL_PRECISION_MODE value '" + name + "' (valid values: " + valid + ")");
}

bool jitCompileEnabled() { return g_jit_compile.load(std::memory_order_relaxed); }

void setJitCompile(const std::string& value) {
  if (value != "enable" && value != "disable")
    throwAcl(ACL_ERROR_INVALID_PARAM, "unknown ACL_OP_JIT_COMPILE value '" + value + "' (valid values: enable, disable)");
  g_jit_compile.store(value == "enable");
}

}  // namespace ascend_sim
