// C API: compile options, fp16 overflow status, device capability, profiling
// records and the plan count (acl.h "compile options and numerics", "device
// information", "profiling and compilation records").
#include <cstring>
#include <memory>
#include <string>

#include "ascend_sim/acl_sim.h"
#include "runtime/compile_cache.h"
#include "runtime/compile_options.h"
#include "runtime/error_state.h"
#include "runtime/fault_injection.h"
#include "runtime/model_capture.h"
#include "runtime/op_dump.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

namespace {

void requireOut(const void* p, const char* what) {
  if (!p) throwAcl(ACL_ERROR_INVALID_PARAM, std::string(what) + " must not be null");
}

void checkOpt(aclCompileOpt opt) {
  if (static_cast<int>(opt) < ACL_PRECISION_MODE || static_cast<int>(opt) > ACL_OP_COMPILER_CACHE_DIR)
    throwAcl(ACL_ERROR_INVALID_PARAM, "unsupported compile option " + std::to_string(static_cast<int>(opt)) +
                                          " (supported: ACL_PRECISION_MODE, ACL_OP_JIT_COMPILE, "
                                          "ACL_OP_SELECT_IMPL_MODE, ACL_OPTYPELIST_FOR_IMPLMODE, "
                                          "ACL_OP_COMPILER_CACHE_MODE, ACL_OP_COMPILER_CACHE_DIR)");
}

std::string compileOptValue(aclCompileOpt opt) {
  switch (opt) {
    case ACL_OP_JIT_COMPILE: return jitCompileEnabled() ? "enable" : "disable";
    case ACL_OP_SELECT_IMPL_MODE: return implModeName();
    case ACL_OPTYPELIST_FOR_IMPLMODE: return implModeOpList();
    case ACL_OP_COMPILER_CACHE_MODE: return compilerCacheModeName();
    case ACL_OP_COMPILER_CACHE_DIR: return compilerCacheDir();
    default: return precisionModeName(currentPrecisionMode(Runtime::get().chip()));
  }
}

Device& deviceOf(int32_t id) { return Runtime::get().device(id); }

}  // namespace

extern "C" {

ASCEND_SIM_API aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  return guardApi("aclSetCompileopt", [&] {
    checkOpt(opt);
    if (!value) throwAcl(ACL_ERROR_INVALID_PARAM, "value must not be null");
    switch (opt) {
      case ACL_OP_JIT_COMPILE: setJitCompile(value); break;
      case ACL_OP_SELECT_IMPL_MODE: setImplMode(value); break;
      case ACL_OPTYPELIST_FOR_IMPLMODE: setImplModeOpList(value); break;
      case ACL_OP_COMPILER_CACHE_MODE: setCompilerCacheMode(value); break;
      case ACL_OP_COMPILER_CACHE_DIR: setCompilerCacheDir(value); break;
      default: setPrecisionMode(value); break;
    }
  });
}

ASCEND_SIM_API aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  return guardApi("aclGetCompileopt", [&] {
    checkOpt(opt);
    requireOut(value, "value");
    const std::string text = compileOptValue(opt);
    const char* name = text.c_str();
    const size_t need = text.size() + 1;
    if (length < need)
      throwAcl(ACL_ERROR_INVALID_PARAM, "buffer of " + std::to_string(length) + " bytes is too small for '" +
                                            name + "' (needs " + std::to_string(need) + ")");
    std::memcpy(value, name, need);
  });
}

// The flag is read by a task on the stream (after the stream's earlier work);
// the call then waits for that task, so the value is in the buffer on return.
ASCEND_SIM_API aclError aclrtGetOverflowStatus(void* outputAddr, size_t outputSize, aclrtStream stream) {
  return guardApi("aclrtGetOverflowStatus", [&] {
    requireOut(outputAddr, "outputAddr");
    if (outputSize < sizeof(uint32_t))
      throwAcl(ACL_ERROR_INVALID_PARAM, "outputSize " + std::to_string(outputSize) + " is smaller than 4 bytes");
    Runtime& rt = Runtime::get();
    std::shared_ptr<Stream> s = rt.stream(stream);
    refuseWhileStreamCaptures(*s, "aclrtGetOverflowStatus");  // it waits for the stream
    void* dst = outputAddr;  // host memory, or device memory (written through its host view)
    if (rt.deviceOwning(outputAddr)) dst = rt.resolve(outputAddr, sizeof(uint32_t)).host;
    Device* dev = &rt.device(s->device());
    s->submit(Task{TaskKind::kOp, "GetFloatStatus", [dev, dst](Stream&) {
                     const uint32_t v = dev->overflow() ? 1u : 0u;
                     std::memcpy(dst, &v, sizeof v);
                     return 0.0;
                   }});
    s->waitIdle();
  });
}

ASCEND_SIM_API aclError aclrtResetOverflowStatus(aclrtStream stream) {
  return guardApi("aclrtResetOverflowStatus", [&] {
    Runtime& rt = Runtime::get();
    std::shared_ptr<Stream> s = rt.stream(stream);
    Device* dev = &rt.device(s->device());
    s->submit(Task{TaskKind::kOp, "ClearFloatStatus", [dev](Stream&) {
                     dev->clearOverflow();
                     return 0.0;
                   }});
  });
}

