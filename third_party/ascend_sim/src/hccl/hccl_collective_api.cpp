// C API: the collectives. Each states what it is as a CollectiveCall; one
// path checks and submits it (Note [One check-and-submit path] in
// collective_call.h) as one task (Note [A collective is one task] in
// collective_submit.h).
#include <algorithm>
#include <limits>
#include <vector>

#include "ascend_sim/hccl.h"
#include "hccl/collective_call.h"
#include "hccl/collective_submit.h"
#include "hccl/comm_registry.h"
#include "hccl/hccl_guard.h"
#include "runtime/stream.h"

using namespace ascend_sim;
using namespace ascend_sim::hccl;

namespace {

std::vector<uint64_t> hostCounts(const void* p, int n, const char* what) {
  if (!p) throwHccl(HCCL_E_PTR, std::string(what) + " must not be null (a host array of nRanks uint64_t)");
  const auto* v = static_cast<const uint64_t*>(p);
  return std::vector<uint64_t>(v, v + n);
}

// Elements spanned by parts [displs[j], displs[j] + counts[j]).
uint64_t extent(const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs, const char* what) {
  uint64_t end = 0;
  for (size_t j = 0; j < counts.size(); ++j) {
    if (counts[j] == 0) continue;
    if (displs[j] > std::numeric_limits<uint64_t>::max() - counts[j])
      throwHccl(HCCL_E_PARA, std::string(what) + " part " + std::to_string(j) + " overflows");
    end = std::max(end, displs[j] + counts[j]);
  }
  return end;
}

}  // namespace

extern "C" {

ASCEND_SIM_API HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                        HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclAllReduce", CollectiveKind::kAllReduce, dataType, count);
  call.op = op;
  call.send = {sendBuf, "sendBuf"};
  call.recv = {recvBuf, "recvBuf"};
  return checkAndSubmit(comm, stream, call);
}

ASCEND_SIM_API HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                        HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclBroadcast", CollectiveKind::kBroadcast, dataType, count);
  call.root = RankArg{root, "root"};
  call.recv = {buf, "buf"};
  call.send_is_recv = true;
  return checkAndSubmit(comm, stream, call);
}

ASCEND_SIM_API HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                     HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclReduce", CollectiveKind::kReduce, dataType, count);
  call.op = op;
  call.root = RankArg{root, "root"};
  call.send = {sendBuf, "sendBuf"};
  call.recv = {recvBuf, "recvBuf (on the root)", BufferSpan::kCount, 0, /*root_only=*/true};
  return checkAndSubmit(comm, stream, call);
}

ASCEND_SIM_API HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,
                                        HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclAllGather", CollectiveKind::kAllGather, dataType, sendCount, "sendCount");
  call.send = {sendBuf, "sendBuf"};
  call.recv = {recvBuf, "recvBuf (nRanks * sendCount elements)", BufferSpan::kCountPerRank};
  return checkAndSubmit(comm, stream, call);
}

ASCEND_SIM_API HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                                            HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclReduceScatter", CollectiveKind::kReduceScatter, dataType, recvCount, "recvCount");
  call.op = op;
  call.send = {sendBuf, "sendBuf (nRanks * recvCount elements)", BufferSpan::kCountPerRank};
  call.recv = {recvBuf, "recvBuf"};
  return checkAndSubmit(comm, stream, call);
}

