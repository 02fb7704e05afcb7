// See Note [gloo with NPU tensors] in ProcessGroupGlooNPU.h.
#include "csrc/distributed/ProcessGroupGlooNPU.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

namespace torch_npu {
namespace distributed {
namespace {

using WorkPtr = ProcessGroupGlooNPU::WorkPtr;
using TensorLists = ProcessGroupGlooNPU::TensorLists;

bool isNpu(const at::Tensor& t) { return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1; }

bool anyNpu(const std::vector<at::Tensor>& tensors) {
  for (const auto& t : tensors) {
    if (isNpu(t)) return true;
  }
  return false;
}

bool anyNpu(const TensorLists& lists) {
  for (const auto& list : lists) {
    if (anyNpu(list)) return true;
  }
  return false;
}

at::Tensor contiguousHostCopy(const at::Tensor& t) {
  return t.to(at::kCPU, /*non_blocking=*/false, /*copy=*/true, at::MemoryFormat::Contiguous);
}

// The work of a staged collective: complete when returned (its future holds the NPU results).
class CompletedWork final : public c10d::Work {
 public:
  CompletedWork(std::vector<at::Tensor> outputs, int source_rank)
      : outputs_(std::move(outputs)),
        source_rank_(source_rank),
        future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {
    future_->markCompleted(c10::IValue(outputs_));
    finish();
  }
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  int sourceRank() const override { return source_rank_; }

 private:
  std::vector<at::Tensor> outputs_;
  int source_rank_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

// The host stand-ins of one collective's operands, and where its results go back to.
class Staging {
 public:
  // An input: a host copy if it is an NPU tensor.
  at::Tensor in(const at::Tensor& t) { return isNpu(t) ? contiguousHostCopy(t) : t; }
  std::vector<at::Tensor> in(const std::vector<at::Tensor>& tensors) {
    std::vector<at::Tensor> host;
    host.reserve(tensors.size());
    for (const auto& t : tensors) host.push_back(in(t));
    return host;
  }
  TensorLists in(const TensorLists& lists) {
    TensorLists host;
    host.reserve(lists.size());
    for (const auto& list : lists) host.push_back(in(list));
    return host;
  }

  // An output (or an in-place operand): a host copy of its values whose result is copied back.
  at::Tensor out(const at::Tensor& t) {
    if (!isNpu(t)) return t;
    at::Tensor host = contiguousHostCopy(t);
    results_.emplace_back(t, host);
    return host;
  }
  std::vector<at::Tensor> out(const std::vector<at::Tensor>& tensors) {
    std::vector<at::Tensor> host;
    host.reserve(tensors.size());
    for (const auto& t : tensors) host.push_back(out(t));
    return host;
  }
  TensorLists out(const TensorLists& lists) {
    TensorLists host;
    host.reserve(lists.size());
    for (const auto& list : lists) host.push_back(out(list));
    return host;
  }

  // Waits for gloo, copies the results back and returns a completed work holding `outputs`.
  WorkPtr finish(const WorkPtr& work, std::vector<at::Tensor> outputs, bool any_source = false) {
    work->wait();
    for (auto& [device, host] : results_) device.copy_(host);
    return c10::make_intrusive<CompletedWork>(std::move(outputs), any_source ? work->sourceRank() : -1);
  }

 private:
  std::vector<std::pair<at::Tensor, at::Tensor>> results_;  // (NPU tensor, its host stand-in)
};

std::vector<at::Tensor> flatten(const TensorLists& lists) {
  std::vector<at::Tensor> all;
  for (const auto& list : lists) all.insert(all.end(), list.begin(), list.end());
  return all;
}

}  // namespace

c10::intrusive_ptr<ProcessGroupGlooNPU> ProcessGroupGlooNPU::create(const c10::intrusive_ptr<c10d::Store>& store,
                                                                    int rank, int size,
                                                                    std::chrono::milliseconds timeout) {
  auto options = Options::create(timeout);
  const char* interfaces = std::getenv("GLOO_SOCKET_IFNAME");
  if (interfaces != nullptr && std::strlen(interfaces) > 1) {
    std::stringstream list(interfaces);
    for (std::string name; std::getline(list, name, ',');) {
      options->devices.push_back(createDeviceForInterface(name));
    }
  } else {
    options->devices.push_back(createDefaultDevice());
  }
  options->threads = static_cast<int>(options->devices.size() * 2);
  return c10::make_intrusive<ProcessGroupGlooNPU>(store, rank, size, options);
}

WorkPtr ProcessGroupGlooNPU::broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::broadcast(tensors, opts);
  Staging staging;
  auto host = staging.out(tensors);
  return staging.finish(ProcessGroupGloo::broadcast(host, opts), tensors);
}

WorkPtr ProcessGroupGlooNPU::allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::allreduce(tensors, opts);
  Staging staging;
  auto host = staging.out(tensors);
  return staging.finish(ProcessGroupGloo::allreduce(host, opts), tensors);
}

WorkPtr ProcessGroupGlooNPU::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                 const c10d::AllreduceCoalescedOptions& opts) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::allreduce_coalesced(tensors, opts);
  Staging staging;
  auto host = staging.out(tensors);
  return staging.finish(ProcessGroupGloo::allreduce_coalesced(host, opts), tensors);
}

