// ProcessGroupHCCL: the c10d backend "hccl" on simulated NPUs.
//
// Note [ProcessGroupHCCL]
// One rank per process and one NPU per rank (the device of the tensors; in
// practice torch.npu.set_device(i) before init_process_group). The first
// operation on a device creates that device's communicator: rank 0 makes the
// root info, the c10d Store carries it to the others (Note [HCCL
// rendezvous]), and every rank joins with sim::commInitRootInfoStore.
//
// Every operation is launched the same way (launch()):
//  1. inputs the device cannot read directly (private formats, views) are
//     staged into contiguous base-format tensors on the caller's stream;
//  2. the communicator's stream waits for the caller's stream (event);
//  3. the HCCL call, the end event and the watchdog's completion callback are
//     queued, in order, through the device's task queue;
//  4. every tensor the device touches is record_stream'ed on the
//     communicator's stream, so the caching allocator cannot reuse it early;
//  5. results that need a copy back (staged outputs, list outputs) or a
//     post-step (ReduceOp.AVG) are done on the caller's stream after it waits
//     for the end event.
// Completion, futures and timeouts: Note [When an HCCL work is complete] and
// Note [HCCL watchdog].
//
// Environment (read when the group is created):
//   HCCL_BLOCKING_WAIT=1         work.wait() blocks the host until done (else
//                                stream-ordered, like torch's NCCL backend).
//   HCCL_ASYNC_ERROR_HANDLING    1 (default): when a collective fails or times
//                                out, the watchdog aborts the communicator so
//                                the other ranks fail at once; 0: it does not.
//                                Either way every later call on the group
//                                raises the first error.
//   HCCL_EXEC_TIMEOUT / HCCL_IF_IP / HCCL_ALGO: see ascend_sim/hccl.h.
//   HCCL_WHITELIST_DISABLE       1 (default): any peer may connect. 0: the
//                                local transport address must be listed in the
//                                JSON file HCCL_WHITELIST_FILE ("host_ip").
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ascend_sim/hccl.h"
#include "csrc/core/NPUStream.h"
#include "csrc/distributed/HcclWatchdog.h"
#include "csrc/distributed/WorkHCCL.h"

namespace torch_npu {
namespace distributed {

struct NamedComm;

class ProcessGroupHCCL : public c10d::ProcessGroup {
 public:
  ProcessGroupHCCL(c10::intrusive_ptr<c10d::Store> store, int rank, int size, std::chrono::milliseconds timeout);
  ~ProcessGroupHCCL() override;
  // Called when the last strong reference goes while the name registry still holds weak ones: forgets the
  // names, which drops those, so that the group is destroyed now (Note [HCCL communicator names]).
  void release_resources() override;

  const std::string getBackendName() const override { return "hccl"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_split_sizes,
                                               std::vector<int64_t>& input_split_sizes,
                                               const c10d::AllToAllOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts = {}) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  void startCoalescing() override;
  void endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>>& reqs) override;

  void setSequenceNumberForGroup() override {}
  uint64_t getSequenceNumberForGroup() override;

  std::chrono::milliseconds timeout() const { return timeout_; }
  // The name of this process's communicator on the current NPU (created if needed: every rank must
  // ask), for torch_npu's fused matmul-communication ops (Note [HCCL communicator names]). rank_id is
  // taken as torch_npu takes it (this process's rank) and only checked to be non-negative.
  std::string getHcclCommName(int64_t rank_id);
  // The communicator named for `device` (Note [HCCL communicator names]); raises naming `op` if the group
  // failed earlier.
  NamedComm namedComm(c10::DeviceIndex device, const char* op);

 private:
  struct Comm {
    HcclComm handle = nullptr;
    NPUStream stream;
    NPUStream future_stream;  // where the works' futures record their completion (WorkHCCL.h)
    std::string name{};       // registered once asked for (getHcclCommName)
  };

  // One device task: what it reads and writes, and the HCCL call itself.
  struct Launch {
    const char* name;              // "all_reduce"
    c10d::OpType type;
    c10::DeviceIndex device;
    std::vector<at::Tensor> touched;  // tensors the device reads or writes
    std::function<HcclResult(HcclComm, aclrtStream)> call;
    std::vector<at::Tensor> results;  // what work.result() / the future return
    std::function<void()> after{};    // on the caller's stream after the end event (may be empty)
    std::chrono::milliseconds timeout{-1};  // opts.timeout (unset: the group's)
    bool block_host_on_wait = false;  // barrier (every work with HCCL_BLOCKING_WAIT=1)
  };

  c10::intrusive_ptr<WorkHCCL> launch(Launch l);
  // send/recv: launched at once, or collected between start/endCoalescing.
  c10::intrusive_ptr<c10d::Work> pointToPoint(Launch l, HcclSendRecvItem item);
  c10::intrusive_ptr<WorkHCCL> makeWork(const Launch& l);
  void enqueue(const Launch& l, Comm& comm, std::vector<c10::intrusive_ptr<WorkHCCL>> works);
  Comm& commFor(c10::DeviceIndex device);
  void checkUsable(const char* op);
  void onFailure(const std::string& message);

  c10::intrusive_ptr<c10d::Store> store_;
  const std::chrono::milliseconds timeout_;
  const bool async_error_handling_;
  const bool blocking_wait_;  // HCCL_BLOCKING_WAIT

  std::mutex mu_;  // comms_, error_, seq_
  std::unordered_map<c10::DeviceIndex, std::unique_ptr<Comm>> comms_;
  uint64_t comm_count_ = 0;
  uint64_t seq_ = 0;
  std::string error_;

  // batch_isend_irecv: send/recv between startCoalescing and endCoalescing.
  bool coalescing_ = false;
  std::vector<std::pair<Launch, HcclSendRecvItem>> coalesced_;
  std::vector<c10::intrusive_ptr<WorkHCCL>> coalesced_works_;

  std::unique_ptr<HcclWatchdog> watchdog_;  // last: stopped first
};

// A named communicator as an op uses it; `group` keeps it alive meanwhile.
struct NamedComm {
  c10::intrusive_ptr<ProcessGroupHCCL> group;
  HcclComm handle;
  NPUStream stream;  // the group's communication stream on `device`
  c10::DeviceIndex device;
  int rank;
  int size;
};

}  // namespace distributed
}  // namespace torch_npu
