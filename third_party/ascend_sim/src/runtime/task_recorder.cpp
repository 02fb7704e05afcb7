#include "runtime/task_recorder.h"

namespace ascend_sim {

void TaskRecorder::setEnabled(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  enabled_ = on;
}

bool TaskRecorder::enabled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return enabled_;
}

void TaskRecorder::add(TaskRecord r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled_) return;
  if (records_.size() >= kMaxRecords) {
    ++dropped_;
    return;
  }
  records_.push_back(std::move(r));
}

std::vector<TaskRecord> TaskRecorder::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_;
}

size_t TaskRecorder::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void TaskRecorder::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  records_.clear();
  dropped_ = 0;
}

}  // namespace ascend_sim
