#include "hccl/collective_call.h"

#include <limits>
#include <string>

#include "hccl/collective_submit.h"
#include "hccl/comm_registry.h"
#include "hccl/hccl_error.h"
#include "hccl/hccl_guard.h"
#include "runtime/stream.h"

namespace ascend_sim {
namespace hccl {

namespace {

// count * p elements, HCCL_E_PARA if that overflows.
uint64_t timesRanks(uint64_t count, int p, const char* what) {
  if (count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(p))
    throwHccl(HCCL_E_PARA, std::string(what) + " " + std::to_string(count) + " times " + std::to_string(p) +
                               " ranks overflows");
  return count * static_cast<uint64_t>(p);
}

void fillBytes(BufferArg* b, uint64_t count_bytes, uint64_t per_rank_bytes) {
  if (b->span == BufferSpan::kCount) b->bytes = count_bytes;
  if (b->span == BufferSpan::kCountPerRank) b->bytes = per_rank_bytes;
}

}  // namespace

void checkCall(const Communicator& comm, CollectiveCall* call) {
  if (call->has_data) {
    const bool reducing = call->op.has_value();
    const uint64_t count_bytes = checkedBytes(call->dtype, call->count, reducing, call->api);
    uint64_t per_rank_bytes = 0;
    if (call->send.span == BufferSpan::kCountPerRank || call->recv.span == BufferSpan::kCountPerRank)
      per_rank_bytes =
          checkedBytes(call->dtype, timesRanks(call->count, comm.size(), call->count_name), reducing, call->api);
    fillBytes(&call->send, count_bytes, per_rank_bytes);
    fillBytes(&call->recv, count_bytes, per_rank_bytes);
  }
  if (call->op) checkOp(*call->op);
  if (call->root) {
    const RankArg& r = *call->root;
    checkRank(comm, r.rank, r.name);
    if (r.if_self && static_cast<int>(r.rank) == comm.rank())
      throwHccl(HCCL_E_PARA, std::string(r.name) + " " + std::to_string(r.rank) + " is this rank (" + r.if_self + ")");
  }
}

void submitCall(const std::shared_ptr<Communicator>& comm, aclrtStream stream, const CollectiveCall& call,
                CollectiveArgs args) {
  auto s = collectiveStream(*comm, stream);
  args.kind = call.kind;
  if (call.has_data) {
    args.dtype = call.dtype;
    args.count = call.count;
  }
  if (call.op) args.op = *call.op;
  if (call.root) args.root = static_cast<int>(call.root->rank);
  auto view = [&](const BufferArg& b) -> void* {
    if (!b.what || (b.root_only && args.root != comm->rank())) return nullptr;
    return deviceView(*comm, b.ptr, b.bytes, b.what);
  };
  args.send = view(call.send);
  args.recv = view(call.recv);
  if (call.send_is_recv) args.send = args.recv;
  submitCollective(comm, *s, std::move(args));
}

HcclResult checkAndSubmit(HcclComm comm, aclrtStream stream, CollectiveCall call) noexcept {
  return guardHccl(call.api, [&] {
    auto c = lookupComm(comm);
    checkCall(*c, &call);
    submitCall(c, stream, call);
  });
}

}  // namespace hccl
}  // namespace ascend_sim
