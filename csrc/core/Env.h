// Reading the backend's environment switches.
#pragma once

namespace torch_npu {

// `name` as an on/off switch: unset or empty -> fallback, "0" -> false,
// anything else -> true (TASK_QUEUE_ENABLE=1, HCCL_BLOCKING_WAIT=1, ...).
bool envFlag(const char* name, bool fallback);

}  // namespace torch_npu
