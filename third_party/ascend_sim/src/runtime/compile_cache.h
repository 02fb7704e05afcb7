// "Compilation" of single ops (docs/simulator.md §5): the plan cache.
//
// Note [Op plans]
// The first launch of an (op type, dtypes, formats, shapes, attributes,
// launch context) combination compiles a plan: the kernel's `validate`, its
// cost (counted by the AI Core units over the kernel's own split, see Note
// [AI Core units]), the modelled duration and unit ratios, the block dim and
// the profiling strings. The plan is cached under a 64-bit FNV-1a hash of
// that tuple (bucket entries are compared field by field, so a hash
// collision cannot return a wrong plan); later launches with the same key
// skip validation and costing. Lookup hashes the call in place (no
// allocation) and takes a shared lock: it is on the launch hot path.
// Compiling logs CANN-style INFO lines ("To compile op: MatMul", "OpType:
// MatMul, ...") when ASCEND_GLOBAL_LOG_LEVEL <= 1 (0 debug, 1 info, 2
// warning, 3 error; default 3), to stdout if ASCEND_SLOG_PRINT_TO_STDOUT=1,
// else stderr. The environment is read at every compile (compiles are rare).
// The input buffer sizes and data are not part of the key: they are checked
// per launch by the runtime.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cost/cost_model.h"
#include "kernel/kernel.h"
#include "runtime/task_recorder.h"

namespace ascend_sim {

struct OpPlan {
  const KernelDef* kernel = nullptr;
  OpCall signature;       // the key's fields (no data pointers)
  uint64_t hash = 0;
  KernelCost cost;        // counters from the units
  double duration_us = 0; // modelled op time
  std::shared_ptr<const TaskDetail> detail;  // profiling fields of every launch
};

// The plan of `call` (whose ctx is already filled in): cached, or compiled
// now. Throws KernelError / AclError from validate or cost (nothing cached).
std::shared_ptr<const OpPlan> findOrCompilePlan(const KernelDef* kernel, const OpCall& call, const CostModel& cost);

// Plans compiled so far in this process (loads from the persistent cache do
// not count, Note [Persistent compile cache] in runtime/disk_cache.h).
ASCEND_SIM_API uint64_t compiledPlanCount();
// Empties the in-memory plan cache, as a new process starts (tests of the
// persistent cache). Plans already handed out stay valid.
ASCEND_SIM_API void forgetCompiledPlansForTesting();

// 64-bit key hash of a call (tests).
ASCEND_SIM_API uint64_t opPlanHash(const OpCall& call);

// "[2,3]:FLOAT16:ND;[3]:FLOAT16:ND->[2,3]:FLOAT16:ND" of a call.
std::string describeTensors(const OpCall& call);

}  // namespace ascend_sim
