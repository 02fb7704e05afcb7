// ascend_sim public C API — the only door into the simulated Ascend device.
//
// Note [The simulator seam]
// This header plays the role AscendCL (acl/acl.h, acl/acl_op.h) plays for the
// real torch_npu: a small C API with opaque handles and specific status codes.
// It has no PyTorch dependency. Everything above it (the torch plugin) talks to
// the device only through these calls; everything below it is the simulated
// chip. Names and enum values follow AscendCL where a public value exists.
// It declares only what AscendCL declares; what the simulator offers beyond
// that (task records, fault injection, the formats' storage shapes, ...) is in
// ascend_sim/acl_sim.h (Note [Simulator extensions]).
//
// Threading: every call is thread safe. The "current device" is per host
// thread (aclrtSetDevice), as in AscendCL.
//
// Errors: every call returns an aclError. On failure, aclGetRecentErrMsg()
// returns a human readable description of the most recent error raised on the
// calling thread (what was wrong, with the numbers involved).
//
// Asynchrony: *Async calls and aclopExecuteV2 validate their arguments at once
// (bad arguments are reported by the return code) and then enqueue a task on
// the stream. A failure while a task executes (a kernel fault) is reported by
// the next aclrtSynchronizeStream / aclrtSynchronizeDevice /
// aclrtSynchronizeEvent on that stream with ACL_ERROR_RT_AICORE_EXCEPTION, and
// aclGetRecentErrMsg() then names the failing op type.
#ifndef ASCEND_SIM_ACL_H_
#define ASCEND_SIM_ACL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ASCEND_SIM_API __attribute__((visibility("default")))

typedef int aclError;

// ---- status codes -----------------------------------------------------------
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000        // a null/negative/inconsistent argument
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_INVALID_FILE 100003         // bad config file
#define ACL_ERROR_OP_TYPE_NOT_MATCH 100012
#define ACL_ERROR_OP_INPUT_NOT_MATCH 100013   // tensor descriptors do not fit the op
#define ACL_ERROR_OP_OUTPUT_NOT_MATCH 100014
#define ACL_ERROR_OP_ATTR_NOT_MATCH 100015    // missing / wrongly typed attribute
#define ACL_ERROR_OP_NOT_FOUND 100024         // no kernel registered for the op type
#define ACL_ERROR_OP_UNSUPPORTED_DTYPE 100025 // kernel exists but not for this dtype
#define ACL_ERROR_OP_UNSUPPORTED_FORMAT 100026
#define ACL_ERROR_BAD_ALLOC 200000            // host allocation failed
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001  // device id out of range
#define ACL_ERROR_RT_INVALID_HANDLE 107002    // stream/event handle not alive
#define ACL_ERROR_RT_INVALID_MEMORY 107003    // pointer is not (inside) a live device allocation
#define ACL_ERROR_RT_STREAM_CONTEXT 107004    // stream/event belongs to another device
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001 // device (HBM) out of memory
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#define ACL_ERROR_RT_AICORE_TIMEOUT 507014    // a task ran past the op execute timeout
#define ACL_ERROR_RT_AICORE_EXCEPTION 507015  // a kernel failed while executing

// ---- enums --------------------------------------------------------------------
typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_COMPLEX64 = 16,  // two float32: real, then imaginary (std::complex<float>)
  ACL_BF16 = 27,
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
} aclFormat;

typedef enum {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
} aclrtMemcpyKind;

typedef enum {
  ACL_MEM_MALLOC_HUGE_FIRST = 0,
  ACL_MEM_MALLOC_HUGE_ONLY = 1,
  ACL_MEM_MALLOC_NORMAL_ONLY = 2,
} aclrtMemMallocPolicy;

typedef enum {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
} aclrtEventStatus;

typedef enum {
  ACL_MEMTYPE_DEVICE = 0,  // the data buffer is device memory (default)
  ACL_MEMTYPE_HOST = 1,    // the data buffer is host memory, copied at launch (scalars, shapes)
} aclMemType;

