// Helpers for the HCCL suites: an in-memory rendezvous store, and groups of
// ranks run as threads of this process (rank r on simulated device r, each
// with its own stream), as Gloo's tests do.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ascend_sim/acl.h"
#include "ascend_sim/hccl.h"
#include "ascend_sim/hccl_sim.h"
#include "runtime_test_util.h"

#define EXPECT_HCCL_OK(expr) EXPECT_EQ((expr), HCCL_SUCCESS) << aclGetRecentErrMsg()
#define ASSERT_HCCL_OK(expr) ASSERT_EQ((expr), HCCL_SUCCESS) << aclGetRecentErrMsg()
#define EXPECT_HCCL_ERR(expr, code) EXPECT_EQ((expr), (code)) << aclGetRecentErrMsg()

namespace ascend_sim {
namespace test {

// A key-value store shared by the rank threads (what the c10d Store is for
// the torch plugin).
class MemStore {
 public:
  HcclSimStore view() { return HcclSimStore{this, &MemStore::set, &MemStore::get}; }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return kv_.size();
  }

 private:
  static int set(void* ctx, const char* key, const void* value, size_t size) {
    auto* s = static_cast<MemStore*>(ctx);
    {
      std::lock_guard<std::mutex> lock(s->mu_);
      s->kv_[key] = std::string(static_cast<const char*>(value), size);
    }
    s->cv_.notify_all();
    return 0;
  }
  static int get(void* ctx, const char* key, uint32_t timeoutMs,
                 void (*sink)(void* sinkCtx, const void* data, size_t size), void* sinkCtx) {
    auto* s = static_cast<MemStore*>(ctx);
    std::unique_lock<std::mutex> lock(s->mu_);
    if (!s->cv_.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return s->kv_.count(key) > 0; })) return 1;
    const std::string v = s->kv_[key];
    lock.unlock();
    sink(sinkCtx, v.data(), v.size());
    return 0;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> kv_;
};

// Runs fn(rank) on p threads, rank r's thread on device r; joins them all.
inline void runRanks(int p, const std::function<void(int rank)>& fn) {
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r)
    threads.emplace_back([&fn, r] {
      EXPECT_EQ(aclrtSetDevice(r), ACL_SUCCESS) << aclGetRecentErrMsg();
      fn(r);
    });
  for (auto& t : threads) t.join();
}

// Sets an environment variable for the lifetime of the guard.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

// A communicator of p ranks (created by p threads, rank r on device r) and a
// stream per rank. Destroys both at the end. With servers > 1, rank r is on
// simulated server "server<r / (p / servers)>" (HcclSimCommConfig::serverId).
class Group {
 public:
  explicit Group(int p, uint32_t timeout_ms = 20000, int servers = 1)
      : p_(p), comms_(p), streams_(p), results_(p), messages_(p) {
    HcclRootInfo root;
    EXPECT_HCCL_OK(HcclGetRootInfo(&root));
    HcclSimStore store = store_.view();
    runRanks(p, [&](int r) {
      const std::string server = "server" + std::to_string(r / std::max(1, p / servers));
      HcclSimCommConfig cfg{timeout_ms, nullptr, servers > 1 ? server.c_str() : nullptr};
      EXPECT_EQ(aclrtCreateStream(&streams_[r]), ACL_SUCCESS) << aclGetRecentErrMsg();
      results_[r] = HcclSimCommInitRootInfoStore(p, &root, r, &store, &cfg, &comms_[r]);
      if (results_[r] != HCCL_SUCCESS) messages_[r] = aclGetRecentErrMsg();
    });
  }
  ~Group() {
    runRanks(p_, [&](int r) {
      if (comms_[r]) { EXPECT_HCCL_OK(HcclCommDestroy(comms_[r])); }
      if (streams_[r]) { EXPECT_EQ(aclrtDestroyStream(streams_[r]), ACL_SUCCESS); }
    });
  }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;

  bool ok() const {
    for (HcclResult r : results_)
      if (r != HCCL_SUCCESS) return false;
    return true;
  }
  int size() const { return p_; }
  HcclComm comm(int r) const { return comms_[r]; }
  aclrtStream stream(int r) const { return streams_[r]; }
  HcclResult initResult(int r) const { return results_[r]; }
  const std::string& initMessage(int r) const { return messages_[r]; }
  // The test destroyed rank r's communicator itself.
  void forget(int r) { comms_[r] = nullptr; }

 private:
  int p_;
  MemStore store_;
  std::vector<HcclComm> comms_;
  std::vector<aclrtStream> streams_;
  std::vector<HcclResult> results_;
  std::vector<std::string> messages_;  // per rank: init error text
};

// A device buffer of `bytes` on the current device (at least 1 byte).
class DevBuf {
 public:
  explicit DevBuf(size_t bytes) : bytes_(bytes) {
    EXPECT_EQ(aclrtMalloc(&p_, bytes ? bytes : 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  ~DevBuf() { aclrtFree(p_); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  void* get() const { return p_; }
  char* at(size_t offset) const { return static_cast<char*>(p_) + offset; }
  void upload(const std::vector<uint8_t>& v) const {
    if (!v.empty()) { EXPECT_EQ(aclrtMemcpy(p_, bytes_, v.data(), v.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS); }
  }
  std::vector<uint8_t> download(size_t n) const {
    std::vector<uint8_t> v(n);
    if (n) {
      EXPECT_EQ(aclrtMemcpy(v.data(), n, p_, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << aclGetRecentErrMsg();
    }
    return v;
  }

 private:
  void* p_ = nullptr;
  size_t bytes_;
};

}  // namespace test
}  // namespace ascend_sim
