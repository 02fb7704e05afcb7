// ascend_sim's extensions to AscendCL: what the simulated device offers and a
// real CANN does not.
//
// Note [Simulator extensions]
// ascend_sim/acl.h declares only what AscendCL declares, so code written
// against it could be built against a real CANN. Everything else the
// simulator offers lives here, with the aclsim prefix: the storage-shape table
// of the formats (CANN keeps it inside the framework), op registration, per-op
// task records for the profiler, host tags and scopes on tasks, the compile
// count, and fault injection. The torch plugin calls these only through one
// adapter (csrc/core/SimulatorExtensions.h); HCCL's extensions are in
// ascend_sim/hccl_sim.h.
#ifndef ASCEND_SIM_ACL_SIM_H_
#define ASCEND_SIM_ACL_SIM_H_

#include "ascend_sim/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- simulated time ------------------------------------------------------------------
// Simulated device time (microseconds) at which all work submitted so far on
// the current device has finished. Waits for the device first.
ASCEND_SIM_API aclError aclsimGetDeviceSimTime(double* us);

// ---- op registration ------------------------------------------------------------------------
// 1 if a kernel is registered for opType.
ASCEND_SIM_API int aclsimIsOpRegistered(const char* opType);

// ---- formats (CANN keeps this table inside the framework) ------------------------
#define ACL_MAX_DIM_CNT 8
// Storage (device) shape of a tensor whose logical shape is originDims laid out
// in `format` (see docs/formats.md; tensors of rank < 4 entering a 4-D format
// are lifted with the first dim as C). ACL_ERROR_INVALID_PARAM names an
// unknown format or a rank the format cannot hold.
ASCEND_SIM_API aclError aclsimGetFormatStorageShape(aclFormat format, aclDataType dtype, int numOriginDims,
                                                    const int64_t* originDims, int* numStorageDims,
                                                    int64_t storageDims[ACL_MAX_DIM_CNT]);
// "NC1HWC0" etc., or NULL for a value that is not a known format.
ASCEND_SIM_API const char* aclsimGetFormatName(aclFormat format);
// One row of the format table: the only list of formats, which the plugin and its Python package
// read rather than copy. Base formats (ND, NCHW, NCDHW) are their own base; a private format holds
// C0 tiles; a tensor of the format has minRank..maxRank logical dims.
typedef struct {
  aclFormat format;
  const char* name;
  aclFormat baseFormat;
  int isPrivate;
  int minRank;
  int maxRank;
} aclsimFormatInfo;
// Number of rows of the format table.
ASCEND_SIM_API size_t aclsimGetFormatCount(void);
// Row `index` (0 <= index < aclsimGetFormatCount(), in ACL enum order); ACL_ERROR_INVALID_PARAM otherwise.
ASCEND_SIM_API aclError aclsimGetFormatInfo(size_t index, aclsimFormatInfo* info);

// ---- profiling and compilation records ----------------------------------------------------
typedef enum { ACL_CORE_AI_CORE = 0, ACL_CORE_CUBE = 1, ACL_CORE_VECTOR = 2, ACL_CORE_AI_CPU = 3, ACL_CORE_DMA = 4 } aclsimCoreType;
typedef struct {
  char op_type[64];        // "MatMul", "MemcpyH2D", "EventRecord", ...
  char shapes[256];        // "[4,100,50]:FLOAT16:FRACTAL_NZ;[...]" inputs then "->" outputs, truncated
  int32_t stream_id;
  aclsimCoreType core_type;
  double start_us;         // simulated start and duration
  double duration_us;
  double cube_ratio;       // share of the op time bound by each unit (0..1)
  double vector_ratio;
  double mte_ratio;
  double bytes;            // bytes read + written in HBM
  double flops;
  uint32_t block_dim;      // simulated cores used
  uint64_t host_thread_id; // host context of the submission (aclsimSetTaskTag; 0: none)
  double host_launch_us;   // host wall clock at the launch [us since the Unix epoch]
  uint64_t host_launch_id; // the host's id of the launch (0: none); tasks of one launch share it
} aclsimTaskRecord;
// Tags the tasks the calling thread submits from now on with a host thread id,
// launch time and launch id (a profiler's correlation between host ops and
// device tasks).
ASCEND_SIM_API aclError aclsimSetTaskTag(uint64_t hostThreadId, double hostLaunchUs, uint64_t hostLaunchId);
// Tags the ops the calling thread launches from now on with a host scope (a
// module path; null or "" clears it): their "scope" in op dumps.
ASCEND_SIM_API aclError aclsimSetTaskScope(const char* scope);
// Records are kept per device while profiling is enabled (ASCEND_SIM_PROFILE=1
// or this call); disabling keeps what was recorded, enabling clears nothing.
ASCEND_SIM_API aclError aclsimSetProfiling(int32_t deviceId, int enable);
ASCEND_SIM_API aclError aclsimGetTaskRecordCount(int32_t deviceId, size_t* count);
// Copies records [first, first + *count) (clamped; *count is updated).
ASCEND_SIM_API aclError aclsimGetTaskRecords(int32_t deviceId, size_t first, aclsimTaskRecord* records,
                                             size_t* count);
ASCEND_SIM_API aclError aclsimClearTaskRecords(int32_t deviceId);
// Number of distinct (op type, dtypes, formats, shapes, attributes) plans
// "compiled" so far in this process (docs/simulated_device.md, "Op compilation").
ASCEND_SIM_API aclError aclsimGetCompileCount(uint64_t* count);
// Invalidates the capture under way on `stream` (a host-side refusal the runtime did not see, such
// as a random op during an NPU graph capture); `reason` is named when the capture ends.
ASCEND_SIM_API aclError aclsimInvalidateCapture(aclrtStream stream, const char* reason);

// Fault injection (tests): `spec` is rules separated by ';' (also read from
// ASCEND_SIM_FAULTS at start-up):
//   task:<name>[:<n>]  the n-th task named <name> (an op type, MemcpyH2D,
//                      MemcpyD2H, MemcpyD2D, HcclAllReduce, ...; default n = 1)
//                      to execute from now on faults on the device: its stream
//                      reports "injected fault: ..." at the next synchronize
//                      (a synchronous aclrtMemcpy returns the error at once);
//   hang:<name>[:<n>]  that task hangs: its stream is stuck in it until the
//                      op execute timeout passes (then it fails with
//                      ACL_ERROR_RT_AICORE_TIMEOUT) or aclsimClearFaults
//                      releases it (then it fails as an injected fault);
//   malloc[:<n>]       from the n-th aclrtMalloc on, every aclrtMalloc fails
//                      with ACL_ERROR_RT_MEMORY_ALLOCATION (HBM exhausted).
// A bad spec is ACL_ERROR_INVALID_PARAM and adds nothing. aclsimClearFaults
// removes every rule. The device stays usable after every injected fault.
ASCEND_SIM_API aclError aclsimInjectFault(const char* spec);
ASCEND_SIM_API aclError aclsimClearFaults(void);
// Number of tasks stuck in an injected hang right now.
ASCEND_SIM_API aclError aclsimGetHungTaskCount(uint64_t* count);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // ASCEND_SIM_ACL_SIM_H_
