// Python access to the simulated chip's options, overflow status, per-op
// records and compile count (torch.npu.set_option, torch.npu.op_records, ...).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/extension.h>

#include "ascend_sim/acl.h"
#include "csrc/aten/HostFallback.h"
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/OpDump.h"
#include "csrc/core/TaskQueue.h"

namespace py = pybind11;

namespace torch_npu {
namespace {

const char* coreTypeName(aclsimCoreType t) {
  switch (t) {
    case ACL_CORE_CUBE: return "cube";
    case ACL_CORE_VECTOR: return "vector";
    case ACL_CORE_AI_CPU: return "ai_cpu";
    case ACL_CORE_DMA: return "dma";
    default: return "ai_core";
  }
}

py::list taskRecords(int64_t device) {
  const auto index = static_cast<c10::DeviceIndex>(device);
  synchronize(index);
  size_t count = 0;
  NPU_CHECK_ACL(aclsimGetTaskRecordCount(index, &count));
  std::vector<aclsimTaskRecord> records(count);
  if (count > 0) NPU_CHECK_ACL(aclsimGetTaskRecords(index, 0, records.data(), &count));
  py::list out;
  for (size_t i = 0; i < count; ++i) {
    const auto& r = records[i];
    out.append(py::make_tuple(std::string(r.op_type), std::string(r.shapes), r.stream_id, coreTypeName(r.core_type),
                              r.start_us, r.duration_us, r.cube_ratio, r.vector_ratio, r.mte_ratio, r.bytes,
                              r.flops, r.block_dim, r.host_thread_id, r.host_launch_us, r.host_launch_id));
  }
  return out;
}

// The simulator's compile options (the other set_option keys live in torch_npu/npu/options.py).
aclCompileOpt compileOption(const std::string& name) {
  static const std::pair<const char*, aclCompileOpt> kOptions[] = {
      {"ACL_PRECISION_MODE", ACL_PRECISION_MODE},
      {"ACL_OP_JIT_COMPILE", ACL_OP_JIT_COMPILE},
      {"ACL_OP_SELECT_IMPL_MODE", ACL_OP_SELECT_IMPL_MODE},
      {"ACL_OPTYPELIST_FOR_IMPLMODE", ACL_OPTYPELIST_FOR_IMPLMODE},
      {"ACL_OP_COMPILER_CACHE_MODE", ACL_OP_COMPILER_CACHE_MODE},
      {"ACL_OP_COMPILER_CACHE_DIR", ACL_OP_COMPILER_CACHE_DIR},
  };
  std::string names;
  for (const auto& [known, opt] : kOptions) {
    if (name == known) return opt;
    names += std::string(names.empty() ? "" : ", ") + known;
  }
  TORCH_CHECK(false, "unknown NPU option '", name, "'; supported: ", names);
}

std::string getOption(const std::string& name) {
  char value[4096] = {0};
  NPU_CHECK_ACL(aclGetCompileopt(compileOption(name), value, sizeof(value)));
  return value;
}

void setOption(const std::string& name, const std::string& value) {
  const aclCompileOpt opt = compileOption(name);
  // Ops already queued were launched under the old setting: hand them over first.
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) TaskQueue::forDevice(d).drain();
  NPU_CHECK_ACL(aclSetCompileopt(opt, value.c_str()));
}

bool overflowFlag(int64_t device) {
  const auto index = static_cast<c10::DeviceIndex>(device);
  DeviceSwitch guard(index);
  NPUStream stream = getCurrentNPUStream(index);
  TaskQueue::forDevice(index).drain();
  uint32_t status = 0;
  NPU_CHECK_ACL(aclrtGetOverflowStatus(&status, sizeof(status), stream.handle()));
  NPU_CHECK_ACL(aclrtSynchronizeStream(stream.handle()));
  return status != 0;
}

void clearOverflowFlag(int64_t device) {
  const auto index = static_cast<c10::DeviceIndex>(device);
  DeviceSwitch guard(index);
  NPUStream stream = getCurrentNPUStream(index);
  TaskQueue::forDevice(index).drain();
  NPU_CHECK_ACL(aclrtResetOverflowStatus(stream.handle()));
}

int64_t deviceCapability(int64_t device, int64_t which) {
  int64_t value = 0;
  NPU_CHECK_ACL(aclGetDeviceCapability(static_cast<uint32_t>(device), static_cast<aclDeviceInfo>(which), &value));
  return value;
}

}  // namespace

void bindSimulator(py::module& m) {
  m.def("_npu_getOption", &getOption);
  m.def("_npu_setOption", &setOption);
  m.def("_npu_getOverflowFlag", &overflowFlag);
  m.def("_npu_clearOverflowFlag", &clearOverflowFlag);
  m.def("_npu_deviceCapability", &deviceCapability);
  m.def("_npu_setOpProfiling", [](int64_t device, bool enabled) {
    NPU_CHECK_ACL(aclsimSetProfiling(static_cast<int32_t>(device), enabled ? 1 : 0));
  });
  m.def("_npu_opRecords", &taskRecords);
  m.def("_npu_setMemoryReporting", [](bool enabled) { allocator::setMemoryReporting(enabled); });
  m.def("_npu_hostFallbackRecords", [](int64_t device) {
    py::list out;
    for (const auto& r : hostFallbackRecords(static_cast<c10::DeviceIndex>(device)))
      out.append(py::make_tuple(r.op, r.shapes, r.start_us));
    return out;
  });
  m.def("_npu_clearHostFallbackRecords",
        [](int64_t device) { clearHostFallbackRecords(static_cast<c10::DeviceIndex>(device)); });
  m.def("_npu_clearOpRecords", [](int64_t device) {
    synchronize(static_cast<c10::DeviceIndex>(device));
    NPU_CHECK_ACL(aclsimClearTaskRecords(static_cast<int32_t>(device)));
  });
  m.def("_npu_initDump", &initDump);
  m.def("_npu_setDump", &setDump, py::call_guard<py::gil_scoped_release>());
  m.def("_npu_finalizeDump", &finalizeDump, py::call_guard<py::gil_scoped_release>());
  m.def("_npu_setLaunchScope", &setLaunchScope);
  m.def("_npu_injectFault", [](const std::string& spec) { NPU_CHECK_ACL(aclsimInjectFault(spec.c_str())); });
  m.def("_npu_clearFaults", [] { NPU_CHECK_ACL(aclsimClearFaults()); });
  m.def("_npu_setOpExecuteTimeoutMs", [](uint32_t ms) { NPU_CHECK_ACL(aclrtSetOpExecuteTimeOutWithMs(ms)); });
  m.def("_npu_hungTaskCount", [] {
    uint64_t count = 0;
    NPU_CHECK_ACL(aclsimGetHungTaskCount(&count));
    return count;
  });
  m.def("_npu_compileCount", [] {
    uint64_t count = 0;
    NPU_CHECK_ACL(aclsimGetCompileCount(&count));
    return count;
  });
}

}  // namespace torch_npu
