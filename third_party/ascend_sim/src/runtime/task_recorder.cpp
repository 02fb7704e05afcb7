#include "ascend_sim/acl_sim.h"
#include "runtime/task_recorder.h"

#include <algorithm>
#include <cstring>

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

size_t TaskRecorder::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_.size();
}

std::vector<aclsimTaskRecord> TaskRecorder::exportRange(size_t first, size_t max) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<aclsimTaskRecord> out;
  if (first >= records_.size()) return out;
  const size_t n = std::min(max, records_.size() - first);
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(toAclsimRecord(records_[first + i]));
  return out;
}

namespace {
void copyTruncated(char* dst, size_t cap, const std::string& src) {
  const size_t n = std::min(cap - 1, src.size());
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}
}  // namespace

HostTag& currentHostTag() {
  static thread_local HostTag tag;
  return tag;
}

aclsimTaskRecord toAclsimRecord(const TaskRecord& r) {
  aclsimTaskRecord out;
  std::memset(&out, 0, sizeof out);
  out.host_thread_id = r.host.thread_id;
  out.host_launch_us = r.host.launch_us;
  out.host_launch_id = r.host.launch_id;
  copyTruncated(out.op_type, sizeof out.op_type, r.name);
  out.stream_id = r.stream_id;
  out.start_us = r.start_us;
  out.duration_us = r.duration_us;
  out.bytes = r.bytes;
  switch (r.kind) {
    case TaskKind::kMemcpy:
    case TaskKind::kMemset:
    case TaskKind::kCollective: out.core_type = ACL_CORE_DMA; break;  // HCCL moves data with the DMA engines
    case TaskKind::kOp: out.core_type = ACL_CORE_AI_CORE; break;
    default: out.core_type = ACL_CORE_AI_CPU; break;  // events, callbacks: the task scheduler
  }
  if (r.detail) {
    const TaskDetail& d = *r.detail;
    copyTruncated(out.shapes, sizeof out.shapes, d.shapes);
    out.core_type = d.core;
    out.cube_ratio = d.cube_ratio;
    out.vector_ratio = d.vector_ratio;
    out.mte_ratio = d.mte_ratio;
    out.bytes = d.bytes;
    out.flops = d.flops;
    out.block_dim = d.block_dim;
  }
  return out;
}

void TaskRecorder::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  records_.clear();
  dropped_ = 0;
}

}  // namespace ascend_sim
