#include "runtime/error_state.h"

#include <cstdio>

namespace ascend_sim {

namespace {
thread_local std::string t_recent_error;
}

void setRecentError(const std::string& msg) {
  try {
    t_recent_error = msg;
  } catch (...) {
    // Out of host memory while recording the error: keep the old message.
  }
}

const char* recentError() { return t_recent_error.c_str(); }

std::string ptrString(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

}  // namespace ascend_sim

extern "C" ASCEND_SIM_API const char* aclGetRecentErrMsg(void) { return ascend_sim::recentError(); }
