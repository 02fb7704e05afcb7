// Process-wide compile options (aclSetCompileopt), read by every launch.
//
// Note [Precision mode capture]
// ACL_PRECISION_MODE is a process-wide setting that starts "unset" (meaning
// the chip preset's default: 910A allow_fp32_to_fp16, 910B2
// must_keep_origin_dtype). aclopExecuteV2 reads it at every launch and copies
// it into the op's LaunchContext (and into the plan key, so a mode switch
// compiles a new plan); nothing caches it at start-up. An op already queued
// keeps the mode of its launch.
#pragma once

#include <string>

#include "kernel/kernel.h"
#include "chip/chip_config.h"

namespace ascend_sim {

// "allow_fp32_to_fp16" etc.
const char* precisionModeName(PrecisionMode m);
// The mode ops launched now get on `chip`.
PrecisionMode currentPrecisionMode(const ChipConfig& chip);
// Sets the mode by name; throws AclError(ACL_ERROR_INVALID_PARAM) listing the
// valid values otherwise.
void setPrecisionMode(const std::string& name);

// ACL_OP_JIT_COMPILE (Note [Binary op mode] in compile_cache.cpp): "enable"
// (default) or "disable"; other values throw, listing the valid ones.
bool jitCompileEnabled();
void setJitCompile(const std::string& value);

// Note [Implementation modes]
// ACL_OP_SELECT_IMPL_MODE picks between an op's high_precision (default) and
// high_performance implementation; ACL_OPTYPELIST_FOR_IMPLMODE restricts the
// choice to the listed op types (empty: every op). Only ops that have two
// implementations look at it: for fp16/bf16 inputs, high_precision computes
// in fp32 inside the kernel (the Vector unit runs fp32 lanes: 64 per repeat)
// while high_performance computes in the input dtype, rounding every
// intermediate and running 128 lanes per repeat. Ops with both forms:
// SoftmaxV2, LogSoftmaxV2 (OPS.md "Softmax and losses"). aclopExecuteV2
// captures the choice in the op's LaunchContext and plan key, as it does the
// precision mode.
void setImplMode(const std::string& value);
const char* implModeName();
void setImplModeOpList(const std::string& comma_separated);
std::string implModeOpList();
// Whether an op of `op_type` launched now runs its high_performance form.
bool highPerformanceFor(const std::string& op_type);

// ACL_OP_COMPILER_CACHE_MODE / _DIR (Note [Persistent compile cache] in
// runtime/disk_cache.h). The directory must exist ("" unsets it).
enum class CompilerCacheMode { kEnable, kDisable, kForce };
void setCompilerCacheMode(const std::string& value);
CompilerCacheMode compilerCacheMode();
const char* compilerCacheModeName();
void setCompilerCacheDir(const std::string& dir);
std::string compilerCacheDir();

}  // namespace ascend_sim
