// ascend_sim's extensions to HCCL: what the simulated collectives offer and a
// real CANN does not (Note [Simulator extensions] in ascend_sim/acl_sim.h):
// joining a communicator through a caller's key-value store, aborting a
// communicator, the first failure's message, and which algorithm and
// transport a communicator uses.
#ifndef ASCEND_SIM_HCCL_SIM_H_
#define ASCEND_SIM_HCCL_SIM_H_

#include "ascend_sim/hccl.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- set-up through a key-value store -------------------------------------------------
// The key-value store the ranks rendezvous through.
// Both callbacks return 0 on success and non-zero on failure.
typedef struct HcclSimStore {
  void* ctx;
  int (*set)(void* ctx, const char* key, const void* value, size_t size);
  // Blocks until `key` exists (at most timeoutMs) and passes its value to
  // sink(sinkCtx, data, size) before returning.
  int (*get)(void* ctx, const char* key, uint32_t timeoutMs,
             void (*sink)(void* sinkCtx, const void* data, size_t size), void* sinkCtx);
} HcclSimStore;

typedef struct HcclSimCommConfig {
  uint32_t timeoutMs;  // set-up and every collective; 0: HCCL_EXEC_TIMEOUT (default 1836 s)
  const char* ifIp;    // local transport address; NULL: HCCL_IF_IP, else the host name's address
  // The simulated server of this rank (its collectives' links); NULL:
  // ASCEND_SIM_SERVER_ID, else the host name.
  const char* serverId;
} HcclSimCommConfig;

// Joins the communicator described by rootInfo as `rank` of `nRanks`, on the
// calling thread's current device. Blocks until every rank has joined (or the
// timeout passes: HCCL_E_TIMEOUT naming the missing ranks). `config` may be
// NULL (defaults). The store is only used during this call.
ASCEND_SIM_API HcclResult HcclSimCommInitRootInfoStore(uint32_t nRanks, const HcclRootInfo* rootInfo,
                                                       uint32_t rank, const HcclSimStore* store,
                                                       const HcclSimCommConfig* config, HcclComm* comm);

// ---- failures ---------------------------------------------------------------------------
// Fails the comm's pending and later collectives at once (HCCL_E_UNAVAIL) and
// closes its connections so that peers fail too. The comm must still be
// destroyed.
ASCEND_SIM_API HcclResult HcclSimCommAbort(HcclComm comm);

// The first failure's message ("" if none), truncated to len - 1 bytes and
// NUL-terminated.
ASCEND_SIM_API HcclResult HcclSimGetCommErrorMessage(HcclComm comm, char* buf, size_t len);

// ---- simulator introspection (tests, profiling) ------------------------------------
// The all-reduce algorithm the comm would use for `bytes`: "mesh", "ring",
// "halving_doubling", or a hierarchical "<level0>/<level1>" such as
// "mesh/H-D_R" (Note [Algorithm choice]; honours HCCL_ALGO). The pointer is static.
ASCEND_SIM_API HcclResult HcclSimAllReduceAlgorithm(HcclComm comm, uint64_t bytes, const char** name);
// Scaling prediction without a communicator: the simulated time [us] and the
// algorithm of one collective on a cluster of `servers` x `perServer` NPUs of
// the preset `socVersion` ("Ascend910A", "Ascend910B2"), as a real
// communicator of that shape would price it. `kind`: "allreduce",
// "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "barrier"
// or "send"; `bytes`: the collective's n (the vector of an all-reduce, the
// gathered output of an all-gather, the input of a reduce-scatter, the bytes
// sent to the others by an all-to-all); `hcclAlgo`: an HCCL_ALGO value or
// NULL for CANN's default. `algoName` (may be NULL) gets a static string.
ASCEND_SIM_API HcclResult HcclSimPredictCollective(const char* socVersion, uint32_t servers, uint32_t perServer,
                                                   const char* kind, double bytes, const char* hcclAlgo, double* us,
                                                   const char** algoName);
// How the comm moves bytes between ranks: "shm" (all ranks on one host, see
// ASCEND_SIM_HCCL_TRANSPORT) or "tcp". The pointer is static.
ASCEND_SIM_API HcclResult HcclSimCommTransport(HcclComm comm, const char** name);

#ifdef __cplusplus
}
#endif

#endif  // ASCEND_SIM_HCCL_SIM_H_
