// C API: the collectives. Each validates at once and submits one task, see
// Note [A collective is one task] in collective_submit.h.
#include <limits>
#include <vector>

#include "ascend_sim/hccl.h"
#include "hccl/collective_submit.h"
#include "hccl/comm_registry.h"
#include "hccl/hccl_guard.h"
#include "runtime/stream.h"

using namespace ascend_sim;
using namespace ascend_sim::hccl;

namespace {

// count * p elements, HCCL_E_PARA if that overflows.
uint64_t timesRanks(uint64_t count, int p, const char* what) {
  if (count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(p))
    throwHccl(HCCL_E_PARA, std::string(what) + " " + std::to_string(count) + " times " + std::to_string(p) +
                               " ranks overflows");
  return count * static_cast<uint64_t>(p);
}

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
  return guardHccl("HcclAllReduce", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, count, true, "HcclAllReduce");
    checkOp(op);
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kAllReduce;
    a.dtype = dataType;
    a.op = op;
    a.count = count;
    a.send = deviceView(*c, sendBuf, bytes, "sendBuf");
    a.recv = deviceView(*c, recvBuf, bytes, "recvBuf");
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                        HcclComm comm, aclrtStream stream) {
  return guardHccl("HcclBroadcast", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, count, false, "HcclBroadcast");
    checkRank(*c, root, "root");
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kBroadcast;
    a.dtype = dataType;
    a.count = count;
    a.root = static_cast<int>(root);
    a.recv = deviceView(*c, buf, bytes, "buf");
    a.send = a.recv;
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                     HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
  return guardHccl("HcclReduce", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, count, true, "HcclReduce");
    checkOp(op);
    checkRank(*c, root, "root");
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kReduce;
    a.dtype = dataType;
    a.op = op;
    a.count = count;
    a.root = static_cast<int>(root);
    a.send = deviceView(*c, sendBuf, bytes, "sendBuf");
    if (static_cast<int>(root) == c->rank()) a.recv = deviceView(*c, recvBuf, bytes, "recvBuf (on the root)");
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,
                                        HcclComm comm, aclrtStream stream) {
  return guardHccl("HcclAllGather", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, sendCount, false, "HcclAllGather");
    const uint64_t all = checkedBytes(dataType, timesRanks(sendCount, c->size(), "sendCount"), false, "HcclAllGather");
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kAllGather;
    a.dtype = dataType;
    a.count = sendCount;
    a.send = deviceView(*c, sendBuf, bytes, "sendBuf");
    a.recv = deviceView(*c, recvBuf, all, "recvBuf (nRanks * sendCount elements)");
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                                            HcclReduceOp op, HcclComm comm, aclrtStream stream) {
  return guardHccl("HcclReduceScatter", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, recvCount, true, "HcclReduceScatter");
    const uint64_t all =
        checkedBytes(dataType, timesRanks(recvCount, c->size(), "recvCount"), true, "HcclReduceScatter");
    checkOp(op);
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kReduceScatter;
    a.dtype = dataType;
    a.op = op;
    a.count = recvCount;
    a.send = deviceView(*c, sendBuf, all, "sendBuf (nRanks * recvCount elements)");
    a.recv = deviceView(*c, recvBuf, bytes, "recvBuf");
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                        HcclDataType sendType, const void* recvBuf, const void* recvCounts,
                                        const void* rdispls, HcclDataType recvType, HcclComm comm,
                                        aclrtStream stream) {
  return guardHccl("HcclAlltoAllV", [&] {
    auto c = lookupComm(comm);
    const int p = c->size(), r = c->rank();
    checkedBytes(sendType, 0, false, "HcclAlltoAllV");
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
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kAlltoAllV;
    a.dtype = sendType;
    a.send = deviceView(*c, sendBuf, send_bytes, "sendBuf");
    a.recv = deviceView(*c, recvBuf, recv_bytes, "recvBuf");
    a.alltoallv = std::move(layout);
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                   HcclComm comm, aclrtStream stream) {
  return guardHccl("HcclSend", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, count, false, "HcclSend");
    checkRank(*c, destRank, "destRank");
    if (static_cast<int>(destRank) == c->rank())
      throwHccl(HCCL_E_PARA, "destRank " + std::to_string(destRank) + " is this rank (a rank cannot send to itself)");
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kSend;
    a.dtype = dataType;
    a.count = count;
    a.root = static_cast<int>(destRank);
    a.send = deviceView(*c, sendBuf, bytes, "sendBuf");
    submitCollective(c, *s, std::move(a));
  });
}

ASCEND_SIM_API HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                   HcclComm comm, aclrtStream stream) {
  return guardHccl("HcclRecv", [&] {
    auto c = lookupComm(comm);
    const uint64_t bytes = checkedBytes(dataType, count, false, "HcclRecv");
    checkRank(*c, srcRank, "srcRank");
    if (static_cast<int>(srcRank) == c->rank())
      throwHccl(HCCL_E_PARA, "srcRank " + std::to_string(srcRank) + " is this rank (a rank cannot receive from itself)");
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kRecv;
    a.dtype = dataType;
    a.count = count;
    a.root = static_cast<int>(srcRank);
    a.recv = deviceView(*c, recvBuf, bytes, "recvBuf");
    submitCollective(c, *s, std::move(a));
  });
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
  return guardHccl("HcclBarrier", [&] {
    auto c = lookupComm(comm);
    auto s = collectiveStream(*c, stream);
    CollectiveArgs a;
    a.kind = CollectiveKind::kBarrier;
    submitCollective(c, *s, std::move(a));
  });
}

}  // extern "C"
