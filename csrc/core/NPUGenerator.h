// Note [NPU random numbers]
// Each device has a default Philox generator state: a 64-bit seed and a
// 64-bit offset counting Philox blocks (4 x 32-bit values) consumed so far.
// A random op reserves ceil(numel / 4) blocks (rounded up to a whole number
// of Box-Muller pairs) and passes (seed, offset) to the simulator's
// PhiloxRandom* kernels, so results depend only on the seed and the sequence
// of ops — never on threads or timing.
#pragma once

#include <cstdint>
#include <mutex>
#include <utility>

#include <c10/core/Device.h>

namespace torch_npu {

class NPUGenerator {
 public:
  static NPUGenerator& forDevice(c10::DeviceIndex device);

  void manual_seed(uint64_t seed);
  // Seeds from a non-deterministic source and returns the seed.
  uint64_t seed();
  uint64_t initial_seed() const;
  // Reserves Philox blocks for `numel` values; returns (seed, offset).
  std::pair<uint64_t, uint64_t> reserve(uint64_t numel);
  // Serialised state: (seed, offset).
  std::pair<uint64_t, uint64_t> state() const;
  void set_state(uint64_t seed, uint64_t offset);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_ = 67280421310721ull;  // c10's default_rng_seed_val
  uint64_t offset_ = 0;
};

}  // namespace torch_npu
