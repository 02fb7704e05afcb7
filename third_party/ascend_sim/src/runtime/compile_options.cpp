#include "runtime/compile_options.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <vector>

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

namespace {
std::atomic<bool> g_high_performance{false};
std::mutex g_impl_list_mu;
std::vector<std::string> g_impl_list;  // empty: the mode applies to every op
}  // namespace

void setImplMode(const std::string& value) {
  if (value != "high_precision" && value != "high_performance")
    throwAcl(ACL_ERROR_INVALID_PARAM,
             "unknown ACL_OP_SELECT_IMPL_MODE value '" + value + "' (valid values: high_precision, high_performance)");
  g_high_performance.store(value == "high_performance");
}

const char* implModeName() { return g_high_performance.load() ? "high_performance" : "high_precision"; }

void setImplModeOpList(const std::string& comma_separated) {
  std::vector<std::string> ops;
  std::stringstream in(comma_separated);
  for (std::string op; std::getline(in, op, ',');) {
    op.erase(0, op.find_first_not_of(" \t"));
    op.erase(op.find_last_not_of(" \t") + 1);
    if (!op.empty()) ops.push_back(op);
  }
  std::lock_guard<std::mutex> lock(g_impl_list_mu);
  g_impl_list = std::move(ops);
}

std::string implModeOpList() {
  std::lock_guard<std::mutex> lock(g_impl_list_mu);
  std::string s;
  for (const std::string& op : g_impl_list) s += (s.empty() ? "" : ",") + op;
  return s;
}

bool highPerformanceFor(const std::string& op_type) {
  if (!g_high_performance.load(std::memory_order_relaxed)) return false;
  std::lock_guard<std::mutex> lock(g_impl_list_mu);
  return g_impl_list.empty() || std::find(g_impl_list.begin(), g_impl_list.end(), op_type) != g_impl_list.end();
}

namespace {
std::atomic<int> g_cache_mode{static_cast<int>(CompilerCacheMode::kEnable)};
std::mutex g_cache_dir_mu;
std::string g_cache_dir;
const char* const kCacheModeNames[] = {"enable", "disable", "force"};
}  // namespace

void setCompilerCacheMode(const std::string& value) {
  for (int m = 0; m < 3; ++m)
    if (value == kCacheModeNames[m]) {
      g_cache_mode.store(m);
      return;
    }
  throwAcl(ACL_ERROR_INVALID_PARAM,
           "unknown ACL_OP_COMPILER_CACHE_MODE value '" + value + "' (valid values: enable, disable, force)");
}

CompilerCacheMode compilerCacheMode() { return static_cast<CompilerCacheMode>(g_cache_mode.load()); }

const char* compilerCacheModeName() { return kCacheModeNames[g_cache_mode.load()]; }

void setCompilerCacheDir(const std::string& dir) {
  struct stat st {};
  if (!dir.empty() && (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
    throwAcl(ACL_ERROR_INVALID_PARAM, "ACL_OP_COMPILER_CACHE_DIR '" + dir + "' is not an existing directory");
  std::lock_guard<std::mutex> lock(g_cache_dir_mu);
  g_cache_dir = dir;
}

std::string compilerCacheDir() {
  std::lock_guard<std::mutex> lock(g_cache_dir_mu);
  return g_cache_dir;
}

void setJitCompile(const std::string& value) {
  if (value != "enable" && value != "disable")
    throwAcl(ACL_ERROR_INVALID_PARAM, "unknown ACL_OP_JIT_COMPILE value '" + value + "' (valid values: enable, disable)");
  g_jit_compile.store(value == "enable");
}

}  // namespace ascend_sim
