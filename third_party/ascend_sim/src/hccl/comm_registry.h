// HcclComm handles: opaque numbers (never addresses) mapped to live
// communicators, so a destroyed or invented handle is reported, never
// dereferenced (as Runtime does for streams, Note [Runtime lifetime and
// handles]). Leaked on purpose: usable during process exit.
#pragma once

#include <memory>

#include "ascend_sim/hccl.h"
#include "hccl/communicator.h"

namespace ascend_sim {
namespace hccl {

HcclComm registerComm(std::shared_ptr<Communicator> comm);
// HcclError: HCCL_E_PTR for NULL, HCCL_E_UNAVAIL for an unknown handle.
std::shared_ptr<Communicator> lookupComm(HcclComm handle);
std::shared_ptr<Communicator> unregisterComm(HcclComm handle);

}  // namespace hccl
}  // namespace ascend_sim