WorkPtr ProcessGroupGlooNPU::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::reduce(tensors, opts);
  Staging staging;
  auto host = staging.out(tensors);
  return staging.finish(ProcessGroupGloo::reduce(host, opts), tensors);
}

WorkPtr ProcessGroupGlooNPU::allgather(TensorLists& outputs, std::vector<at::Tensor>& inputs,
                                       const c10d::AllgatherOptions& opts) {
  if (!anyNpu(inputs) && !anyNpu(outputs)) return ProcessGroupGloo::allgather(outputs, inputs, opts);
  Staging staging;
  auto host_in = staging.in(inputs);
  auto host_out = staging.out(outputs);
  return staging.finish(ProcessGroupGloo::allgather(host_out, host_in, opts), flatten(outputs));
}

WorkPtr ProcessGroupGlooNPU::_allgather_base(at::Tensor& output, at::Tensor& input,
                                             const c10d::AllgatherOptions& opts) {
  if (!isNpu(output) && !isNpu(input)) return ProcessGroupGloo::_allgather_base(output, input, opts);
  Staging staging;
  auto host_in = staging.in(input);
  auto host_out = staging.out(output);
  return staging.finish(ProcessGroupGloo::_allgather_base(host_out, host_in, opts), {output});
}

WorkPtr ProcessGroupGlooNPU::allgather_coalesced(TensorLists& outputs, std::vector<at::Tensor>& inputs,
                                                 const c10d::AllgatherOptions& opts) {
  if (!anyNpu(inputs) && !anyNpu(outputs)) return ProcessGroupGloo::allgather_coalesced(outputs, inputs, opts);
  Staging staging;
  auto host_in = staging.in(inputs);
  auto host_out = staging.out(outputs);
  return staging.finish(ProcessGroupGloo::allgather_coalesced(host_out, host_in, opts), flatten(outputs));
}

WorkPtr ProcessGroupGlooNPU::gather(TensorLists& outputs, std::vector<at::Tensor>& inputs,
                                    const c10d::GatherOptions& opts) {
  if (!anyNpu(inputs) && !anyNpu(outputs)) return ProcessGroupGloo::gather(outputs, inputs, opts);
  Staging staging;
  auto host_in = staging.in(inputs);
  auto host_out = staging.out(outputs);
  return staging.finish(ProcessGroupGloo::gather(host_out, host_in, opts), flatten(outputs));
}

WorkPtr ProcessGroupGlooNPU::scatter(std::vector<at::Tensor>& outputs, TensorLists& inputs,
                                     const c10d::ScatterOptions& opts) {
  if (!anyNpu(inputs) && !anyNpu(outputs)) return ProcessGroupGloo::scatter(outputs, inputs, opts);
  Staging staging;
  auto host_in = staging.in(inputs);
  auto host_out = staging.out(outputs);
  return staging.finish(ProcessGroupGloo::scatter(host_out, host_in, opts), outputs);
}

WorkPtr ProcessGroupGlooNPU::reduce_scatter(std::vector<at::Tensor>& outputs, TensorLists& inputs,
                                            const c10d::ReduceScatterOptions& opts) {
  if (!anyNpu(inputs) && !anyNpu(outputs)) return ProcessGroupGloo::reduce_scatter(outputs, inputs, opts);
  Staging staging;
  auto host_in = staging.in(inputs);
  auto host_out = staging.out(outputs);
  return staging.finish(ProcessGroupGloo::reduce_scatter(host_out, host_in, opts), outputs);
}

WorkPtr ProcessGroupGlooNPU::alltoall_base(at::Tensor& output, at::Tensor& input,
                                           std::vector<int64_t>& output_counts, std::vector<int64_t>& input_counts,
                                           const c10d::AllToAllOptions& opts) {
  if (!isNpu(output) && !isNpu(input)) {
    return ProcessGroupGloo::alltoall_base(output, input, output_counts, input_counts, opts);
  }
  Staging staging;
  auto host_in = staging.in(input);
  auto host_out = staging.out(output);
  return staging.finish(ProcessGroupGloo::alltoall_base(host_out, host_in, output_counts, input_counts, opts),
                        {output});
}

WorkPtr ProcessGroupGlooNPU::send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::send(tensors, dst_rank, tag);
  Staging staging;
  auto host = staging.in(tensors);
  return staging.finish(ProcessGroupGloo::send(host, dst_rank, tag), tensors);
}

WorkPtr ProcessGroupGlooNPU::recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::recv(tensors, src_rank, tag);
  Staging staging;
  auto host = staging.out(tensors);
  return staging.finish(ProcessGroupGloo::recv(host, src_rank, tag), tensors);
}

WorkPtr ProcessGroupGlooNPU::recvAnysource(std::vector<at::Tensor>& tensors, int tag) {
  if (!anyNpu(tensors)) return ProcessGroupGloo::recvAnysource(tensors, tag);
  Staging staging;
  auto host = staging.out(tensors);
  return staging.finish(ProcessGroupGloo::recvAnysource(host, tag), tensors, /*any_source=*/true);
}

}  // namespace distributed
}  // namespace torch_npu
