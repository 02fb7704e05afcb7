// The kernel registry: op type -> KernelDef. Created on first use and leaked,
// so kernels may register from static initialisers in any translation unit.
#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernel/kernel.h"
#include "common/acl_error.h"

namespace ascend_sim {

namespace {
struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, KernelDef> kernels;
};
Registry& registry() {
  static Registry* r = new Registry();  // leaked on purpose
  return *r;
}
}  // namespace

void registerKernel(const KernelDef& def) {
  if (!def.op_type || !*def.op_type || !def.validate || !def.compute || !def.cost)
    throwAcl(ACL_ERROR_INVALID_PARAM, std::string("registerKernel: incomplete KernelDef for op type '") +
                                          (def.op_type ? def.op_type : "(null)") + "'");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  // Re-registering replaces the previous kernel (tests install fakes).
  r.kernels[def.op_type] = def;
}

const KernelDef* findKernel(std::string_view op_type) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.kernels.find(std::string(op_type));
  // Entries are never erased and unordered_map nodes are stable.
  return it == r.kernels.end() ? nullptr : &it->second;
}

std::vector<std::string> registeredOpTypes() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (auto& kv : r.kernels) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ascend_sim
