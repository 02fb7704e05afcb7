#include "csrc/core/SimulatorExtensions.h"

#include "ascend_sim/acl_sim.h"
#include "ascend_sim/hccl_sim.h"
#include "csrc/core/Logging.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"

namespace torch_npu {
namespace sim {
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

// The simulator's C callbacks over a RendezvousStore (HcclSimStore).
int storeSet(void* ctx, const char* key, const void* value, size_t size) {
  try {
    const auto* bytes = static_cast<const uint8_t*>(value);
    static_cast<RendezvousStore*>(ctx)->set(key, std::vector<uint8_t>(bytes, bytes + size));
    return 0;
  } catch (const std::exception& e) {
    NPU_LOGE("HCCL rendezvous: store set of '{}' failed: {}", key, e.what());
    return 1;
  }
}

int storeGet(void* ctx, const char* key, uint32_t timeout_ms, void (*sink)(void*, const void*, size_t),
             void* sink_ctx) {
  try {
    const std::vector<uint8_t> value =
        static_cast<RendezvousStore*>(ctx)->get(key, std::chrono::milliseconds(timeout_ms));
    sink(sink_ctx, value.data(), value.size());
    return 0;
  } catch (const std::exception& e) {
    NPU_LOGE("HCCL rendezvous: store get of '{}' failed: {}", key, e.what());
    return 1;
  }
}

}  // namespace

void setProfiling(c10::DeviceIndex device, bool enabled) {
  NPU_CHECK_ACL(aclsimSetProfiling(device, enabled ? 1 : 0));
}

std::vector<TaskRecord> taskRecords(c10::DeviceIndex device) {
  synchronize(device);
  size_t count = 0;
  NPU_CHECK_ACL(aclsimGetTaskRecordCount(device, &count));
  std::vector<aclsimTaskRecord> raw(count);
  if (count > 0) NPU_CHECK_ACL(aclsimGetTaskRecords(device, 0, raw.data(), &count));
  std::vector<TaskRecord> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const aclsimTaskRecord& r = raw[i];
    out.push_back(TaskRecord{r.op_type, r.shapes, r.stream_id, coreTypeName(r.core_type), r.start_us,
                             r.duration_us, r.cube_ratio, r.vector_ratio, r.mte_ratio, r.bytes, r.flops,
                             r.block_dim, r.host_thread_id, r.host_launch_us, r.host_launch_id});
  }
  return out;
}

void clearTaskRecords(c10::DeviceIndex device) {
  synchronize(device);
  NPU_CHECK_ACL(aclsimClearTaskRecords(device));
}

double currentDeviceSimTimeUs() {
  double us = 0;
  NPU_CHECK_ACL(aclsimGetDeviceSimTime(&us));
  return us;
}

void setTaskTag(uint64_t host_thread_id, double host_launch_us, uint64_t host_launch_id) {
  aclsimSetTaskTag(host_thread_id, host_launch_us, host_launch_id);
}

void setTaskScope(const char* scope) { aclsimSetTaskScope(scope); }

uint64_t compileCount() {
  uint64_t count = 0;
  NPU_CHECK_ACL(aclsimGetCompileCount(&count));
  return count;
}

void injectFault(const std::string& spec) { NPU_CHECK_ACL(aclsimInjectFault(spec.c_str())); }

void clearFaults() { NPU_CHECK_ACL(aclsimClearFaults()); }

uint64_t hungTaskCount() {
  uint64_t count = 0;
  NPU_CHECK_ACL(aclsimGetHungTaskCount(&count));
  return count;
}

const char* formatName(aclFormat format) { return aclsimGetFormatName(format); }

const std::vector<FormatRow>& formatTable() {
  static const std::vector<FormatRow> rows = [] {
    std::vector<FormatRow> r;
    for (size_t i = 0; i < aclsimGetFormatCount(); ++i) {
      aclsimFormatInfo info;
      NPU_CHECK_ACL(aclsimGetFormatInfo(i, &info));
      r.push_back({info.format, info.name, info.baseFormat, info.isPrivate != 0, info.minRank, info.maxRank});
    }
    return r;
  }();
  return rows;
}

std::vector<int64_t> formatStorageShape(aclFormat format, aclDataType dtype, c10::IntArrayRef sizes) {
  int64_t dims[ACL_MAX_DIM_CNT];
  int num_dims = 0;
  NPU_CHECK_ACL(
      aclsimGetFormatStorageShape(format, dtype, static_cast<int>(sizes.size()), sizes.data(), &num_dims, dims));
  return std::vector<int64_t>(dims, dims + num_dims);
}

HcclResult commInitRootInfoStore(uint32_t ranks, const HcclRootInfo& root_info, uint32_t rank,
                                 RendezvousStore& store, uint32_t timeout_ms, HcclComm* comm) {
  const HcclSimStore callbacks{&store, &storeSet, &storeGet};
  const HcclSimCommConfig config{timeout_ms, nullptr, nullptr};
  return HcclSimCommInitRootInfoStore(ranks, &root_info, rank, &callbacks, &config, comm);
}

void commAbort(HcclComm comm) { HcclSimCommAbort(comm); }

std::string commErrorMessage(HcclComm comm) {
  char message[1024] = {0};
  HcclSimGetCommErrorMessage(comm, message, sizeof(message));
  return message;
}

}  // namespace sim
}  // namespace torch_npu
