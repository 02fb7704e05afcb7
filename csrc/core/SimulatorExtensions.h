// The one adapter between torch_npu and the simulator's extensions.
//
// Note [One adapter to the simulator]
// ascend_sim/acl.h and ascend_sim/hccl.h declare only what AscendCL and HCCL
// declare; what the simulated device offers beyond them (per-op task records,
// host tags on tasks, the compile count, fault injection, the formats' storage
// shapes, joining an HCCL communicator through a c10d store, aborting one) is
// in ascend_sim/acl_sim.h and ascend_sim/hccl_sim.h (Note [Simulator
// extensions]). This file is the only one in csrc/ that includes those two
// headers: the rest of the plugin calls the functions below, which speak
// torch_npu's types. Built against a real CANN, this adapter is what would be
// replaced (the profiler's records from msprof, the storage shapes from the
// framework's own table), and nothing else.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/util/ArrayRef.h>

#include "ascend_sim/acl.h"
#include "ascend_sim/hccl.h"

namespace torch_npu {
namespace sim {

// ---- per-op task records (torch.npu.op_records) ---------------------------------------------
struct TaskRecord {
  std::string op_type;    // "MatMul", "MemcpyH2D", ...
  std::string shapes;     // "[4,100,50]:FLOAT16:FRACTAL_NZ;..." inputs then "->" outputs
  int32_t stream_id = 0;
  std::string core_type;  // "cube", "vector", "ai_cpu", "dma" or "ai_core"
  double start_us = 0, duration_us = 0;  // simulated
  double cube_ratio = 0, vector_ratio = 0, mte_ratio = 0;
  double bytes = 0, flops = 0;
  uint32_t block_dim = 0;
  uint64_t host_thread_id = 0;
  double host_launch_us = 0;
  uint64_t host_launch_id = 0;
};
// Records are kept while profiling is enabled; taskRecords and clearTaskRecords
// first wait for the device's queued work.
void setProfiling(c10::DeviceIndex device, bool enabled);
std::vector<TaskRecord> taskRecords(c10::DeviceIndex device);
void clearTaskRecords(c10::DeviceIndex device);

// Simulated time (us) at which the current device's submitted work ends (waits for the device).
double currentDeviceSimTimeUs();

// ---- host tags on the tasks the calling thread submits (the task queue's worker) -------------
void setTaskTag(uint64_t host_thread_id, double host_launch_us, uint64_t host_launch_id);
void setTaskScope(const char* scope);  // null or "": none

// ---- op compilation and fault injection -----------------------------------------------------
uint64_t compileCount();
void injectFault(const std::string& spec);
void clearFaults();
uint64_t hungTaskCount();

// ---- formats ----------------------------------------------------------------------------------
const char* formatName(aclFormat format);  // null for an unknown value
// The simulator's format table (aclsimGetFormatInfo), read once: the one list of formats.
struct FormatRow {
  aclFormat format;
  std::string name;
  aclFormat base;
  bool is_private;
  int min_rank, max_rank;
};
const std::vector<FormatRow>& formatTable();
std::vector<int64_t> formatStorageShape(aclFormat format, aclDataType dtype, c10::IntArrayRef sizes);

// ---- HCCL -------------------------------------------------------------------------------------
// The key-value store the ranks rendezvous through while a communicator is set up.
class RendezvousStore {
 public:
  virtual ~RendezvousStore() = default;
  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  // Blocks until `key` exists (at most `timeout`).
  virtual std::vector<uint8_t> get(const std::string& key, std::chrono::milliseconds timeout) = 0;
};
// Joins the communicator of `root_info` as `rank` of `ranks` on the current
// device, exchanging transport addresses through `store` (borrowed for the call).
HcclResult commInitRootInfoStore(uint32_t ranks, const HcclRootInfo& root_info, uint32_t rank,
                                 RendezvousStore& store, uint32_t timeout_ms, HcclComm* comm);
// Fails the communicator's pending and later collectives at once, so that nothing waits for a dead peer.
void commAbort(HcclComm comm);
// The communicator's first failure ("" if none).
std::string commErrorMessage(HcclComm comm);

}  // namespace sim
}  // namespace torch_npu
