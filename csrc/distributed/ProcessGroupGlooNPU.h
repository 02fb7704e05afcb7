// The "gloo" backend with NPU tensors: gloo's own collectives, staged through host memory.
//
// Note [gloo with NPU tensors]
// gloo moves CPU memory (and, in a CUDA build, stages CUDA tensors through pinned host memory);
// given an NPU tensor it stops with "ProcessGroupGloo::allreduce: unsupported device type npu".
// Scripts written for CUDA use gloo with device tensors (pytorch/examples' DDP example does), and
// DDP on gloo calls it from C++ (parameter checks, buffer broadcasts, gradient buckets), so a Python
// wrapper cannot help. ProcessGroupGlooNPU is ProcessGroupGloo with every collective overridden: when
// an operand is an NPU tensor, the NPU operands are copied to host tensors (which waits for the
// device work that produced them), gloo runs the collective on the host copies, and once it has
// finished the results are copied back into the NPU tensors on the calling thread's current stream.
// The returned work is complete, its future holds the NPU results. Operands on the CPU take gloo's
// own path unchanged. The staging is synchronous: simple and safe for streams, at the price of the
// overlap gloo's CUDA path has. torch_npu makes torch.distributed create this class for "gloo"
// (torch_npu/distributed/__init__.py); the hccl backend remains the NPU's own.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <chrono>
#include <vector>

namespace torch_npu {
namespace distributed {

class ProcessGroupGlooNPU final : public c10d::ProcessGroupGloo {
 public:
  // As torch's Python constructor of ProcessGroupGloo: devices from GLOO_SOCKET_IFNAME or the host name.
  static c10::intrusive_ptr<ProcessGroupGlooNPU> create(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                        int size, std::chrono::milliseconds timeout);

  using c10d::ProcessGroupGloo::ProcessGroupGloo;
  using WorkPtr = c10::intrusive_ptr<c10d::Work>;
  using TensorLists = std::vector<std::vector<at::Tensor>>;

  WorkPtr broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) override;
  WorkPtr allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) override;
  WorkPtr allreduce_coalesced(std::vector<at::Tensor>& tensors,
                              const c10d::AllreduceCoalescedOptions& opts) override;
  WorkPtr reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  WorkPtr allgather(TensorLists& outputs, std::vector<at::Tensor>& inputs,
                    const c10d::AllgatherOptions& opts) override;
  WorkPtr _allgather_base(at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts) override;
  WorkPtr allgather_coalesced(TensorLists& outputs, std::vector<at::Tensor>& inputs,
                              const c10d::AllgatherOptions& opts) override;
  WorkPtr gather(TensorLists& outputs, std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) override;
  WorkPtr scatter(std::vector<at::Tensor>& outputs, TensorLists& inputs, const c10d::ScatterOptions& opts) override;
  WorkPtr reduce_scatter(std::vector<at::Tensor>& outputs, TensorLists& inputs,
                         const c10d::ReduceScatterOptions& opts) override;
  WorkPtr alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_counts,
                        std::vector<int64_t>& input_counts, const c10d::AllToAllOptions& opts) override;
  WorkPtr send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override;
  WorkPtr recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override;
  WorkPtr recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
};

}  // namespace distributed
}  // namespace torch_npu
