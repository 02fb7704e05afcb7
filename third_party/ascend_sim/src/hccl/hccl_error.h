// The error type of the HCCL layer: a C++ exception carrying an HcclResult.
// Every Hccl* entry point converts it (and any other exception) into its
// return code and the thread's recent error message; see hccl_guard.h.
#pragma once

#include <stdexcept>
#include <string>

#include "ascend_sim/hccl.h"

namespace ascend_sim {
namespace hccl {

class HcclError : public std::runtime_error {
 public:
  HcclError(HcclResult code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  HcclResult code() const { return code_; }

 private:
  HcclResult code_;
};

[[noreturn]] inline void throwHccl(HcclResult code, const std::string& msg) { throw HcclError(code, msg); }

}  // namespace hccl
}  // namespace ascend_sim
