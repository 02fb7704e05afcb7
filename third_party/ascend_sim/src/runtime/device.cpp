#include "runtime/device.h"

#include <algorithm>

namespace ascend_sim {

Device::Device(int logical_id, int physical_id, size_t hbm_capacity, bool profile)
    : id_(logical_id), physical_id_(physical_id), hbm_capacity_(hbm_capacity) {
  recorder_.setEnabled(profile);
  default_stream_ = std::make_shared<Stream>(id_, 0, &recorder_, &utilization_);
}

HbmArena& Device::arena() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!arena_) arena_ = std::make_unique<HbmArena>(id_, hbm_capacity_);
  return *arena_;
}

HbmArena* Device::arenaIfCreated() {
  std::lock_guard<std::mutex> lock(mu_);
  return arena_.get();
}

void Device::setHbmCapacity(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  hbm_capacity_ = bytes;
}

std::shared_ptr<Stream> Device::defaultStream() {
  std::lock_guard<std::mutex> lock(mu_);
  return default_stream_;
}

std::shared_ptr<Stream> Device::createStream() {
  std::lock_guard<std::mutex> lock(mu_);
  auto s = std::make_shared<Stream>(id_, next_stream_id_++, &recorder_, &utilization_);
  user_streams_.push_back(s);
  return s;
}

void Device::removeStream(const std::shared_ptr<Stream>& s) {
  std::lock_guard<std::mutex> lock(mu_);
  user_streams_.erase(std::remove(user_streams_.begin(), user_streams_.end(), s), user_streams_.end());
}

std::vector<std::shared_ptr<Stream>> Device::streams() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<Stream>> all{default_stream_};
  all.insert(all.end(), user_streams_.begin(), user_streams_.end());
  return all;
}

void Device::waitIdle() {
  for (auto& s : streams()) s->waitIdle();
}

bool Device::takeFault(StreamFault* out) {
  bool found = false;
  for (auto& s : streams()) {
    StreamFault f;
    if (s->takeFault(&f) && !found) {
      *out = std::move(f);
      found = true;
    }
  }
  return found;
}

double Device::simTimeUs() {
  double t = 0;
  for (auto& s : streams()) t = std::max(t, s->clockUs());
  return t;
}

void Device::reset() {
  waitIdle();
  std::vector<std::shared_ptr<Stream>> doomed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    doomed.swap(user_streams_);
    arena_.reset();
  }
  doomed.clear();  // joins the workers (queues are already empty)
  StreamFault ignored;
  default_stream_->takeFault(&ignored);
  default_stream_->resetClock();
  recorder_.clear();
  overflow_.store(false);
}

}  // namespace ascend_sim
