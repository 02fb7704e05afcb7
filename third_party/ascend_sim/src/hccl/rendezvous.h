// Creating a communicator (HcclSimCommInitRootInfoStore): every rank
// publishes where it lives in the store, waits for all the others, checks
// the preset's group-size rule, and connects the transport.
//
// Note [Rendezvous keys]
// All keys live under "hccl/<root info id>/", so communicators sharing one
// store (a c10d store serves every process group) never see each other's:
//   rank/<r>   "<host>\n<device>\n<ip>" of rank r
//   shm/<r>    "<segment name>\n<nonce>" of rank r's shared memory, or "-\n<why not>"
//   shm_ok/<r> "1" if rank r mapped every peer's segment, else "0\n<why not>"
//   gloo/...   gloo's pair addresses (connectFullMesh), only when TCP is used
// Ranks that did not publish within the timeout are named in the error.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "ascend_sim/hccl.h"
#include "ascend_sim/hccl_sim.h"
#include "hccl/communicator.h"

namespace ascend_sim {
namespace hccl {

constexpr std::chrono::seconds kDefaultExecTimeout{1836};  // CANN's HCCL_EXEC_TIMEOUT default

constexpr std::chrono::seconds kDefaultConnectTimeout{120};  // CANN's HCCL_CONNECT_TIMEOUT default

// config->timeoutMs, else $HCCL_EXEC_TIMEOUT seconds, else kDefaultExecTimeout.
// Exported for the tests.
ASCEND_SIM_API std::chrono::milliseconds commTimeout(const HcclSimCommConfig* config);
// How long the set-up waits for the other ranks to join: config->timeoutMs,
// else $HCCL_CONNECT_TIMEOUT seconds (CANN's range 120..7200), else 120 s.
ASCEND_SIM_API std::chrono::milliseconds connectTimeout(const HcclSimCommConfig* config);

// Blocks until every rank joined (or the timeout). Throws HcclError.
std::shared_ptr<Communicator> joinCommunicator(uint32_t nranks, const HcclRootInfo& root, uint32_t rank,
                                               const HcclSimStore& store, const HcclSimCommConfig* config);

}  // namespace hccl
}  // namespace ascend_sim
