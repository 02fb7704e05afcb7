#include "hccl/transport/gloo_store_adapter.h"

#include "hccl/hccl_error.h"

namespace ascend_sim {
namespace hccl {

namespace {
const std::string kGlooPrefix = "gloo/";
}

void GlooStoreAdapter::set(const std::string& key, const std::vector<char>& data) {
  store_.set(kGlooPrefix + key, std::string(data.begin(), data.end()));
}

std::string GlooStoreAdapter::fetch(const std::string& key, std::chrono::milliseconds timeout) {
  std::string value;
  if (!store_.get(kGlooPrefix + key, timeout, &value))
    throwHccl(HCCL_E_TIMEOUT, "timed out after " + std::to_string(timeout.count()) +
                                  " ms waiting for a peer's transport address (store key '" + store_.prefix() +
                                  kGlooPrefix + key + "')");
  return value;
}

std::vector<char> GlooStoreAdapter::get(const std::string& key) {
  const std::string v = fetch(key, timeout_);
  return std::vector<char>(v.begin(), v.end());
}

void GlooStoreAdapter::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  // gloo passes its context timeout; zero or negative means "none given".
  const auto budget = timeout.count() > 0 ? timeout : timeout_;
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (const std::string& k : keys) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    fetch(k, std::max(left, std::chrono::milliseconds(1)));
  }
}

}  // namespace hccl
}  // namespace ascend_sim
