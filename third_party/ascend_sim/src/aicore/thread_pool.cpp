#include "aicore/thread_pool.h"

#include <algorithm>
#include <atomic>
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
std::atomic<int> g_thread_limit{0};

// One parallelFor call: tasks are claimed through `next`.
struct Job {
  const std::function<void(int64_t)>* fn = nullptr;
  int64_t tasks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int max_helpers = 0;  // pool workers allowed to join (thread limit - caller)
  std::atomic<int> helpers{0};
  std::mutex mu;
  std::condition_variable cv;
  std::exception_ptr error;
};

// Claims and runs tasks of `job` until none is left.
void drain(Job& job) {
  const bool was_in_task = t_in_pool_task;
  t_in_pool_task = true;
  for (;;) {
    const int64_t i = job.next.fetch_add(1);
    if (i >= job.tasks) break;
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
    }
    cv_.notify_all();
  }

 private:
  void loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        // Drop finished jobs; pick the oldest one that still has tasks and room.
        for (auto it = queue_.begin(); it != queue_.end();) {
          Job& j = **it;
          if (j.next.load() >= j.tasks) {
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
      drain(*job);
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
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

void parallelFor(int64_t tasks, int64_t elements, const std::function<void(int64_t)>& fn) {
  if (elements >= kMinParallelElements) return parallelFor(tasks, fn);
  for (int64_t i = 0; i < tasks; ++i) fn(i);  // Note [Small launches stay on the caller]
}

void parallelFor(int64_t tasks, const std::function<void(int64_t)>& fn) {
  if (tasks <= 0) return;
  const int threads = hostThreadCount();
  if (tasks == 1 || threads <= 1 || t_in_pool_task) {
    for (int64_t i = 0; i < tasks; ++i) fn(i);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->tasks = tasks;
  job->max_helpers = static_cast<int>(std::min<int64_t>(threads - 1, tasks - 1));
  pool().post(job);
  drain(*job);
  {
    std::unique_lock<std::mutex> lock(job->mu);
    job->cv.wait(lock, [&] { return job->done.load() >= job->tasks; });
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace ascend_sim
