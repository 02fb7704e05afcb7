// Communicator names: the `hcom` string of torch_npu's fused
// matmul-communication ops.
//
// Note [HCCL communicator names]
// torch_npu's MC2 ops (npu_mm_all_reduce_base, npu_all_gather_base_mm,
// npu_mm_reduce_scatter_base) take the communicator by name, the string
// HcclGetCommName gives and ProcessGroupHCCL.get_hccl_comm_name(rank) returns.
// The group names its communicator on the current device the first time it is
// asked (creating the communicator if no collective has yet: every rank must
// ask). The registry holds the group weakly: a name whose group is gone (or
// being destroyed) raises, naming it. Weak references keep an intrusive_ptr
// target's memory (not its resources) alive, so the group forgets its names
// in release_resources(), when its last strong reference goes, and is then
// destroyed as if there had been none. An op that found its group holds it
// (NamedComm::group) until the op has queued its work, so the communicator
// cannot be destroyed under it. A group that failed raises as its
// collectives do. The ops run their collectives on the group's own
// communication stream, so they are ordered with the group's other
// collectives the same way on every rank — which needs every rank to call
// them with the same shapes (a rank with more tiles than its peers waits for
// them until the group's timeout).
#pragma once

#include <string>

#include <c10/util/intrusive_ptr.h>
#include <c10/util/string_view.h>

#include "csrc/distributed/ProcessGroupHCCL.h"

namespace torch_npu {
namespace distributed {

// Registers `group`'s communicator on `device` under a new process-unique name and returns the name.
std::string registerCommName(const c10::weak_intrusive_ptr<ProcessGroupHCCL>& group, c10::DeviceIndex device);
void forgetCommName(const std::string& name);
// The communicator registered as `name`, with its group held; raises naming `op` and `name` if there is none.
NamedComm commNamed(c10::string_view name, const char* op);

}  // namespace distributed
}  // namespace torch_npu
