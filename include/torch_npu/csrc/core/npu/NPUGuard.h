// Device and stream guards for the NPU, as torch_npu spells them (c10_npu in torch_npu/csrc/core/npu/NPUGuard.h).
//
//   { c10_npu::NPUGuard guard(1); ... }               // npu:1 is current inside the scope
//   { c10_npu::NPUStreamGuard guard(stream); ... }    // and the stream too
#pragma once

#include <c10/core/DeviceGuard.h>
#include <c10/core/StreamGuard.h>

#include "torch_npu/csrc/core/npu/NPUStream.h"

namespace c10_npu {

class NPUGuard {
 public:
  explicit NPUGuard(c10::DeviceIndex device) : guard_(c10::Device(c10::DeviceType::PrivateUse1, device)) {}
  explicit NPUGuard(c10::Device device) : guard_(checked(device)) {}
  void set_index(c10::DeviceIndex device) { guard_.set_index(device); }
  c10::Device original_device() const { return guard_.original_device(); }
  c10::Device current_device() const { return guard_.current_device(); }

 private:
  static c10::Device checked(c10::Device device) {
    TORCH_CHECK(device.type() == c10::DeviceType::PrivateUse1, "NPUGuard: expected an NPU device, got ", device);
    return device;
  }
  c10::DeviceGuard guard_;
};

// Sets the device only when given one (a tensor's optional device, say).
class OptionalNPUGuard {
 public:
  OptionalNPUGuard() = default;
  explicit OptionalNPUGuard(c10::optional<c10::Device> device) {
    if (device.has_value()) {
      TORCH_CHECK(device->type() == c10::DeviceType::PrivateUse1, "OptionalNPUGuard: expected an NPU device, got ",
                  *device);
      guard_.reset_device(*device);
    }
  }
  explicit OptionalNPUGuard(c10::optional<c10::DeviceIndex> device) {
    if (device.has_value()) guard_.reset_device(c10::Device(c10::DeviceType::PrivateUse1, *device));
  }
  c10::optional<c10::Device> original_device() const { return guard_.original_device(); }
  c10::optional<c10::Device> current_device() const { return guard_.current_device(); }

 private:
  c10::OptionalDeviceGuard guard_;
};

class NPUStreamGuard {
 public:
  explicit NPUStreamGuard(const NPUStream& stream) : guard_(stream.unwrap()) {}
  explicit NPUStreamGuard(c10::Stream stream) : guard_(checked(stream)) {}
  NPUStream original_stream() const { return NPUStream(guard_.original_stream()); }
  NPUStream current_stream() const { return NPUStream(guard_.current_stream()); }

 private:
  static c10::Stream checked(c10::Stream stream) {
    TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1, "NPUStreamGuard: expected an NPU stream, got ",
                stream);
    return stream;
  }
  c10::StreamGuard guard_;
};

}  // namespace c10_npu