ASCEND_SIM_API aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  return guardApi("aclGetDeviceCapability", [&] {
    requireOut(value, "value");
    Runtime& rt = Runtime::get();
    const int n = rt.deviceCount();
    if (deviceId >= static_cast<uint32_t>(n))
      throwAcl(ACL_ERROR_RT_INVALID_DEVICEID,
               "invalid device id " + std::to_string(deviceId) + " (valid ids are 0.." + std::to_string(n - 1) + ")");
    const ChipConfig& chip = rt.chip();
    switch (deviceInfo) {
      case ACL_DEVICE_INFO_AI_CORE_NUM: *value = chip.cube_cores; break;
      case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = chip.vector_cores; break;
      case ACL_DEVICE_INFO_L2_SIZE: *value = static_cast<int64_t>(chip.l2_bytes); break;
      default:
        throwAcl(ACL_ERROR_INVALID_PARAM, "unknown device info " + std::to_string(static_cast<int>(deviceInfo)) +
                                              " (known: AI_CORE_NUM=0, VECTOR_CORE_NUM=1, L2_SIZE=2)");
    }
  });
}

ASCEND_SIM_API aclError aclsimSetTaskTag(uint64_t hostThreadId, double hostLaunchUs, uint64_t hostLaunchId) {
  HostTag& tag = currentHostTag();
  tag.thread_id = hostThreadId;
  tag.launch_us = hostLaunchUs;
  tag.launch_id = hostLaunchId;
  return ACL_SUCCESS;
}

ASCEND_SIM_API aclError aclsimSetTaskScope(const char* scope) {
  return guardApi("aclsimSetTaskScope", [&] {
    std::shared_ptr<const std::string>& current = currentHostTag().scope;
    if (!scope || !*scope)
      current.reset();
    else if (!current || *current != scope)  // the same scope for many tasks: keep its string
      current = std::make_shared<const std::string>(scope);
  });
}

ASCEND_SIM_API aclError aclmdlInitDump(void) {
  return guardApi("aclmdlInitDump", [&] { OpDump::get().init(); });
}

ASCEND_SIM_API aclError aclmdlSetDump(const char* dumpCfgPath) {
  return guardApi("aclmdlSetDump", [&] {
    if (!dumpCfgPath || !*dumpCfgPath) throwAcl(ACL_ERROR_INVALID_PARAM, "dumpCfgPath must not be null or empty");
    OpDump::get().configure(dumpCfgPath);
  });
}

ASCEND_SIM_API aclError aclmdlFinalizeDump(void) {
  return guardApi("aclmdlFinalizeDump", [&] { OpDump::get().finalize(); });
}

ASCEND_SIM_API aclError aclsimSetProfiling(int32_t deviceId, int enable) {
  return guardApi("aclsimSetProfiling", [&] { deviceOf(deviceId).recorder().setEnabled(enable != 0); });
}

ASCEND_SIM_API aclError aclsimGetTaskRecordCount(int32_t deviceId, size_t* count) {
  return guardApi("aclsimGetTaskRecordCount", [&] {
    requireOut(count, "count");
    *count = deviceOf(deviceId).recorder().size();
  });
}

ASCEND_SIM_API aclError aclsimGetTaskRecords(int32_t deviceId, size_t first, aclsimTaskRecord* records,
                                             size_t* count) {
  return guardApi("aclsimGetTaskRecords", [&] {
    requireOut(count, "count");
    if (*count > 0) requireOut(records, "records");
    std::vector<aclsimTaskRecord> got = deviceOf(deviceId).recorder().exportRange(first, *count);
    if (!got.empty()) std::memcpy(records, got.data(), got.size() * sizeof(aclsimTaskRecord));
    *count = got.size();
  });
}

ASCEND_SIM_API aclError aclsimClearTaskRecords(int32_t deviceId) {
  return guardApi("aclsimClearTaskRecords", [&] { deviceOf(deviceId).recorder().clear(); });
}

ASCEND_SIM_API aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo) {
  return guardApi("aclrtGetDeviceUtilizationRate", [&] {
    requireOut(utilizationInfo, "utilizationInfo");
    *utilizationInfo = deviceOf(deviceId).utilization().takeWindow();
  });
}

ASCEND_SIM_API aclError aclsimInjectFault(const char* spec) {
  return guardApi("aclsimInjectFault", [&] {
    if (!spec) throwAcl(ACL_ERROR_INVALID_PARAM, "spec must not be null");
    FaultInjector::get().add(spec);
  });
}

ASCEND_SIM_API aclError aclrtSetOpExecuteTimeOut(uint32_t timeout) {
  return guardApi("aclrtSetOpExecuteTimeOut",
                  [&] { FaultInjector::get().setOpExecuteTimeoutMs(static_cast<uint64_t>(timeout) * 1000); });
}

ASCEND_SIM_API aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout) {
  return guardApi("aclrtSetOpExecuteTimeOutWithMs", [&] { FaultInjector::get().setOpExecuteTimeoutMs(timeout); });
}

ASCEND_SIM_API aclError aclsimGetHungTaskCount(uint64_t* count) {
  return guardApi("aclsimGetHungTaskCount", [&] {
    requireOut(count, "count");
    *count = FaultInjector::get().hungTasks();
  });
}

ASCEND_SIM_API aclError aclsimClearFaults(void) {
  return guardApi("aclsimClearFaults", [&] { FaultInjector::get().clear(); });
}

ASCEND_SIM_API aclError aclsimGetCompileCount(uint64_t* count) {
  return guardApi("aclsimGetCompileCount", [&] {
    requireOut(count, "count");
    *count = compiledPlanCount();
  });
}

}  // extern "C"
