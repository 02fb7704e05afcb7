#include "ascend_sim/acl_sim.h"
#include "runtime/fault_injection.h"

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "runtime/error_state.h"

namespace ascend_sim {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

[[noreturn]] void badSpec(const std::string& rule, const std::string& why) {
  throwAcl(ACL_ERROR_INVALID_PARAM, "fault rule '" + rule + "': " + why +
                                        " (rules: task:<name>[:<n>], hang:<name>[:<n>], malloc[:<n>], separated by ';')");
}

uint64_t ordinal(const std::string& rule, const std::string& text) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n == 0) badSpec(rule, "'" + text + "' is not a count from 1");
  return n;
}

}  // namespace

FaultInjector& FaultInjector::get() {
  static FaultInjector* injector = [] {
    auto* f = new FaultInjector();  // leaked on purpose: stream workers may ask during exit
    if (const char* env = std::getenv("ASCEND_SIM_FAULTS"); env && *env) f->add(env);
    return f;
  }();
  return *injector;
}

void FaultInjector::add(const std::string& spec) {
  std::vector<TaskRule> tasks;
  bool malloc_rule = false;
  uint64_t malloc_countdown = 0;
  for (const std::string& rule : split(spec, ';')) {
    if (rule.empty()) continue;
    const std::vector<std::string> f = split(rule, ':');
    if (f[0] == "task" || f[0] == "hang") {
      if (f.size() < 2 || f.size() > 3 || f[1].empty()) badSpec(rule, "expected " + f[0] + ":<name>[:<n>]");
      tasks.push_back(TaskRule{f[1], f.size() == 3 ? ordinal(rule, f[2]) - 1 : 0, f[0] == "hang"});
    } else if (f[0] == "malloc") {
      if (f.size() > 2) badSpec(rule, "expected malloc[:<n>]");
      malloc_rule = true;
      malloc_countdown = f.size() == 2 ? ordinal(rule, f[1]) - 1 : 0;
    } else {
      badSpec(rule, "unknown kind '" + f[0] + "'");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  task_rules_.insert(task_rules_.end(), tasks.begin(), tasks.end());
  if (malloc_rule) malloc_rule_ = true, malloc_countdown_ = malloc_countdown;
  any_ = !task_rules_.empty() || malloc_rule_;
}

void FaultInjector::clear() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    task_rules_.clear();
    malloc_rule_ = false;
    any_ = false;
    ++clear_generation_;
  }
  cleared_cv_.notify_all();
}

void FaultInjector::setOpExecuteTimeoutMs(uint64_t ms) { timeout_ms_ = ms == 0 ? kDefaultOpExecuteTimeoutMs : ms; }

InjectedFault FaultInjector::hang(std::unique_lock<std::mutex>& lock, const std::string& name) {
  const uint64_t ms = timeout_ms_.load();
  const uint64_t generation = clear_generation_;
  ++hung_;
  const bool released = cleared_cv_.wait_for(lock, std::chrono::milliseconds(ms),
                                             [&] { return clear_generation_ != generation; });
  --hung_;
  if (released)
    return {ACL_ERROR_RT_AICORE_EXCEPTION,
            "injected hang: task '" + name + "' hung on the device until aclsimClearFaults released it"};
  return {ACL_ERROR_RT_AICORE_TIMEOUT, "injected hang: task '" + name +
                                           "' did not finish within the op execute timeout of " + std::to_string(ms) +
                                           " ms (aclrtSetOpExecuteTimeOut; aclsimInjectFault / ASCEND_SIM_FAULTS)"};
}

std::optional<InjectedFault> FaultInjector::onTask(const std::string& name) {
  if (!any_.load(std::memory_order_relaxed)) return std::nullopt;  // the hot path: no rules
  std::unique_lock<std::mutex> lock(mu_);
  for (auto it = task_rules_.begin(); it != task_rules_.end(); ++it) {
    if (it->name != name) continue;
    if (it->countdown > 0) {
      --it->countdown;
      continue;
    }
    const bool hangs = it->hang;
    task_rules_.erase(it);
    any_ = !task_rules_.empty() || malloc_rule_;
    if (hangs) return hang(lock, name);
    return InjectedFault{ACL_ERROR_RT_AICORE_EXCEPTION, "injected fault: task '" + name +
                                                            "' faulted on the device (aclsimInjectFault / ASCEND_SIM_FAULTS)"};
  }
  return std::nullopt;
}

bool FaultInjector::onMalloc() {
  if (!any_.load(std::memory_order_relaxed)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (!malloc_rule_) return false;
  if (malloc_countdown_ > 0) {
    --malloc_countdown_;
    return false;
  }
  return true;
}

}  // namespace ascend_sim