// The one collective with checks of its own (the host arrays), between the
// common checks and the submission.
ASCEND_SIM_API HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                        HcclDataType sendType, const void* recvBuf, const void* recvCounts,
                                        const void* rdispls, HcclDataType recvType, HcclComm comm,
                                        aclrtStream stream) {
  return guardHccl("HcclAlltoAllV", [&] {
    auto c = lookupComm(comm);
    const int p = c->size(), r = c->rank();
    CollectiveCall call("HcclAlltoAllV", CollectiveKind::kAlltoAllV, sendType, 0);
    checkCall(*c, &call);
    if (recvType != sendType)
      throwHccl(HCCL_E_PARA, "recvType " + hcclDtypeName(recvType) + " differs from sendType " +
                                 hcclDtypeName(sendType) + " (the types must be equal)");
    auto layout = std::make_shared<AlltoAllVLayout>();
    layout->send_counts = hostCounts(sendCounts, p, "sendCounts");
    layout->sdispls = hostCounts(sdispls, p, "sdispls");
    layout->recv_counts = hostCounts(recvCounts, p, "recvCounts");
    layout->rdispls = hostCounts(rdispls, p, "rdispls");
    if (layout->send_counts[r] != layout->recv_counts[r])
      throwHccl(HCCL_E_PARA, "rank " + std::to_string(r) + " sends " + std::to_string(layout->send_counts[r]) +
                                 " elements to itself but expects " + std::to_string(layout->recv_counts[r]));
    const uint64_t send_bytes =
        checkedBytes(sendType, extent(layout->send_counts, layout->sdispls, "sendCounts/sdispls"), false, "HcclAlltoAllV");
    const uint64_t recv_bytes =
        checkedBytes(recvType, extent(layout->recv_counts, layout->rdispls, "recvCounts/rdispls"), false, "HcclAlltoAllV");
    call.send = {sendBuf, "sendBuf", BufferSpan::kBytes, send_bytes};
    call.recv = {recvBuf, "recvBuf", BufferSpan::kBytes, recv_bytes};
    CollectiveArgs args;
    args.alltoallv = std::move(layout);
    submitCall(c, stream, call, std::move(args));
  });
}

ASCEND_SIM_API HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                   HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclSend", CollectiveKind::kSend, dataType, count);
  call.root = RankArg{destRank, "destRank", "a rank cannot send to itself"};
  call.send = {sendBuf, "sendBuf"};
  return checkAndSubmit(comm, stream, call);
}

ASCEND_SIM_API HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                   HcclComm comm, aclrtStream stream) {
  CollectiveCall call("HcclRecv", CollectiveKind::kRecv, dataType, count);
  call.root = RankArg{srcRank, "srcRank", "a rank cannot receive from itself"};
  call.recv = {recvBuf, "recvBuf"};
  return checkAndSubmit(comm, stream, call);
}

ASCEND_SIM_API HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                            aclrtStream stream) {
  return guardHccl("HcclBatchSendRecv", [&] {
    auto c = lookupComm(comm);
    if (itemNum == 0) return;
    if (!sendRecvInfo) throwHccl(HCCL_E_PTR, "sendRecvInfo must not be null (" + std::to_string(itemNum) + " items)");
    auto s = collectiveStream(*c, stream);
    auto items = std::make_shared<std::vector<P2pItem>>();
    for (uint32_t i = 0; i < itemNum; ++i) {
      const HcclSendRecvItem& x = sendRecvInfo[i];
      const std::string what = "item " + std::to_string(i);
      if (x.sendRecvType != HCCL_SEND && x.sendRecvType != HCCL_RECV)
        throwHccl(HCCL_E_PARA, what + ": sendRecvType " + std::to_string(static_cast<int>(x.sendRecvType)) +
                                   " is neither HCCL_SEND nor HCCL_RECV");
      const bool send = x.sendRecvType == HCCL_SEND;
      const uint64_t bytes = checkedBytes(x.dataType, x.count, false, "HcclBatchSendRecv");
      checkRank(*c, x.remoteRank, "remoteRank");
      if (static_cast<int>(x.remoteRank) == c->rank())
        throwHccl(HCCL_E_PARA, what + ": remoteRank " + std::to_string(x.remoteRank) + " is this rank");
      items->push_back(P2pItem{send, static_cast<int>(x.remoteRank), x.dataType, x.count,
                               deviceView(*c, x.buf, bytes, send ? "send buf" : "recv buf"), 0});
    }
    // Sequence numbers only after every item was checked (a taken number must reach the stream).
    for (P2pItem& it : *items) it.tag_base = c->p2pTagBase(it.send, it.peer, c->nextP2pSeq(it.send, it.peer));
    CollectiveArgs a;
    a.kind = CollectiveKind::kBatchSendRecv;
    a.batch = std::move(items);
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
  return checkAndSubmit(comm, stream, CollectiveCall("HcclBarrier", CollectiveKind::kBarrier));
}

}  // extern "C"
