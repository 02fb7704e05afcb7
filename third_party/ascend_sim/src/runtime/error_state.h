// Errors of the runtime: a C++ exception with an ACL status code, the
// thread-local "recent error message", and the guard every C entry point uses.
//
// Note [No exception crosses the C boundary]
// Every extern "C" function runs its body inside guardApi(), which catches
// everything: AclError and KernelError keep their specific code,
// std::bad_alloc becomes ACL_ERROR_BAD_ALLOC and anything else
// ACL_ERROR_RT_INTERNAL_ERROR. The message is prefixed with the API name and
// stored per host thread for aclGetRecentErrMsg(). A successful call does not
// clear the message (it is the message of the most recent *failed* call).
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "ascend_sim/acl.h"
#include "common/acl_error.h"
#include "kernel/kernel.h"

namespace ascend_sim {

// Records `msg` as the calling thread's most recent error.
void setRecentError(const std::string& msg);
const char* recentError();

// "0x7f12..." for messages.
std::string ptrString(const void* p);

// Runs body(); converts any exception into its status code and records
// "<api>: <message>" as the recent error.
template <typename Body>
aclError guardApi(const char* api, Body&& body) noexcept {
  try {
    body();
    return ACL_SUCCESS;
  } catch (const AclError& e) {
    setRecentError(std::string(api) + ": " + e.what());
    return e.code();
  } catch (const KernelError& e) {
    setRecentError(std::string(api) + ": " + e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    setRecentError(std::string(api) + ": host memory allocation failed");
    return ACL_ERROR_BAD_ALLOC;
  } catch (const std::exception& e) {
    setRecentError(std::string(api) + ": internal error: " + e.what());
    return ACL_ERROR_RT_INTERNAL_ERROR;
  } catch (...) {
    setRecentError(std::string(api) + ": internal error: unknown exception");
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
}

}  // namespace ascend_sim
