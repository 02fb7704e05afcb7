#include "csrc/core/NPUGenerator.h"

#include <ATen/Functions.h>
#include <c10/core/TensorImpl.h>

#include <cstring>
#include <random>
#include <vector>

#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUGraph.h"

namespace torch_npu {
namespace {
constexpr int64_t kStateBytes = 16;
}

NPUGenerator::NPUGenerator(c10::DeviceIndex device)
    : c10::GeneratorImpl(c10::Device(c10::DeviceType::PrivateUse1, device),
                         c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)) {}

const at::Generator& NPUGenerator::defaultGenerator(c10::DeviceIndex device) {
  static auto* all = [] {
    auto* v = new std::vector<at::Generator>();  // leaked with the process
    for (int i = 0; i < device_count(); ++i) v->push_back(makeNPUGenerator(static_cast<c10::DeviceIndex>(i)));
    return v;
  }();
  check_device_index(device);
  return (*all)[device];
}

NPUGenerator& NPUGenerator::forDevice(c10::DeviceIndex device) {
  return *defaultGenerator(device).get<NPUGenerator>();
}

NPUGenerator& NPUGenerator::resolve(const c10::optional<at::Generator>& generator, c10::Device device,
                                    const char* op) {
  if (!generator.has_value() || !generator->defined()) return forDevice(device.index());
  TORCH_CHECK(generator->device().type() == c10::DeviceType::PrivateUse1, op,
              ": expected a generator of the npu device, got one of ", generator->device(),
              " (make one with torch.Generator(device=\"npu\") or use torch.npu.default_generators)");
  return *generator->get<NPUGenerator>();
}

void NPUGenerator::manual_seed(uint64_t seed) { set_state(seed, 0); }

uint64_t NPUGenerator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

uint64_t NPUGenerator::current_seed() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return seed_;
}

std::pair<uint64_t, uint64_t> NPUGenerator::reserve(uint64_t numel) {
  // Note [NPU graphs]: a replay would draw the same numbers every time.
  refuseDuringCapture(device().index(), "A random op (its Philox seed and offset are fixed at launch)");
  std::lock_guard<std::mutex> lock(state_mutex_);
  const uint64_t blocks = (numel + 7) / 8 * 2;  // whole Box-Muller pairs of 4-value blocks
  const auto result = std::make_pair(seed_, offset_);
  offset_ += blocks;
  return result;
}

std::pair<uint64_t, uint64_t> NPUGenerator::state() const {
  std::lock_guard<std::mutex> lock(state_mutex_);
  return {seed_, offset_};
}

void NPUGenerator::set_state(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(state_mutex_);
  seed_ = seed;
  offset_ = offset;
}

// Little-endian host assumed, as everywhere in the simulator.
void NPUGenerator::set_state(const c10::TensorImpl& new_state) {
  TORCH_CHECK(new_state.dtype() == caffe2::TypeMeta::Make<uint8_t>() && new_state.device().is_cpu(),
              "NPU generator state must be a CPU torch.uint8 tensor, got ", new_state.dtype(), " on ",
              new_state.device());
  TORCH_CHECK(new_state.numel() == kStateBytes, "NPU generator state must have ", kStateBytes,
              " bytes (seed and offset), got ", new_state.numel());
  TORCH_CHECK(new_state.is_contiguous(), "NPU generator state must be contiguous");
  uint64_t words[2];
  std::memcpy(words, new_state.data(), kStateBytes);
  set_state(words[0], words[1]);
}

c10::intrusive_ptr<c10::TensorImpl> NPUGenerator::get_state() const {
  at::Tensor out = at::empty({kStateBytes}, at::TensorOptions().dtype(at::kByte));
  const auto [seed, offset] = state();
  const uint64_t words[2] = {seed, offset};
  std::memcpy(out.data_ptr(), words, kStateBytes);
  return out.getIntrusivePtr();
}

NPUGenerator* NPUGenerator::clone_impl() const {
  auto* copy = new NPUGenerator(device().index());
  const auto [seed, offset] = state();
  copy->set_state(seed, offset);
  return copy;
}

at::Generator makeNPUGenerator(c10::DeviceIndex device) {
  check_device_index(device);
  return at::make_generator<NPUGenerator>(device);
}

}  // namespace torch_npu
