#include "csrc/core/NPUGenerator.h"

#include <memory>
#include <random>
#include <vector>

#include "csrc/core/NPUFunctions.h"

namespace torch_npu {

NPUGenerator& NPUGenerator::forDevice(c10::DeviceIndex device) {
  static auto* all = [] {
    auto* v = new std::vector<std::unique_ptr<NPUGenerator>>();  // leaked with the process
    for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<NPUGenerator>());
    return v;
  }();
  check_device_index(device);
  return *(*all)[device];
}

void NPUGenerator::manual_seed(uint64_t seed) { set_state(seed, 0); }

uint64_t NPUGenerator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

uint64_t NPUGenerator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

std::pair<uint64_t, uint64_t> NPUGenerator::reserve(uint64_t numel) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t blocks = (numel + 7) / 8 * 2;  // whole Box-Muller pairs of 4-value blocks
  const auto result = std::make_pair(seed_, offset_);
  offset_ += blocks;
  return result;
}

std::pair<uint64_t, uint64_t> NPUGenerator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {seed_, offset_};
}

void NPUGenerator::set_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = offset;
}

}  // namespace torch_npu
