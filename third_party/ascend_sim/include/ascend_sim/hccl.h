// ascend_sim HCCL — collective communication between simulated NPUs that live
// in different processes (or threads, or hosts), shaped like CANN's hccl.h.
//
// Note [Simulated HCCL]
// A communicator joins `nRanks` ranks; each rank is one simulated device (the
// calling thread's current device at init, as in HCCL). Collectives are
// asynchronous: the call validates its arguments at once (bad arguments are
// the return code, the text is aclGetRecentErrMsg()) and enqueues one
// collective task on `stream`; when that task runs, real bytes move between
// the ranks through shared memory when every rank is on one host, else gloo's
// TCP transport (ASCEND_SIM_HCCL_TRANSPORT=auto|shm|tcp), with the
// algorithm chosen by size (see HCCL_ALGO below), and the task's simulated
// duration is the α-β cost of that algorithm (HCCL.md, "Cost (simulated time)").
//
// Set-up: rank 0 calls HcclGetRootInfo and hands the blob to the other ranks
// by any means (the torch plugin uses the c10d Store); every rank then calls
// HcclSimCommInitRootInfoStore with the same blob and a key-value store that
// all ranks share (the rendezvous: addresses of every rank's transport).
// HcclSim* calls are the simulator's extensions to HCCL; they are declared in
// ascend_sim/hccl_sim.h, this header declares only what CANN's hccl.h does.
//
// Ordering and checking: every collective gets a sequence number per
// communicator. Before moving data, neighbouring ranks exchange a signature
// (sequence number, collective, dtype, count, root, reduce op); a mismatch is
// reported on the ranks that see it ("collective mismatch at seq N: rank 0
// called HcclAllReduce(count=10, FP32, SUM), rank 1 called HcclBroadcast(...)")
// and the communicator is aborted, so the other ranks fail at once instead of
// hanging. Send/Recv pairs are matched per (sender, receiver) in call order
// and check count and dtype the same way.
//
// Failures while a collective runs (a peer closed its connection, a peer did
// not answer within the timeout, a mismatch) fail the task: the stream gets a
// fault (reported by the next synchronize, as for kernels), the communicator
// keeps the first failure (HcclGetCommAsyncError / HcclSimGetCommErrorMessage)
// and every later collective on it fails at once with that message. Messages
// name the collective, the sequence number, the rank and the peer.
// A stream waiting (aclrtStreamWaitEvent) on an event recorded after a failed
// task inherits the failure (see acl.h, events), so consumers of a failed
// collective's output do not silently read garbage.
//
// Environment:
//   HCCL_EXEC_TIMEOUT  seconds a collective may wait for a peer when the
//                      config gives no timeout (default 1836, as CANN).
//   HCCL_IF_IP         local IPv4 address the transport binds to (default:
//                      the host name's address, else 127.0.0.1).
//   HCCL_ALGO          forces the all-reduce algorithm: a value containing
//                      "H-D" (any case) selects halving-doubling (CANN's
//                      spelling, e.g. "level0:NA;level1:H-D_R"), else one
//                      containing "ring" selects ring. Unset: halving-
//                      doubling for messages below 1 MiB when the rank count is
//                      a power of two, ring otherwise. Halving-doubling needs a
//                      power-of-two rank count: on others ring runs anyway.
//                      Read when the communicator is created; all ranks must
//                      agree.
// Group sizes: on the Ascend910A preset the ranks of one host must number 1,
// 2, 4 or 8 (HCCL_E_NOT_SUPPORT otherwise, as the real 910A's HCCS topology).
#ifndef ASCEND_SIM_HCCL_H_
#define ASCEND_SIM_HCCL_H_

#include <stddef.h>
#include <stdint.h>

#include "ascend_sim/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  HCCL_SUCCESS = 0,
  HCCL_E_PARA = 1,          // bad argument (count, root, rank, buffer size)
  HCCL_E_PTR = 2,           // null pointer where one is needed
  HCCL_E_MEMORY = 3,        // buffer not inside a live allocation of the comm's device
  HCCL_E_INTERNAL = 4,
  HCCL_E_NOT_SUPPORT = 5,   // dtype / reduce op / group size not supported
  HCCL_E_NOT_FOUND = 6,
  HCCL_E_UNAVAIL = 7,       // communicator aborted, failed earlier, or destroyed
  HCCL_E_SYSCALL = 8,
  HCCL_E_TIMEOUT = 9,       // a peer did not answer within the timeout
  HCCL_E_OPEN_FILE_FAILURE = 10,
  HCCL_E_TCP_CONNECT = 11,  // transport set-up failed (rendezvous, connect)
  HCCL_E_ROCE_CONNECT = 12,
  HCCL_E_TCP_TRANSFER = 13, // a peer closed its connection / transfer failed
  HCCL_E_ROCE_TRANSFER = 14,
  HCCL_E_RUNTIME = 15,      // an ACL runtime call failed (bad stream, no device)
  HCCL_E_DRV = 16,
  HCCL_E_PROFILING = 17,
  HCCL_E_CCE = 18,
  HCCL_E_NETWORK = 19,
  HCCL_E_AGAIN = 20,
  HCCL_E_REMOTE = 21,       // the ranks called different collectives (mismatch)
} HcclResult;