// ---- opaque handles -----------------------------------------------------------
typedef struct aclrtStreamImpl* aclrtStream;
typedef struct aclrtEventImpl* aclrtEvent;
typedef struct aclTensorDesc aclTensorDesc;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclopAttr aclopAttr;
typedef void (*aclrtCallback)(void* userData);

// ---- errors -------------------------------------------------------------------
// Message of the most recent failed call on this thread ("" if none). The
// pointer stays valid until the next failing call on the same thread.
ASCEND_SIM_API const char* aclGetRecentErrMsg(void);

// ---- init / devices --------------------------------------------------------------
// Optional. Reads the chip configuration (CANN-style ini sections) from
// configPath if non-null. Safe to call more than once.
ASCEND_SIM_API aclError aclInit(const char* configPath);
ASCEND_SIM_API aclError aclFinalize(void);
// Number of visible devices: ASCEND_SIM_DEVICE_COUNT (default 8), restricted and
// renumbered by ASCEND_RT_VISIBLE_DEVICES (e.g. "0,3" -> 2 devices).
ASCEND_SIM_API aclError aclrtGetDeviceCount(uint32_t* count);
ASCEND_SIM_API aclError aclrtSetDevice(int32_t deviceId);
ASCEND_SIM_API aclError aclrtGetDevice(int32_t* deviceId);
// Waits for all streams of the device, then frees its streams/events/memory.
ASCEND_SIM_API aclError aclrtResetDevice(int32_t deviceId);
// Chip preset name, e.g. "Ascend910A".
ASCEND_SIM_API const char* aclrtGetSocName(void);
// HBM of the current device: free and total bytes.
ASCEND_SIM_API aclError aclrtGetMemInfo(size_t* freeBytes, size_t* totalBytes);

// ---- memory ----------------------------------------------------------------------
// Allocates on the current device's HBM arena. Capacity: preset, or
// ASCEND_SIM_HBM_SIZE (bytes, or with suffix K/M/G). Exceeding it returns
// ACL_ERROR_RT_MEMORY_ALLOCATION. Device pointers are not host-accessible:
// a host dereference faults (SIGSEGV) by design.
ASCEND_SIM_API aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy);
ASCEND_SIM_API aclError aclrtFree(void* devPtr);
// Page-locked host memory (plain aligned host memory in the simulator).
ASCEND_SIM_API aclError aclrtMallocHost(void** hostPtr, size_t size);
ASCEND_SIM_API aclError aclrtFreeHost(void* hostPtr);
// Synchronous copy; for device memory, waits for nothing (like aclrtMemcpy,
// it is ordered after all work previously submitted to the device).
ASCEND_SIM_API aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                                    aclrtMemcpyKind kind);
ASCEND_SIM_API aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                                         aclrtMemcpyKind kind, aclrtStream stream);
ASCEND_SIM_API aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count);
ASCEND_SIM_API aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                                         aclrtStream stream);
// Device id that owns devPtr (any pointer inside a live allocation), or an error.
ASCEND_SIM_API aclError aclrtPointerGetDevice(const void* devPtr, int32_t* deviceId);

