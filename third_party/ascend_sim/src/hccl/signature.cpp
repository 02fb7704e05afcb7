#include "hccl/signature.h"

#include "hccl/hccl_error.h"

namespace ascend_sim {
namespace hccl {

Signature Signature::of(uint64_t seq, const CollectiveArgs& a) {
  Signature s;
  s.seq = seq;
  s.kind = static_cast<uint64_t>(a.kind);
  s.dtype = static_cast<uint64_t>(a.dtype);
  s.count = a.kind == CollectiveKind::kAlltoAllV || a.kind == CollectiveKind::kBarrier ? 0 : a.count;
  s.root = a.kind == CollectiveKind::kBroadcast || a.kind == CollectiveKind::kReduce ? static_cast<uint64_t>(a.root) : 0;
  s.op = isReducing(a.kind) ? static_cast<uint64_t>(a.op) : 0;
  return s;
}

bool Signature::operator==(const Signature& o) const {
  return seq == o.seq && kind == o.kind && dtype == o.dtype && count == o.count && root == o.root && op == o.op;
}

std::string Signature::describe() const {
  const auto k = static_cast<CollectiveKind>(kind);
  if (k == CollectiveKind::kBarrier) return collectiveName(k) + "()";
  std::string s = collectiveName(k) + "(";
  if (k != CollectiveKind::kAlltoAllV) s += "count=" + std::to_string(count) + ", ";
  s += hcclDtypeName(static_cast<HcclDataType>(dtype));
  if (isReducing(k)) s += ", " + hcclOpName(static_cast<HcclReduceOp>(op));
  if (k == CollectiveKind::kBroadcast || k == CollectiveKind::kReduce) s += ", root=" + std::to_string(root);
  return s + ")";
}

void exchangeSignatures(PeerIo& io, const Signature& mine) {
  const int p = io.size(), r = io.rank();
  if (p == 1) return;
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  Signature from_left, from_right;
  // What left sent to its right is what this rank receives from its left.
  void* out = const_cast<Signature*>(&mine);
  io.exchange({{false, left, kSignatureToRightStep, &from_left, sizeof from_left},
               {false, right, kSignatureToLeftStep, &from_right, sizeof from_right},
               {true, right, kSignatureToRightStep, out, sizeof mine},
               {true, left, kSignatureToLeftStep, out, sizeof mine}});
  for (const auto& [peer, theirs] : {std::pair<int, const Signature&>{left, from_left}, {right, from_right}}) {
    if (theirs == mine) continue;
    const bool me_first = r < peer;
    throwHccl(HCCL_E_REMOTE, "collective mismatch at seq " + std::to_string(mine.seq) + ": rank " +
                                 std::to_string(me_first ? r : peer) + " called " +
                                 (me_first ? mine : theirs).describe() + ", rank " +
                                 std::to_string(me_first ? peer : r) + " called " +
                                 (me_first ? theirs : mine).describe());
  }
}

}  // namespace hccl
}  // namespace ascend_sim
