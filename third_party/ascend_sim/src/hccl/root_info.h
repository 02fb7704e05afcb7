// HcclRootInfo: the blob rank 0 makes and every rank passes to init. It
// carries a magic text and a communicator id unique across hosts and time;
// the id prefixes every rendezvous store key of that communicator.
#pragma once

#include <string>

#include "ascend_sim/hccl.h"

namespace ascend_sim {
namespace hccl {

void makeRootInfo(HcclRootInfo* out);
// The id in `info`; HcclError(HCCL_E_PARA) if HcclGetRootInfo did not make it.
std::string rootInfoId(const HcclRootInfo& info);

}  // namespace hccl
}  // namespace ascend_sim
