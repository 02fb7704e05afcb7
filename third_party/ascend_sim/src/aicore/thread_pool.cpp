#include "aicore/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ascend_sim {

namespace {

thread_local bool t_in_pool_task = false;

inline void spinPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
std::atomic<int> g_thread_limit{0};

// Note [Callers claim from the front, helpers from the back]
// The unclaimed tasks are the range [front, back), packed into one atomic word.
// The calling thread claims from the front, pool workers from the back, so a
// kernel launched again and again on the same data (an optimizer step, the
// same layer every iteration) gives each host thread about the same half of
// it every time: that half is still in the thread's own caches. With both
// ends claiming from one counter the split moved with each wake-up's latency,
// and the resnet18 training step of benchmarks/npu_vs_cpu.py took 10 % longer
// on two cores. Which thread runs which task still never changes a result.
struct TaskRange {
  std::atomic<uint64_t> packed;  // front in the low 32 bits, back in the high 32 bits
  explicit TaskRange(int64_t tasks) : packed(static_cast<uint64_t>(tasks) << 32) {}
  // Claims the first (from_back = false) or last unclaimed task; -1 when none is left.
  int64_t claim(bool from_back) {
    uint64_t cur = packed.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t front = cur & 0xffffffffu, back = cur >> 32;
      if (front >= back) return -1;
      const uint64_t next = from_back ? ((back - 1) << 32 | front) : (back << 32 | (front + 1));
      if (packed.compare_exchange_weak(cur, next, std::memory_order_relaxed))
        return static_cast<int64_t>(from_back ? back - 1 : front);
    }
  }
  bool exhausted() const {
    const uint64_t cur = packed.load(std::memory_order_relaxed);
    return (cur & 0xffffffffu) >= (cur >> 32);
  }
};

// One parallelFor call.
struct Job {
  const std::function<void(int64_t)>* fn = nullptr;
  int64_t tasks = 0;
  TaskRange unclaimed;
  std::atomic<int64_t> done{0};
  int max_helpers = 0;  // pool workers allowed to join (thread limit - caller)
  std::atomic<int> helpers{0};
  std::mutex mu;
  std::condition_variable cv;
  std::exception_ptr error;
  Job(const std::function<void(int64_t)>* f, int64_t n) : fn(f), tasks(n), unclaimed(n) {}
};

// Claims and runs tasks of `job` until none is left.
void drain(Job& job, bool from_back) {
  const bool was_in_task = t_in_pool_task;
  t_in_pool_task = true;
  for (;;) {
    const int64_t i = job.unclaimed.claim(from_back);
    if (i < 0) break;
    try {
      (*job.fn)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.mu);
      if (!job.error) job.error = std::current_exception();
    }
    if (job.done.fetch_add(1) + 1 == job.tasks) {
      std::lock_guard<std::mutex> lock(job.mu);
      job.cv.notify_all();
    }
  }
  t_in_pool_task = was_in_task;
}

class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { loop(); });
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  void post(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(job);
      posts_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
  }

 private:
  // Note [Pool workers spin before sleeping]
  // A worker that finished a job polls for the next post for kSpinMicros before it sleeps. A
  // training step launches its large kernels back to back, microseconds apart; a sleeping worker
  // takes a futex wake-up (tens of microseconds on a virtual machine, whose idle vCPU must be
  // woken by the host) to join, and until it does the caller works alone. Small kernels never
  // post (Note [Small launches stay on the caller]), so a stream of them costs one spin at most.
  static constexpr int kSpinMicros = 50;
  void spinForPost(uint64_t seen) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
    for (int i = 1; posts_.load(std::memory_order_acquire) == seen; ++i) {
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return;
      spinPause();
    }
  }

  void loop() {
    uint64_t seen = 0;
    for (;;) {
      spinForPost(seen);
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        seen = posts_.load(std::memory_order_relaxed);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        // Drop finished jobs; pick the oldest one that still has tasks and room.
        for (auto it = queue_.begin(); it != queue_.end();) {
          Job& j = **it;
          if (j.unclaimed.exhausted()) {
            it = queue_.erase(it);
            continue;
          }
          if (j.helpers.load() < j.max_helpers) {
            j.helpers.fetch_add(1);
            job = *it;
            break;
          }
          ++it;
        }
        if (!job) {
          // Nothing we may help with right now: wait for a new post.
          cv_.wait(lock);
          continue;
        }
      }
      drain(*job, /*from_back=*/true);
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::atomic<uint64_t> posts_{0};  // jobs posted so far (read by spinning workers without mu_)
  std::vector<std::thread> threads_;
};

Pool& pool() {
  // Leaked on purpose: see Note [Simulated cores on host threads].
  static Pool* p = [] {
    unsigned hw = std::thread::hardware_concurrency();
    int workers = hw > 1 ? static_cast<int>(hw) - 1 : 0;  // the caller is the extra thread
    return new Pool(workers);
  }();
  return *p;
}

}  // namespace

int hostThreadCount() {
  const int all = pool().workers() + 1;
  const int lim = g_thread_limit.load();
  return lim > 0 ? std::min(lim, all) : all;
}

void setHostThreadLimitForTesting(int n) { g_thread_limit.store(n < 0 ? 0 : n); }

void parallelFor(int64_t tasks, const std::function<void(int64_t)>& fn) {
  if (tasks <= 0) return;
  const int threads = hostThreadCount();
  if (tasks == 1 || threads <= 1 || t_in_pool_task || tasks > INT32_MAX) {  // TaskRange holds 32-bit ends
    for (int64_t i = 0; i < tasks; ++i) fn(i);
    return;
  }
  auto job = std::make_shared<Job>(&fn, tasks);
  job->max_helpers = static_cast<int>(std::min<int64_t>(threads - 1, tasks - 1));
  pool().post(job);
  drain(*job, /*from_back=*/false);
  {
    std::unique_lock<std::mutex> lock(job->mu);
    job->cv.wait(lock, [&] { return job->done.load() >= job->tasks; });
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace ascend_sim
