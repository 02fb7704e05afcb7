// Correctness checks of every collective against a host reference, run on
// all ranks of a Group; shared by the per-rank-count suites and the 910B2
// child process (non-power-of-two rank counts).
#pragma once

#include <cstdint>
#include <vector>

#include "ascend_sim/hccl.h"
#include "hccl_test_util.h"

namespace ascend_sim {
namespace test {

const std::vector<HcclDataType>& reducibleTypes();  // INT8, INT32, FP16, FP32
const std::vector<HcclDataType>& movementTypes();   // those plus INT64, FP64
const std::vector<HcclReduceOp>& allOps();

// Each runs every combination, out of place and (where allowed) in place.
void checkAllReduce(Group& g, const std::vector<HcclDataType>& dts, const std::vector<HcclReduceOp>& ops,
                    const std::vector<uint64_t>& counts);
void checkBroadcast(Group& g, const std::vector<HcclDataType>& dts, const std::vector<uint64_t>& counts);
void checkReduce(Group& g, const std::vector<HcclDataType>& dts, const std::vector<HcclReduceOp>& ops,
                 const std::vector<uint64_t>& counts);
void checkAllGather(Group& g, const std::vector<HcclDataType>& dts, const std::vector<uint64_t>& counts);
void checkReduceScatter(Group& g, const std::vector<HcclDataType>& dts, const std::vector<HcclReduceOp>& ops,
                        const std::vector<uint64_t>& counts);
// Counts from rank i to rank j are ((3i + 5j + k) % 4) * scale, parts packed
// with a one-element gap (displacements matter).
void checkAlltoAllV(Group& g, const std::vector<HcclDataType>& dts, const std::vector<uint64_t>& scales);
// Rank pairs (2k, 2k+1): several messages in a row arrive in call order.
void checkSendRecvOrder(Group& g, const std::vector<uint64_t>& counts);
// Nobody leaves the barrier before everybody entered it.
void checkBarrier(Group& g);

}  // namespace test
}  // namespace ascend_sim
