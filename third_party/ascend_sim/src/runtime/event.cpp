#include "runtime/event.h"

#include <algorithm>

namespace ascend_sim {

uint64_t Event::beginRecord(const std::shared_ptr<Stream>& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  last_stream_ = stream;
  return ++recorded_;
}

void Event::complete(uint64_t seq, double time_us, std::string failure) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure.empty()) failures_[seq] = std::move(failure);
    if (seq >= completed_) {
      completed_ = seq;
      time_us_ = time_us;
    }
  }
  cv_.notify_all();
}

std::string Event::failureOf(uint64_t seq) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = failures_.find(seq);
  return it == failures_.end() ? std::string() : it->second;
}

uint64_t Event::recordedSeq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

void Event::waitFor(uint64_t seq) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return completed_ >= seq; });
}

bool Event::completed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= recorded_;
}

bool Event::timeIfComplete(double* time_us) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (recorded_ == 0 || completed_ < recorded_) return false;
  *time_us = time_us_;
  return true;
}

double Event::latestTimeUs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return time_us_;
}

std::shared_ptr<Stream> Event::lastStream() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_stream_.lock();
}

}  // namespace ascend_sim
