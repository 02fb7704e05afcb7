// ascend_sim's launch of user kernels (Ascend C, docs/ascend_c.md): the C interface between a kernel
// compiled into a user's library against <kernel_operator.h> and the simulated device.
//
// Note [Ascend C kernels on the simulator]
// A real Ascend C kernel is compiled for the AI Core and launched with <<<blockDim, l2ctrl, stream>>>
// (or ACLRT_LAUNCH_KERNEL). Here the kernel is ordinary host C++: kernel_operator.h implements
// Ascend C's classes (GlobalTensor, LocalTensor, TPipe, TQue, DataCopy, the vector and Cube
// instructions) header-only, and ACLRT_LAUNCH_KERNEL hands the kernel to aclsimLaunchKernel as a
// body to run once per block. The launch is a task of the stream like any op: it runs in stream
// order, in the task's record under the kernel's name with its block dim, and a failing block is an
// AI Core exception reported by the next synchronize, naming the kernel and the block.
// The body runs the blocks one after another on the stream's thread; each block keeps its own
// timeline of the core's pipes (ascend_sim/ascendc/block.h) and reports its simulated time. The
// kernel's time is the launch cost plus the busiest core's: block b runs on core b mod cores, and a
// core runs its blocks back to back (more blocks than cores run in waves).
#ifndef ASCEND_SIM_ACLSIM_KERNEL_H_
#define ASCEND_SIM_ACLSIM_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#include "ascend_sim/acl.h"

#ifdef __cplusplus
extern "C" {
#endif

// What one AI Core offers a block, from the chip preset (figures and their sources: docs/ascend_c.md).
typedef struct {
  const char* soc_name;
  uint64_t ub_bytes;               // Unified Buffer (VECIN / VECOUT / VECCALC)
  uint64_t l1_bytes;               // L1 (A1 / B1)
  uint64_t l0a_bytes;              // L0A (A2)
  uint64_t l0b_bytes;              // L0B (B2)
  uint64_t l0c_bytes;              // L0C (CO1)
  double clock_hz;                 // core clock
  double gm_bytes_per_s;           // one core's share of the HBM bandwidth
  double vector_bytes_per_repeat;  // 256
  double vector_cycles_per_repeat;
  double cube_macs_per_cycle;  // fp16 MACs per cycle (16 x 16 x 16 fractals)
} aclsimCoreSpec;

// Receives one instruction of a block's timeline (pipe: 0 scalar, 1 V, 2 M, 3 MTE1, 4 MTE2, 5 MTE3,
// 6 FIX; times in us from the block's start; a transfer's span is its data on the GM link).
typedef void (*aclsimInstructionFn)(void* ctx, int pipe, const char* instruction, double start_us, double end_us);

// One block of a launch: set by the simulator before the body runs, the results by the body.
typedef struct {
  const char* kernel_name;
  uint32_t block_idx;
  uint32_t block_num;
  int32_t device;
  aclsimCoreSpec core;
  aclsimInstructionFn on_instruction;  // NULL unless the launch is traced (ASCEND_SIM_KERNEL_TRACE_DIR)
  void* on_instruction_ctx;
  // Results of the block (set by the body):
  double duration_us;     // the block's simulated time (its busiest pipe, dependencies included)
  double gm_read_bytes;   // bytes moved GM -> on-chip
  double gm_write_bytes;  // bytes moved on-chip -> GM
  double cube_us;         // busy time of the Cube, the Vector unit and the transfer engines
  double vector_us;
  double mte_us;
  double flops;
  int used_cube;  // the block issued Cube instructions
} aclsimKernelBlock;

// The body runs one block; it reports a failure by returning non-zero with a message in `error`
// (at most errorSize bytes, NUL-terminated).
typedef int (*aclsimKernelBody)(void* closure, aclsimKernelBlock* block, char* error, size_t errorSize);

// Queues `body` over blockDim blocks on `stream` (NULL: the current device's default stream). The
// closure is owned by the launch: `destroy` (if not NULL) is called once the task has run, or at
// once if the launch fails. ACL_ERROR_INVALID_PARAM for an empty name, blockDim 0 or above 65535,
// or a null body.
ASCEND_SIM_API aclError aclsimLaunchKernel(const char* kernelName, uint32_t blockDim, aclrtStream stream,
                                           aclsimKernelBody body, void* closure, void (*destroy)(void*));

// The host address of device memory [devPtr, devPtr + size) on `device`, or NULL (with a message in
// `error`) if the range is not inside one live allocation of that device: what a kernel's global
// memory access goes through.
ASCEND_SIM_API void* aclsimKernelGmView(int32_t device, const void* devPtr, size_t size, char* error, size_t errorSize);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // ASCEND_SIM_ACLSIM_KERNEL_H_