// ---- virtual memory ------------------------------------------------------------------
// CANN's virtual memory management: reserve a range of device addresses, allocate physical HBM
// in granules, map it into the range (contiguous addresses over memory mapped at different
// times: PyTorch's expandable segments). Granularity: 2 MiB (assumed); a mapping's size equals its physical
// allocation's; offset, alignment and expectPtr must be 0 / null. Physical memory counts as used
// HBM (aclrtGetMemInfo) from aclrtMallocPhysical to aclrtFreePhysical.
typedef void* aclrtDrvMemHandle;
typedef enum { ACL_MEM_HANDLE_TYPE_NONE = 0 } aclrtMemHandleType;
typedef enum { ACL_MEM_ALLOCATION_TYPE_PINNED = 0 } aclrtMemAllocationType;
typedef enum {
  ACL_DDR_MEM = 0,
  ACL_HBM_MEM = 1,
  ACL_DDR_MEM_HUGE = 2,
  ACL_DDR_MEM_NORMAL = 3,
  ACL_HBM_MEM_HUGE = 4,
  ACL_HBM_MEM_NORMAL = 5,
} aclrtMemAttr;
typedef enum { ACL_MEM_LOCATION_TYPE_HOST = 0, ACL_MEM_LOCATION_TYPE_DEVICE = 1 } aclrtMemLocationType;
typedef struct {
  uint32_t id;
  aclrtMemLocationType type;
} aclrtMemLocation;
typedef struct {
  aclrtMemHandleType handleType;
  aclrtMemAllocationType allocationType;
  aclrtMemAttr memAttr;
  aclrtMemLocation location;
  uint64_t reserve;
} aclrtPhysicalMemProp;
typedef enum {
  ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
  ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1,
} aclrtMemGranularityOptions;
ASCEND_SIM_API aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp* prop, aclrtMemGranularityOptions option,
                                                         size_t* granularity);
// On the current device.
ASCEND_SIM_API aclError aclrtReserveMemAddress(void** virPtr, size_t size, size_t alignment, void* expectPtr,
                                               uint64_t flags);
ASCEND_SIM_API aclError aclrtReleaseMemAddress(void* virPtr);
// On prop->location.id (type ACL_MEM_LOCATION_TYPE_DEVICE).
ASCEND_SIM_API aclError aclrtMallocPhysical(aclrtDrvMemHandle* handle, size_t size, const aclrtPhysicalMemProp* prop,
                                            uint64_t flags);
ASCEND_SIM_API aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ASCEND_SIM_API aclError aclrtMapMem(void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags);
ASCEND_SIM_API aclError aclrtUnmapMem(void* virPtr);

// ---- streams ----------------------------------------------------------------------
// Streams belong to the current device and run their tasks in order.
ASCEND_SIM_API aclError aclrtCreateStream(aclrtStream* stream);
ASCEND_SIM_API aclError aclrtDestroyStream(aclrtStream stream);
ASCEND_SIM_API aclError aclrtSynchronizeStream(aclrtStream stream);
// How long an op may run before it fails with ACL_ERROR_RT_AICORE_TIMEOUT
// (process-wide; 0 = the default, 68 s). Simulated kernels always finish, so
// only an injected hang (aclsimInjectFault "hang:...") ever reaches it.
ASCEND_SIM_API aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);  // seconds
ASCEND_SIM_API aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);
ASCEND_SIM_API aclError aclrtSynchronizeDevice(void);
// ACL_SUCCESS with *idle = 1 if every task submitted so far has finished.
ASCEND_SIM_API aclError aclrtStreamQuery(aclrtStream stream, int32_t* idle);
// Runs fn(userData) on the stream's worker, in order with its tasks.
ASCEND_SIM_API aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtStream stream);

// ---- events -----------------------------------------------------------------------
// Failure propagation: an event record remembers whether a task of its stream
// failed since that stream's previous record. A stream that waits
// (aclrtStreamWaitEvent) on such a record inherits the failure: its wait task
// fails with "waited on an event recorded after a failed task: <message>", so
// the waiting stream reports ACL_ERROR_RT_AICORE_EXCEPTION at its next
// synchronize (and passes the failure on through its own records). Consumers
// of a failed kernel's or collective's output thus never read garbage
// silently. aclrtSynchronizeEvent on such a record fails the same way (also
// after the recording stream's fault was taken by another synchronize).
ASCEND_SIM_API aclError aclrtCreateEvent(aclrtEvent* event);
ASCEND_SIM_API aclError aclrtDestroyEvent(aclrtEvent event);
ASCEND_SIM_API aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ASCEND_SIM_API aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
ASCEND_SIM_API aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status);
ASCEND_SIM_API aclError aclrtSynchronizeEvent(aclrtEvent event);
// Simulated device time between two completed records, in milliseconds.
ASCEND_SIM_API aclError aclrtEventElapsedTime(float* ms, aclrtEvent start, aclrtEvent end);

