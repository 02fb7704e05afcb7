// Note [NPU random numbers]
// Each device has a default Philox generator state: a 64-bit seed and a
// 64-bit offset counting Philox blocks (4 x 32-bit values) consumed so far.
// A random op reserves ceil(numel / 4) blocks (rounded up to a whole number
// of Box-Muller pairs) and passes (seed, offset) to the simulator's
// PhiloxRandom* kernels, so results depend only on the seed and the sequence
// of ops — never on threads or timing.
//
// The state lives in a c10::GeneratorImpl, so it is a torch.Generator as
// PyTorch knows it: torch.npu.default_generators[i] is the device's default,
// torch.Generator(device="npu") makes a new one (Note [NPU torch.Generator]
// in torch_npu/npu/generator.py), and random ops take it as `generator=`.
// Its get_state()/set_state() tensor is 16 bytes: seed and offset, little
// endian — the format of torch.npu.get_rng_state().
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>
#include <c10/core/GeneratorImpl.h>

#include <cstdint>
#include <mutex>
#include <utility>

namespace torch_npu {

class NPUGenerator : public c10::GeneratorImpl {
 public:
  explicit NPUGenerator(c10::DeviceIndex device);

  // The device's default generator.
  static NPUGenerator& forDevice(c10::DeviceIndex device);
  static const at::Generator& defaultGenerator(c10::DeviceIndex device);
  // The generator an op with a `generator=` argument uses: the given one
  // (which must be an NPU generator) or the default of `device`.
  static NPUGenerator& resolve(const c10::optional<at::Generator>& generator, c10::Device device, const char* op);

  void manual_seed(uint64_t seed);
  // Reserves Philox blocks for `numel` values; returns (seed, offset).
  std::pair<uint64_t, uint64_t> reserve(uint64_t numel);
  // Serialised state: (seed, offset).
  std::pair<uint64_t, uint64_t> state() const;
  void set_state(uint64_t seed, uint64_t offset);
  uint64_t initial_seed() const { return current_seed(); }

  // c10::GeneratorImpl
  void set_current_seed(uint64_t seed) override { manual_seed(seed); }
  uint64_t current_seed() const override;
  // Seeds from a non-deterministic source and returns the seed.
  uint64_t seed() override;
  void set_state(const c10::TensorImpl& new_state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

 private:
  NPUGenerator* clone_impl() const override;

  mutable std::mutex state_mutex_;
  uint64_t seed_ = 67280421310721ull;  // c10's default_rng_seed_val
  uint64_t offset_ = 0;
};

// A new generator of `device` with the default seed.
at::Generator makeNPUGenerator(c10::DeviceIndex device);

}  // namespace torch_npu
