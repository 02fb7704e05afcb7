// Note [Making "npu" a native device name]
//
// PyTorch 1.13 has no API to rename the PrivateUse1 backend: c10 only parses
// the device strings it knows ("cpu", "cuda", ..., "privateuseone") and names
// PrivateUse1 "privateuseone" everywhere (t.device, printing, pickling,
// TorchScript, error messages). Ascend's torch_npu patches dozens of Python
// entry points to pretend otherwise; those patches miss every C++ parser.
//
// We instead interpose the two exported libc10 functions that parse and name
// device types:
//   c10::Device::Device(const std::string&)  -- "npu", "npu:3" -> PrivateUse1
//   c10::DeviceTypeName(DeviceType, bool)     -- PrivateUse1 -> "npu" / "NPU"
// Every other string / type is forwarded to libc10's own definition, found
// with dlsym(RTLD_NEXT, ...). This library has no dependency on libc10: it
// only needs to be loaded with RTLD_GLOBAL *before* libc10 (i.e. before
// `import torch`), so that the dynamic linker binds libc10's callers to these
// definitions. torch_npu installs a tiny start-up hook (a .pth file) that
// does exactly that; see torch_npu/_preload.py. If torch was imported without
// the hook, torch_npu detects it and degrades to the "privateuseone" name
// (see torch_npu/_device_name.py).
#include <dlfcn.h>
#include <link.h>

#include <stdexcept>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>

namespace {

constexpr const char* kNpuName = "npu";

using DeviceCtor = void (*)(c10::Device*, const std::string&);
using DeviceTypeNameFn = std::string (*)(c10::DeviceType, bool);

// Handle of the already loaded libc10 (our callers live in it or link it).
// RTLD_NEXT cannot be used: this library is loaded first, so libc10 is not
// in its lookup scope.
void* libc10Handle() {
  std::string path;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* out) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("/libc10.so") != std::string::npos) {
          *static_cast<std::string*>(out) = name;
          return 1;
        }
        return 0;
      },
      &path);
  return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
}

template <typename Fn>
Fn nextDefinition(const char* mangled) {
  static void* handle = libc10Handle();
  void* sym = handle ? dlsym(handle, mangled) : nullptr;
  if (sym == nullptr) {
    throw std::runtime_error(std::string("torch_npu device-name hook: cannot find ") + mangled +
                             " in libc10");
  }
  return reinterpret_cast<Fn>(sym);
}

// "npu", "npu:N" -> index (-1 without ":N"); anything else -> false.
bool parseNpuString(const std::string& s, int* index) {
  const size_t n = std::char_traits<char>::length(kNpuName);
  if (s.compare(0, n, kNpuName) != 0) return false;
  if (s.size() == n) {
    *index = -1;
    return true;
  }
  if (s[n] != ':' || s.size() == n + 1) return false;
  int value = 0;
  for (size_t i = n + 1; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (s.size() - (n + 1) > 1 && s[n + 1] == '0') return false;  // no leading zeros
    value = value * 10 + (s[i] - '0');
    if (value > 127) return false;  // DeviceIndex is int8_t
  }
  *index = value;
  return true;
}

}  // namespace

namespace c10 {

Device::Device(const std::string& device_string) : Device(DeviceType::CPU) {
  int index = -1;
  if (parseNpuString(device_string, &index)) {
    type_ = DeviceType::PrivateUse1;
    index_ = static_cast<DeviceIndex>(index);
    return;
  }
  static const DeviceCtor original =
      nextDefinition<DeviceCtor>("_ZN3c106DeviceC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
  original(this, device_string);
}

std::string DeviceTypeName(DeviceType d, bool lower_case) {
  if (d == DeviceType::PrivateUse1) return lower_case ? "npu" : "NPU";
  static const DeviceTypeNameFn original =
      nextDefinition<DeviceTypeNameFn>("_ZN3c1014DeviceTypeNameB5cxx11ENS_10DeviceTypeEb");
  return original(d, lower_case);
}

}  // namespace c10

// Lets Python check that the hook is the one libc10's callers bind to.
extern "C" __attribute__((visibility("default"))) int torch_npu_device_name_hook_version() { return 1; }
