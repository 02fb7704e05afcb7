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

#include "ops/kernel.h"
#include "runtime/chip_config.h"

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

}  // namespace ascend_sim
