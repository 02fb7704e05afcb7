// PrivateUse1 kernels of the c10d dispatcher ops that torch 1.13 registers
// for CPU and CUDA only (broadcast_, allreduce_, send, recv_); the other c10d
// ops are CompositeExplicitAutograd and reach the process group already.
// Like torch's own CPU/CUDA kernels, these only forward to the process group,
// so `dist.all_reduce(npu_tensor)` reaches ProcessGroupHCCL (or raises from
// whichever backend the group is).
#include <torch/library.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace torch_npu {
namespace distributed {
namespace {

using WorkPtr = c10::intrusive_ptr<c10d::Work>;
using GroupPtr = c10::intrusive_ptr<c10d::ProcessGroup>;

std::tuple<std::vector<at::Tensor>, WorkPtr> broadcastNpu(at::TensorList tensors, const GroupPtr& group,
                                                          int64_t root_rank, int64_t root_tensor, int64_t timeout) {
  auto vec = tensors.vec();
  auto work = group->broadcast(vec, c10d::BroadcastOptions{root_rank, root_tensor, std::chrono::milliseconds(timeout)});
  return {std::move(vec), work};
}

std::tuple<std::vector<at::Tensor>, WorkPtr> allreduceNpu(at::TensorList tensors, const GroupPtr& group,
                                                          const c10::intrusive_ptr<c10d::ReduceOp>& op,
                                                          int64_t timeout) {
  auto vec = tensors.vec();
  auto work = group->allreduce(vec, c10d::AllreduceOptions{*op, std::chrono::milliseconds(timeout)});
  return {std::move(vec), work};
}

WorkPtr sendNpu(at::TensorList tensors, const GroupPtr& group, int64_t dst, int64_t tag) {
  auto vec = tensors.vec();
  return group->send(vec, static_cast<int>(dst), static_cast<int>(tag));
}

WorkPtr recvNpu(at::TensorList tensors, const GroupPtr& group, int64_t src, int64_t tag) {
  auto vec = tensors.vec();
  return group->recv(vec, static_cast<int>(src), static_cast<int>(tag));
}

}  // namespace

TORCH_LIBRARY_IMPL(c10d, PrivateUse1, m) {
  m.impl("broadcast_", broadcastNpu);
  m.impl("allreduce_", allreduceNpu);
  m.impl("send", sendNpu);
  m.impl("recv_", recvNpu);
}

}  // namespace distributed
}  // namespace torch_npu