// Utilization of a device in percent (CANN's struct; the extension is
// unused). See Note [Device utilization] in src/runtime/utilization.h.
typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;
typedef struct aclrtUtilizationInfo {
  int32_t cubeUtilization;
  int32_t vectorUtilization;
  int32_t aicpuUtilization;
  int32_t memoryUtilization;
  aclrtUtilizationExtendInfo* utilizationExtend;
} aclrtUtilizationInfo;
ASCEND_SIM_API aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo);

// ---- single-op execution -----------------------------------------------------------
// dims is the storage shape. The origin (logical) shape/format default to the
// storage ones and can be set for private formats.
ASCEND_SIM_API aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims,
                                                  const int64_t* dims, aclFormat format);
ASCEND_SIM_API void aclDestroyTensorDesc(const aclTensorDesc* desc);
ASCEND_SIM_API aclError aclSetTensorOriginShape(aclTensorDesc* desc, int numDims, const int64_t* dims);
ASCEND_SIM_API aclError aclSetTensorOriginFormat(aclTensorDesc* desc, aclFormat format);
ASCEND_SIM_API aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType);

ASCEND_SIM_API aclDataBuffer* aclCreateDataBuffer(void* data, size_t size);
// Points an existing buffer at other memory (descriptors and buffers may be reused between launches:
// aclopExecuteV2 copies what it needs from them during the call).
ASCEND_SIM_API aclError aclUpdateDataBufferAddr(aclDataBuffer* dataBuffer, void* data, size_t size);
ASCEND_SIM_API aclError aclDestroyDataBuffer(const aclDataBuffer* buffer);

ASCEND_SIM_API aclopAttr* aclopCreateAttr(void);
ASCEND_SIM_API void aclopDestroyAttr(const aclopAttr* attr);
ASCEND_SIM_API aclError aclopSetAttrBool(aclopAttr* attr, const char* name, uint8_t value);
ASCEND_SIM_API aclError aclopSetAttrInt(aclopAttr* attr, const char* name, int64_t value);
ASCEND_SIM_API aclError aclopSetAttrFloat(aclopAttr* attr, const char* name, float value);
ASCEND_SIM_API aclError aclopSetAttrString(aclopAttr* attr, const char* name, const char* value);
ASCEND_SIM_API aclError aclopSetAttrListInt(aclopAttr* attr, const char* name, int numValues,
                                            const int64_t* values);
ASCEND_SIM_API aclError aclopSetAttrListFloat(aclopAttr* attr, const char* name, int numValues,
                                              const float* values);
ASCEND_SIM_API aclError aclopSetAttrDataType(aclopAttr* attr, const char* name, aclDataType value);

// Validates descriptors and attributes against the kernel registered for
// opType, then enqueues the op on the stream (nullptr = the device's default
// stream). Descriptors, buffers and attr may be destroyed right after the call.
ASCEND_SIM_API aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                       aclDataBuffer* inputs[], int numOutputs,
                                       aclTensorDesc* outputDesc[], aclDataBuffer* outputs[],
                                       aclopAttr* attr, aclrtStream stream);

// ---- compile options and numerics -----------------------------------------------------
typedef enum {
  ACL_PRECISION_MODE = 0,  // "allow_fp32_to_fp16" | "must_keep_origin_dtype" | "force_fp16"
  ACL_OP_JIT_COMPILE = 1,  // "enable" (default): compile per shape | "disable": prebuilt binaries
  ACL_OP_SELECT_IMPL_MODE = 2,      // "high_precision" (default) | "high_performance"
  ACL_OPTYPELIST_FOR_IMPLMODE = 3,  // comma-separated op types the impl mode applies to ("" = all)
  ACL_OP_COMPILER_CACHE_MODE = 4,   // "enable" (default) | "disable" | "force": the disk cache of compiles
  ACL_OP_COMPILER_CACHE_DIR = 5,    // an existing directory ("" = no disk cache)
} aclCompileOpt;
// Process-wide, applies to ops launched after the call (not cached at start-up).
ASCEND_SIM_API aclError aclSetCompileopt(aclCompileOpt opt, const char* value);
// Current value (into a buffer of `length` bytes).
ASCEND_SIM_API aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length);
// The current device's sticky fp16 overflow flag (saturation mode): copies
// 1 (overflow since the last reset) or 0 as a uint32 into the host buffer
// after the stream's earlier work. aclrtResetOverflowStatus clears it.
ASCEND_SIM_API aclError aclrtGetOverflowStatus(void* outputAddr, size_t outputSize, aclrtStream stream);
ASCEND_SIM_API aclError aclrtResetOverflowStatus(aclrtStream stream);

