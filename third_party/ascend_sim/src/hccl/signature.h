// The signature of a collective call, swapped with the ring neighbours
// before any data moves so that ranks which called different collectives
// fail at once (naming both calls) instead of hanging or mixing data.
#pragma once

#include <cstdint>
#include <string>

#include "hccl/algorithms/algorithm.h"

namespace ascend_sim {
namespace hccl {

struct Signature {
  uint64_t seq = 0;
  uint64_t kind = 0;   // CollectiveKind
  uint64_t dtype = 0;
  uint64_t count = 0;  // AlltoAllV: 0 (its counts are checked pairwise)
  uint64_t root = 0;   // Broadcast / Reduce; else 0
  uint64_t op = 0;     // reducing collectives; else 0

  static Signature of(uint64_t seq, const CollectiveArgs& args);
  bool operator==(const Signature& o) const;
  // "HcclAllReduce(count=10, FP32, SUM)", "HcclBroadcast(count=10, FP32, root=0)".
  std::string describe() const;
};

// Tag steps (of the collective's tag base) used by the exchange; the
// algorithms use steps below PeerIo::kMaxStep.
constexpr uint32_t kSignatureToRightStep = 0xfffe;
constexpr uint32_t kSignatureToLeftStep = 0xffff;

// Sends `mine` to both ring neighbours and checks theirs. Throws
// HcclError(HCCL_E_REMOTE) on a mismatch ("collective mismatch at seq N: rank
// 0 called ..., rank 1 called ..."), TransportError on transport failures.
// No-op for a single rank.
void exchangeSignatures(PeerIo& io, const Signature& mine);

}  // namespace hccl
}  // namespace ascend_sim
