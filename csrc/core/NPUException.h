// Turning simulator (AscendCL-style) status codes into PyTorch exceptions.
#pragma once

#include <c10/util/Exception.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

// Human readable name of an ACL status code ("ACL_ERROR_RT_MEMORY_ALLOCATION").
const char* aclErrorName(aclError code);

}  // namespace torch_npu

// Calls an acl* function; on failure raises a RuntimeError that carries the
// code, its name, the simulator's last error message and the call site.
#define NPU_CHECK_ACL(expr)                                                                  \
  do {                                                                                       \
    const aclError npu_check_acl_status_ = (expr);                                           \
    TORCH_CHECK(npu_check_acl_status_ == ACL_SUCCESS, #expr, " failed with ",                \
                ::torch_npu::aclErrorName(npu_check_acl_status_), " (",                      \
                npu_check_acl_status_, "): ", aclGetRecentErrMsg());                          \
  } while (0)

// Variant for destructors and other noexcept paths: logs instead of throwing.
#define NPU_CHECK_ACL_WARN(expr)                                                             \
  do {                                                                                       \
    const aclError npu_check_acl_status_ = (expr);                                           \
    if (npu_check_acl_status_ != ACL_SUCCESS) {                                              \
      TORCH_WARN(#expr, " failed with ", ::torch_npu::aclErrorName(npu_check_acl_status_),   \
                 ": ", aclGetRecentErrMsg());                                                \
    }                                                                                        \
  } while (0)