// ---- op data dump (acl_mdl.h) -------------------------------------------------------------
// aclmdlSetDump reads a JSON config:
//   {"dump": {"dump_path": "/dir", "dump_mode": "output" | "input" | "all",
//             "dump_list": [{"layer": ["MatMul", "Add_3", "MLP.fc2"]}],   (empty: every op)
//             "dump_debug": "off" | "on"}}                                 (on: only overflowing ops)
// A layer entry selects ops by type, by name ("<type>_<n>") or by host scope
// (aclsimSetTaskScope) and its dotted prefixes. Each selected op's tensors are
// written as <dump_path>/<index>.<name>.{input,output}.<i>.npy in their logical
// layout; aclmdlFinalizeDump writes <dump_path>/manifest.json listing them
// (docs/profiling.md, "Dump").
ASCEND_SIM_API aclError aclmdlInitDump(void);
ASCEND_SIM_API aclError aclmdlSetDump(const char* dumpCfgPath);
ASCEND_SIM_API aclError aclmdlFinalizeDump(void);

// ---- model capture (acl_mdl.h, aclmdlRI*) --------------------------------------------------
// Between aclmdlRICaptureBegin and aclmdlRICaptureEnd the tasks submitted to the stream (ops,
// device-to-device copies, memsets) are not run but kept, in order, in a model run instance;
// aclmdlRIExecuteAsync runs them again on a stream as one task, with none of the per-task host
// work of launching them (docs/simulated_device.md, "Model capture"). While a stream captures in
// ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, the calls that would wait for the device or touch host memory
// (aclrtSynchronize*, aclrtMemcpy, aclrtMemset, an event record or wait on the capturing stream,
// an async copy to or from the host on it) fail with ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED and
// invalidate the capture: aclmdlRICaptureEnd then fails with ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED.
// (The two error values are the simulator's; CANN's headers were not at hand.)
#define ACL_ERROR_RT_STREAM_CAPTURE_UNSUPPORTED 107030
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED 107031
typedef struct aclmdlRIImpl* aclmdlRI;
typedef enum {
  ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,        // unsafe calls fail on every thread
  ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1,  // not modelled: refused
  ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2,       // unsafe calls are allowed (and not captured)
} aclmdlRICaptureMode;
typedef enum {
  ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
  ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1,
  ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2,
} aclmdlRICaptureStatus;
ASCEND_SIM_API aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
// *status and (while capturing) *modelRI, the instance being filled; either may be null.
ASCEND_SIM_API aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* modelRI);
ASCEND_SIM_API aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI);
ASCEND_SIM_API aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
// Runs the model on the stream and waits for it.
ASCEND_SIM_API aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
// The number of tasks the model holds.
ASCEND_SIM_API aclError aclsimModelTaskCount(aclmdlRI modelRI, size_t* count);
ASCEND_SIM_API aclError aclmdlRIDestroy(aclmdlRI modelRI);

// ---- device information ------------------------------------------------------------------
typedef enum {
  ACL_DEVICE_INFO_AI_CORE_NUM = 0,      // cube (or unified AI) cores
  ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,  // vector cores (910A: same as AI cores)
  ACL_DEVICE_INFO_L2_SIZE = 2,          // bytes
} aclDeviceInfo;
ASCEND_SIM_API aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // ASCEND_SIM_ACL_H_
