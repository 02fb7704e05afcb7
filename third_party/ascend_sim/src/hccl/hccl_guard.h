// The guard every Hccl* entry point runs its body in (the HCCL counterpart of
// guardApi, see Note [No exception crosses the C boundary] in
// runtime/error_state.h): any exception becomes an HcclResult, and
// "<api>: <message>" becomes the thread's recent error (aclGetRecentErrMsg).
//   HcclError                      its code
//   AclError ACL_ERROR_RT_INVALID_MEMORY   HCCL_E_MEMORY (a buffer is not device memory)
//   other AclError / KernelError   HCCL_E_RUNTIME (bad stream, bad device, ...)
//   std::bad_alloc                 HCCL_E_INTERNAL ("host memory allocation failed")
//   anything else                  HCCL_E_INTERNAL
#pragma once

#include <new>
#include <string>

#include "hccl/hccl_error.h"
#include "runtime/error_state.h"

namespace ascend_sim {
namespace hccl {

template <typename Body>
HcclResult guardHccl(const char* api, Body&& body) noexcept {
  try {
    body();
    return HCCL_SUCCESS;
  } catch (const HcclError& e) {
    setRecentError(std::string(api) + ": " + e.what());
    return e.code();
  } catch (const AclError& e) {
    setRecentError(std::string(api) + ": " + e.what());
    return e.code() == ACL_ERROR_RT_INVALID_MEMORY ? HCCL_E_MEMORY : HCCL_E_RUNTIME;
  } catch (const KernelError& e) {
    setRecentError(std::string(api) + ": " + e.what());
    return HCCL_E_RUNTIME;
  } catch (const std::bad_alloc&) {
    setRecentError(std::string(api) + ": host memory allocation failed");
    return HCCL_E_INTERNAL;
  } catch (const std::exception& e) {
    setRecentError(std::string(api) + ": internal error: " + e.what());
    return HCCL_E_INTERNAL;
  } catch (...) {
    setRecentError(std::string(api) + ": internal error: unknown exception");
    return HCCL_E_INTERNAL;
  }
}

}  // namespace hccl
}  // namespace ascend_sim
