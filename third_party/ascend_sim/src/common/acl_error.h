// The simulator's C++ error: an exception that carries the ACL status code the C
// entry point will return (Note [No exception crosses the C boundary] in
// runtime/error_state.h). It sits in common/ so the layers below the runtime
// (chip presets, the kernel registry) can raise it without including the runtime.
#pragma once

#include <stdexcept>
#include <string>

#include "ascend_sim/acl.h"

namespace ascend_sim {

// A runtime failure with a specific status code.
class ASCEND_SIM_API AclError : public std::runtime_error {
 public:
  AclError(aclError code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  aclError code() const { return code_; }

 private:
  aclError code_;
};

[[noreturn]] inline void throwAcl(aclError code, const std::string& msg) { throw AclError(code, msg); }

}  // namespace ascend_sim
