// The c10d operations of ProcessGroupHCCL: argument checks, staging of
// tensors the device cannot use directly, and the HCCL call of each.
//
// Note [Staging collective buffers]
// HCCL moves flat, contiguous element ranges. A tensor that is contiguous and
// in its base format is used as is; anything else (a view, a FRACTAL_Z
// weight, a 5HD activation) is read through a contiguous base-format copy,
// and written through a fresh contiguous buffer copied back on the caller's
// stream once the collective ended. List forms (all_gather into a list,
// scatter, reduce_scatter from a list, all_to_all of lists) go through one
// flat buffer per side, so each is still one HCCL call. gather and scatter are
// HcclAlltoAllV with only the root's row (or column) non-zero.
#include <numeric>

#include <ATen/ATen.h>

#include "csrc/core/NPUFunctions.h"
#include "csrc/distributed/HcclUtils.h"
#include "csrc/distributed/ProcessGroupHCCL.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"

namespace torch_npu {
namespace distributed {

namespace {

using Counts = std::vector<uint64_t>;

void checkNpu(const at::Tensor& t, const char* op) {
  TORCH_CHECK(t.defined(), "ProcessGroupHCCL ", op, ": got an undefined tensor");
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, "ProcessGroupHCCL ", op,
              ": tensors must be on the NPU, got a tensor on ", t.device(),
              "; move it with .npu() (the gloo backend handles CPU tensors)");
  TORCH_CHECK(t.layout() == c10::kStrided, "ProcessGroupHCCL ", op, ": sparse tensors are not supported");
}

const at::Tensor& single(const std::vector<at::Tensor>& ts, const char* op) {
  TORCH_CHECK(ts.size() == 1, "ProcessGroupHCCL ", op,
              ": expects exactly one tensor per process (one NPU per rank), got ", ts.size());
  checkNpu(ts[0], op);
  return ts[0];
}

void checkLike(const at::Tensor& t, const at::Tensor& like, const char* op, const char* what) {
  checkNpu(t, op);
  TORCH_CHECK(t.device() == like.device(), "ProcessGroupHCCL ", op, ": ", what, " is on ", t.device(),
              " but the input is on ", like.device());
  TORCH_CHECK(t.scalar_type() == like.scalar_type(), "ProcessGroupHCCL ", op, ": ", what, " has dtype ",
              t.scalar_type(), " but the input has ", like.scalar_type());
}

void checkList(const std::vector<at::Tensor>& list, const at::Tensor& like, int64_t n, const char* op,
               const char* what) {
  TORCH_CHECK(static_cast<int64_t>(list.size()) == n, "ProcessGroupHCCL ", op, ": expected ", n, " ", what,
              " (one per rank), got ", list.size());
  for (const at::Tensor& t : list) {
    checkLike(t, like, op, what);
    TORCH_CHECK(t.numel() == like.numel(), "ProcessGroupHCCL ", op, ": each of the ", what, " must have ",
                like.numel(), " elements like the input, got ", t.sizes());
  }
}

// `whole` must hold world size x `part`'s elements (the *_into_tensor / *_tensor forms).
void checkWorldMultiple(const at::Tensor& whole, const at::Tensor& part, int size, const char* op,
                        const char* whole_name, const char* part_name) {
  TORCH_CHECK(whole.numel() == part.numel() * size, "ProcessGroupHCCL ", op, ": the ", whole_name, " has ",
              whole.numel(), " elements but must have world size (", size, ") x ", part_name, " (", part.numel(),
              ") elements");
}

void checkRank(int64_t r, int size, const char* op, const char* what) {
  TORCH_CHECK(r >= 0 && r < size, "ProcessGroupHCCL ", op, ": ", what, " ", r, " is not a rank of this group (0..",
              size - 1, ")");
}

// t, or a fresh contiguous buffer to copy back from.
at::Tensor writable(const at::Tensor& t) {
  return usableInPlaceByHccl(t) ? t : at::empty(t.sizes(), t.options().memory_format(c10::MemoryFormat::Contiguous));
}

uint64_t count(const at::Tensor& t) { return static_cast<uint64_t>(t.numel()); }

at::Tensor flatBuffer(const at::Tensor& like, int64_t numel) {
  return at::empty({numel}, like.options().memory_format(c10::MemoryFormat::Contiguous));
}

// The list's tensors one after another in a new flat buffer.
at::Tensor concatenated(const std::vector<at::Tensor>& list, const at::Tensor& like) {
  int64_t total = 0;
  for (const at::Tensor& t : list) total += t.numel();
  at::Tensor flat = flatBuffer(like, total);
  int64_t offset = 0;
  for (const at::Tensor& t : list) {
    if (t.numel() > 0) flat.narrow(0, offset, t.numel()).copy_(t.reshape({-1}));
    offset += t.numel();
  }
  return flat;
}

void copyOut(const at::Tensor& flat, const std::vector<at::Tensor>& list) {
  int64_t offset = 0;
  for (const at::Tensor& t : list) {
    if (t.numel() > 0) t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
}

Counts displacements(const Counts& counts) {
  Counts displs(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

// Element counts per rank for all_to_all_single's split sizes (rows of dim 0).
Counts splitCounts(const at::Tensor& t, const std::vector<int64_t>& splits, int size, const char* what) {
  TORCH_CHECK(t.dim() >= 1, "ProcessGroupHCCL all_to_all_single: the ", what, " tensor must have at least one dim");
  const int64_t rows = t.size(0);
  const uint64_t per_row = rows == 0 ? 0 : static_cast<uint64_t>(t.numel() / rows);
  Counts counts(size);
  if (splits.empty()) {
    TORCH_CHECK(rows % size == 0, "ProcessGroupHCCL all_to_all_single: the ", what, " tensor's dim 0 (", rows,
                ") must divide evenly by the group size ", size, " when no split sizes are given");
    std::fill(counts.begin(), counts.end(), static_cast<uint64_t>(rows / size) * per_row);
    return counts;
  }
  TORCH_CHECK(static_cast<int>(splits.size()) == size, "ProcessGroupHCCL all_to_all_single: ", what,
              " split sizes must have one entry per rank (", size, "), got ", splits.size());
  TORCH_CHECK(std::accumulate(splits.begin(), splits.end(), int64_t{0}) == rows,
              "ProcessGroupHCCL all_to_all_single: ", what, " split sizes sum to ",
              std::accumulate(splits.begin(), splits.end(), int64_t{0}), " but dim 0 of the ", what, " is ", rows);
  for (int i = 0; i < size; ++i) {
    TORCH_CHECK(splits[i] >= 0, "ProcessGroupHCCL all_to_all_single: negative split size ", splits[i]);
    counts[i] = static_cast<uint64_t>(splits[i]) * per_row;
  }
  return counts;
}

std::function<HcclResult(HcclComm, aclrtStream)> allToAllV(const at::Tensor& in, Counts send_counts,
                                                           const at::Tensor& out, Counts recv_counts,
                                                           HcclDataType type) {
  void* send = hcclBufferPtr(in);
  void* recv = hcclBufferPtr(out);
  Counts sdispls = displacements(send_counts), rdispls = displacements(recv_counts);
  return [=](HcclComm c, aclrtStream s) {
    return HcclAlltoAllV(send, send_counts.data(), sdispls.data(), type, recv, recv_counts.data(), rdispls.data(),
                         type, c, s);
  };
}

// The caller-stream step after a reduction into `buf` for `result`.
std::function<void()> finishReduction(at::Tensor buf, at::Tensor result, bool average, int size) {
  if (!average && buf.is_same(result)) return {};
  return [buf, result, average, size]() {
    if (average) buf.div_(size);
    if (!buf.is_same(result)) result.copy_(buf.view(result.sizes()));
  };
}

std::function<void()> copyBack(at::Tensor buf, at::Tensor result) {
  if (buf.is_same(result)) return {};
  return [buf, result]() { result.copy_(buf.view(result.sizes())); };
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::allreduce(std::vector<at::Tensor>& tensors,
                                                           const c10d::AllreduceOptions& opts) {
  const at::Tensor& t = single(tensors, "all_reduce");
  const HcclReduction red = reductionFor(t.scalar_type(), opts.reduceOp, "all_reduce");
  at::Tensor buf = readableByHccl(t);
  void* p = hcclBufferPtr(buf);
  const uint64_t n = count(buf);
  Launch l{"all_reduce", c10d::OpType::ALLREDUCE, t.device().index(), {buf},
           [=](HcclComm c, aclrtStream s) { return HcclAllReduce(p, p, n, red.dtype, red.op, c, s); }, {t},
           finishReduction(buf, t, red.average, getSize()), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                                     const c10d::AllreduceCoalescedOptions& opts) {
  TORCH_CHECK(!tensors.empty(), "ProcessGroupHCCL all_reduce_coalesced: no tensors");
  for (const at::Tensor& t : tensors) checkLike(t, tensors[0], "all_reduce_coalesced", "every tensor");
  const HcclReduction red = reductionFor(tensors[0].scalar_type(), opts.reduceOp, "all_reduce_coalesced");
  at::Tensor flat = concatenated(tensors, tensors[0]);
  void* p = hcclBufferPtr(flat);
  const uint64_t n = count(flat);
  const int size = getSize();
  std::vector<at::Tensor> results = tensors;
  Launch l{"all_reduce_coalesced", c10d::OpType::ALLREDUCE_COALESCED, tensors[0].device().index(), {flat},
           [=](HcclComm c, aclrtStream s) { return HcclAllReduce(p, p, n, red.dtype, red.op, c, s); }, results,
           [flat, results, red, size]() {
             if (red.average) flat.div_(size);
             copyOut(flat, results);
           },
           opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::broadcast(std::vector<at::Tensor>& tensors,
                                                           const c10d::BroadcastOptions& opts) {
  const at::Tensor& t = single(tensors, "broadcast");
  checkRank(opts.rootRank, getSize(), "broadcast", "root");
  at::Tensor buf = readableByHccl(t);
  void* p = hcclBufferPtr(buf);
  const uint64_t n = count(buf);
  const HcclDataType type = movementDataType(t.scalar_type());
  const auto root = static_cast<uint32_t>(opts.rootRank);
  Launch l{"broadcast", c10d::OpType::BROADCAST, t.device().index(), {buf},
           [=](HcclComm c, aclrtStream s) { return HcclBroadcast(p, n, type, root, c, s); }, {t},
           copyBack(buf, t), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::reduce(std::vector<at::Tensor>& tensors,
                                                        const c10d::ReduceOptions& opts) {
  const at::Tensor& t = single(tensors, "reduce");
  checkRank(opts.rootRank, getSize(), "reduce", "root");
  const HcclReduction red = reductionFor(t.scalar_type(), opts.reduceOp, "reduce");
  at::Tensor buf = readableByHccl(t);
  void* p = hcclBufferPtr(buf);
  const uint64_t n = count(buf);
  const auto root = static_cast<uint32_t>(opts.rootRank);
  const bool is_root = opts.rootRank == getRank();
  Launch l{"reduce", c10d::OpType::REDUCE, t.device().index(), {buf},
           [=](HcclComm c, aclrtStream s) { return HcclReduce(p, p, n, red.dtype, red.op, root, c, s); }, {t},
           is_root ? finishReduction(buf, t, red.average, getSize()) : std::function<void()>(), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                           std::vector<at::Tensor>& inputs,
                                                           const c10d::AllgatherOptions& opts) {
  const at::Tensor& t = single(inputs, "all_gather");
  TORCH_CHECK(outputs.size() == 1, "ProcessGroupHCCL all_gather: expects one output list per process, got ",
              outputs.size());
  const std::vector<at::Tensor> list = outputs[0];
  checkList(list, t, getSize(), "all_gather", "output tensors");
  at::Tensor in = readableByHccl(t);
  at::Tensor flat = flatBuffer(t, t.numel() * getSize());
  void *send = hcclBufferPtr(in), *recv = hcclBufferPtr(flat);
  const uint64_t n = count(in);
  const HcclDataType type = movementDataType(t.scalar_type());
  Launch l{"all_gather", c10d::OpType::ALLGATHER, t.device().index(), {in, flat},
           [=](HcclComm c, aclrtStream s) { return HcclAllGather(send, recv, n, type, c, s); }, list,
           [flat, list]() { copyOut(flat, list); }, opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                                 const c10d::AllgatherOptions& opts) {
  checkNpu(input, "all_gather_into_tensor");
  checkLike(output, input, "all_gather_into_tensor", "the output");
  checkWorldMultiple(output, input, getSize(), "all_gather_into_tensor", "output", "input");
  at::Tensor in = readableByHccl(input);
  at::Tensor out = writable(output);
  void *send = hcclBufferPtr(in), *recv = hcclBufferPtr(out);
  const uint64_t n = count(in);
  const HcclDataType type = movementDataType(input.scalar_type());
  Launch l{"all_gather_into_tensor", c10d::OpType::_ALLGATHER_BASE, input.device().index(), {in, out},
           [=](HcclComm c, aclrtStream s) { return HcclAllGather(send, recv, n, type, c, s); }, {output},
           copyBack(out, output), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                        std::vector<at::Tensor>& inputs,
                                                        const c10d::GatherOptions& opts) {
  const at::Tensor& t = single(inputs, "gather");
  checkRank(opts.rootRank, getSize(), "gather", "root");
  const bool is_root = opts.rootRank == getRank();
  std::vector<at::Tensor> list;
  if (is_root) {
    TORCH_CHECK(outputs.size() == 1, "ProcessGroupHCCL gather: the root needs one output list, got ", outputs.size());
    list = outputs[0];
    checkList(list, t, getSize(), "gather", "output tensors");
  } else {
    TORCH_CHECK(outputs.empty() || outputs[0].empty(), "ProcessGroupHCCL gather: only the root (rank ",
                opts.rootRank, ") takes an output list");
  }
  at::Tensor in = readableByHccl(t);
  const uint64_t n = count(in);
  Counts send_counts(getSize(), 0), recv_counts(getSize(), is_root ? n : 0);
  send_counts[opts.rootRank] = n;
  at::Tensor flat = is_root ? flatBuffer(t, t.numel() * getSize()) : flatBuffer(t, 0);
  Launch l{"gather", c10d::OpType::GATHER, t.device().index(), {in, flat},
           allToAllV(in, send_counts, flat, recv_counts, movementDataType(t.scalar_type())), list,
           is_root ? std::function<void()>([flat, list]() { copyOut(flat, list); }) : std::function<void()>(),
           opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::scatter(std::vector<at::Tensor>& outputs,
                                                         std::vector<std::vector<at::Tensor>>& inputs,
                                                         const c10d::ScatterOptions& opts) {
  const at::Tensor& t = single(outputs, "scatter");
  checkRank(opts.rootRank, getSize(), "scatter", "root");
  const bool is_root = opts.rootRank == getRank();
  at::Tensor flat_in = flatBuffer(t, 0);
  if (is_root) {
    TORCH_CHECK(inputs.size() == 1, "ProcessGroupHCCL scatter: the root needs one input list, got ", inputs.size());
    checkList(inputs[0], t, getSize(), "scatter", "input tensors");
    flat_in = concatenated(inputs[0], t);
  } else {
    TORCH_CHECK(inputs.empty() || inputs[0].empty(), "ProcessGroupHCCL scatter: only the root (rank ",
                opts.rootRank, ") takes an input list");
  }
  at::Tensor out = writable(t);
  const uint64_t n = count(out);
  Counts send_counts(getSize(), is_root ? n : 0), recv_counts(getSize(), 0);
  recv_counts[opts.rootRank] = n;
  Launch l{"scatter", c10d::OpType::SCATTER, t.device().index(), {flat_in, out},
           allToAllV(flat_in, send_counts, out, recv_counts, movementDataType(t.scalar_type())), {t},
           copyBack(out, t), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                                const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& t = single(outputs, "reduce_scatter");
  TORCH_CHECK(inputs.size() == 1, "ProcessGroupHCCL reduce_scatter: expects one input list per process, got ",
              inputs.size());
  checkList(inputs[0], t, getSize(), "reduce_scatter", "input tensors");
  const HcclReduction red = reductionFor(t.scalar_type(), opts.reduceOp, "reduce_scatter");
  at::Tensor flat_in = concatenated(inputs[0], t);
  at::Tensor out = writable(t);
  void *send = hcclBufferPtr(flat_in), *recv = hcclBufferPtr(out);
  const uint64_t n = count(out);
  Launch l{"reduce_scatter", c10d::OpType::REDUCE_SCATTER, t.device().index(), {flat_in, out},
           [=](HcclComm c, aclrtStream s) { return HcclReduceScatter(send, recv, n, red.dtype, red.op, c, s); },
           {t}, finishReduction(out, t, red.average, getSize()), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                      const c10d::ReduceScatterOptions& opts) {
  checkNpu(input, "reduce_scatter_tensor");
  checkLike(output, input, "reduce_scatter_tensor", "the output");
  checkWorldMultiple(input, output, getSize(), "reduce_scatter_tensor", "input", "output");
  const HcclReduction red = reductionFor(input.scalar_type(), opts.reduceOp, "reduce_scatter_tensor");
  at::Tensor in = readableByHccl(input);
  at::Tensor out = writable(output);
  void *send = hcclBufferPtr(in), *recv = hcclBufferPtr(out);
  const uint64_t n = count(out);
  Launch l{"reduce_scatter_tensor", c10d::OpType::_REDUCE_SCATTER_BASE, input.device().index(), {in, out},
           [=](HcclComm c, aclrtStream s) { return HcclReduceScatter(send, recv, n, red.dtype, red.op, c, s); },
           {output}, finishReduction(out, output, red.average, getSize()), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                               std::vector<int64_t>& output_split_sizes,
                                                               std::vector<int64_t>& input_split_sizes,
                                                               const c10d::AllToAllOptions& opts) {
  checkNpu(input, "all_to_all_single");
  checkLike(output, input, "all_to_all_single", "the output");
  const Counts send_counts = splitCounts(input, input_split_sizes, getSize(), "input");
  const Counts recv_counts = splitCounts(output, output_split_sizes, getSize(), "output");
  at::Tensor in = readableByHccl(input);
  at::Tensor out = writable(output);
  Launch l{"all_to_all_single", c10d::OpType::ALLTOALL_BASE, input.device().index(), {in, out},
           allToAllV(in, send_counts, out, recv_counts, movementDataType(input.scalar_type())), {output},
           copyBack(out, output), opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::alltoall(std::vector<at::Tensor>& outputs,
                                                          std::vector<at::Tensor>& inputs,
                                                          const c10d::AllToAllOptions& opts) {
  TORCH_CHECK(static_cast<int>(inputs.size()) == getSize() && static_cast<int>(outputs.size()) == getSize(),
              "ProcessGroupHCCL all_to_all: expects one input and one output tensor per rank (", getSize(),
              "), got ", inputs.size(), " inputs and ", outputs.size(), " outputs");
  checkNpu(inputs[0], "all_to_all");
  Counts send_counts, recv_counts;
  for (const at::Tensor& t : inputs) {
    checkLike(t, inputs[0], "all_to_all", "every input");
    send_counts.push_back(count(t));
  }
  for (const at::Tensor& t : outputs) {
    checkLike(t, inputs[0], "all_to_all", "every output");
    recv_counts.push_back(count(t));
  }
  at::Tensor flat_in = concatenated(inputs, inputs[0]);
  const uint64_t recv_total = std::accumulate(recv_counts.begin(), recv_counts.end(), uint64_t{0});
  at::Tensor flat_out = flatBuffer(inputs[0], static_cast<int64_t>(recv_total));
  const std::vector<at::Tensor> list = outputs;
  Launch l{"all_to_all", c10d::OpType::ALLTOALL, inputs[0].device().index(), {flat_in, flat_out},
           allToAllV(flat_in, send_counts, flat_out, recv_counts, movementDataType(inputs[0].scalar_type())), list,
           [flat_out, list]() { copyOut(flat_out, list); }, opts.timeout};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::barrier(const c10d::BarrierOptions& opts) {
  const c10::DeviceIndex device =
      opts.device_ids.empty() ? current_device() : static_cast<c10::DeviceIndex>(opts.device_ids[0]);
  Launch l{"barrier", c10d::OpType::BARRIER, device, {},
           [](HcclComm c, aclrtStream s) { return HcclBarrier(c, s); }, {}, {}, opts.timeout, true};
  return launch(std::move(l));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::send(std::vector<at::Tensor>& tensors, int dst_rank, int /*tag*/) {
  const at::Tensor& t = single(tensors, "send");
  checkRank(dst_rank, getSize(), "send", "destination");
  TORCH_CHECK(dst_rank != getRank(), "ProcessGroupHCCL send: rank ", getRank(), " cannot send to itself");
  at::Tensor buf = readableByHccl(t);
  void* p = hcclBufferPtr(buf);
  const uint64_t n = count(buf);
  const HcclDataType type = movementDataType(t.scalar_type());
  const auto peer = static_cast<uint32_t>(dst_rank);
  Launch l{"send", c10d::OpType::SEND, t.device().index(), {buf},
           [=](HcclComm c, aclrtStream s) { return HcclSend(p, n, type, peer, c, s); }, {t}};
  return pointToPoint(std::move(l), HcclSendRecvItem{HCCL_SEND, p, n, type, peer});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::recv(std::vector<at::Tensor>& tensors, int src_rank, int /*tag*/) {
  const at::Tensor& t = single(tensors, "recv");
  checkRank(src_rank, getSize(), "recv", "source");
  TORCH_CHECK(src_rank != getRank(), "ProcessGroupHCCL recv: rank ", getRank(), " cannot receive from itself");
  at::Tensor buf = writable(t);
  void* p = hcclBufferPtr(buf);
  const uint64_t n = count(buf);
  const HcclDataType type = movementDataType(t.scalar_type());
  const auto peer = static_cast<uint32_t>(src_rank);
  Launch l{"recv", c10d::OpType::RECV, t.device().index(), {buf},
           [=](HcclComm c, aclrtStream s) { return HcclRecv(p, n, type, peer, c, s); }, {t}, copyBack(buf, t)};
  return pointToPoint(std::move(l), HcclSendRecvItem{HCCL_RECV, p, n, type, peer});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::recvAnysource(std::vector<at::Tensor>& /*tensors*/, int /*tag*/) {
  TORCH_CHECK(false, "ProcessGroupHCCL recv: HCCL has no receive from any source; pass src=<rank>");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHCCL::pointToPoint(Launch l, HcclSendRecvItem item) {
  if (!coalescing_) return launch(std::move(l));
  checkUsable(l.name);
  TORCH_CHECK(coalesced_.empty() || coalesced_.front().first.device == l.device,
              "ProcessGroupHCCL batch_isend_irecv: all tensors must be on one NPU");
  auto work = makeWork(l);
  coalesced_.emplace_back(std::move(l), item);
  coalesced_works_.push_back(work);
  return work;
}

void ProcessGroupHCCL::startCoalescing() {
  TORCH_CHECK(!coalescing_, "ProcessGroupHCCL: batch_isend_irecv calls cannot be nested");
  coalescing_ = true;
}

void ProcessGroupHCCL::endCoalescing(std::vector<c10::intrusive_ptr<c10d::Work>>& /*reqs*/) {
  coalescing_ = false;
  auto batch = std::move(coalesced_);
  auto works = std::move(coalesced_works_);
  coalesced_.clear();
  coalesced_works_.clear();
  if (batch.empty()) return;
  std::vector<HcclSendRecvItem> items;
  std::vector<at::Tensor> touched;
  std::vector<std::function<void()>> afters;
  for (auto& [launch, item] : batch) {
    items.push_back(item);
    touched.insert(touched.end(), launch.touched.begin(), launch.touched.end());
    if (launch.after) afters.push_back(launch.after);
  }
  Launch combined{"batch_isend_irecv", c10d::OpType::SEND, batch.front().first.device, touched,
                  [items](HcclComm c, aclrtStream s) mutable {
                    return HcclBatchSendRecv(items.data(), static_cast<uint32_t>(items.size()), c, s);
                  },
                  {}};
  if (!afters.empty())
    combined.after = [afters]() {
      for (const auto& f : afters) f();
    };
  enqueue(combined, commFor(combined.device), std::move(works));
}

}  // namespace distributed
}  // namespace torch_npu