typedef enum {
  HCCL_DATA_TYPE_INT8 = 0,
  HCCL_DATA_TYPE_INT16 = 1,
  HCCL_DATA_TYPE_INT32 = 2,
  HCCL_DATA_TYPE_FP16 = 3,
  HCCL_DATA_TYPE_FP32 = 4,
  HCCL_DATA_TYPE_INT64 = 5,
  HCCL_DATA_TYPE_UINT64 = 6,
  HCCL_DATA_TYPE_UINT8 = 7,
  HCCL_DATA_TYPE_UINT16 = 8,
  HCCL_DATA_TYPE_UINT32 = 9,
  HCCL_DATA_TYPE_FP64 = 10,
  HCCL_DATA_TYPE_BFP16 = 11,
} HcclDataType;

// Reductions (AllReduce, Reduce, ReduceScatter) accept INT8, INT32, FP16, BFP16
// and FP32 only (HCCL_E_NOT_SUPPORT naming the allowed types otherwise). FP16
// and BFP16 are reduced pairwise in fp32 and rounded once per step; on a saturation-mode
// preset (Ascend910A) an fp16 result that overflows becomes ±65504 (NaN: 0)
// and raises the reducing device's overflow flag. Integers wrap. Data-movement
// collectives (Broadcast, AllGather, AlltoAllV, Send/Recv) take any type.
typedef enum {
  HCCL_REDUCE_SUM = 0,
  HCCL_REDUCE_PROD = 1,
  HCCL_REDUCE_MAX = 2,
  HCCL_REDUCE_MIN = 3,
} HcclReduceOp;

#define HCCL_ROOT_INFO_BYTES 4108
typedef struct HcclRootInfo {
  char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

typedef void* HcclComm;

// ---- errors ----------------------------------------------------------------------
ASCEND_SIM_API const char* HcclGetErrorString(HcclResult code);

// ---- set-up (rank 0 makes the root info; all ranks init with it) ------------------
ASCEND_SIM_API HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo);

// Waits for the comm's queued collectives, closes its connections and frees it.
// (Called from a stream callback it does not wait: collectives still queued
// then fail with HCCL_E_UNAVAIL.) The handle is dead afterwards (HCCL_E_UNAVAIL).
ASCEND_SIM_API HcclResult HcclCommDestroy(HcclComm comm);
ASCEND_SIM_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize);
ASCEND_SIM_API HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank);

// HCCL_SUCCESS in *asyncError while no collective has failed; else the code of
// the first failure. Never blocks.
ASCEND_SIM_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError);
// ---- collectives (asynchronous on `stream`; NULL stream = the default stream
// of the comm's device) -------------------------------------------------------------
// Buffers are device memory of the comm's device; a buffer may be NULL when its
// count is 0. sendBuf == recvBuf is allowed (in place) for AllReduce and
// Reduce; in-place AllGather passes sendBuf = this rank's slice of recvBuf
// (recvBuf + rank * sendCount elements), in-place ReduceScatter passes
// recvBuf = this rank's slice of sendBuf (sendBuf + rank * recvCount).
ASCEND_SIM_API HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                        HcclReduceOp op, HcclComm comm, aclrtStream stream);
ASCEND_SIM_API HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                        HcclComm comm, aclrtStream stream);
// recvBuf is only written (and only needed) on the root.
ASCEND_SIM_API HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                     HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);
// recvBuf holds nRanks * sendCount elements, rank r's at offset r * sendCount.
ASCEND_SIM_API HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount, HcclDataType dataType,
                                        HcclComm comm, aclrtStream stream);
// sendBuf holds nRanks * recvCount elements; rank r receives the reduction of
// every rank's slice r.
ASCEND_SIM_API HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount,
                                            HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                            aclrtStream stream);
// sendCounts / sdispls / recvCounts / rdispls: host arrays of nRanks uint64_t,
// in elements (copied at the call). Rank i's send part j (sendCounts[j]
// elements at sdispls[j]) goes to rank j's receive part i (recvCounts[i]
// elements at rdispls[i]); counts must agree pairwise (checked: HCCL_E_REMOTE
// naming both ranks). sendType and recvType must be equal (HCCL_E_PARA).
ASCEND_SIM_API HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                        HcclDataType sendType, const void* recvBuf, const void* recvCounts,
                                        const void* rdispls, HcclDataType recvType, HcclComm comm,
                                        aclrtStream stream);
// A rank cannot send to / receive from itself (HCCL_E_PARA).
ASCEND_SIM_API HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                                   HcclComm comm, aclrtStream stream);
ASCEND_SIM_API HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                                   HcclComm comm, aclrtStream stream);
ASCEND_SIM_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);

// A group of sends and receives run as ONE task: every item is posted first and
// then all are waited for, so mutual exchanges (each rank sends to and receives
// from the same peers) cannot deadlock. Separate HcclSend/HcclRecv tasks each
// wait for their transfer to finish, so two ranks that both HcclSend to each
// other first wait for each other (until the timeout) — as with NCCL outside
// ncclGroupStart/End. Items are matched with the peers' items per (sender,
// receiver) in order, exactly like separate HcclSend/HcclRecv calls.
typedef enum { HCCL_SEND = 0, HCCL_RECV = 1 } HcclSendRecvType;
typedef struct HcclSendRecvItem {
  HcclSendRecvType sendRecvType;
  void* buf;
  uint64_t count;
  HcclDataType dataType;
  uint32_t remoteRank;
} HcclSendRecvItem;
ASCEND_SIM_API HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // ASCEND_SIM_HCCL_H_
