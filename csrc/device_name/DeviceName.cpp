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
// Every other string / type is forwarded to libc10's own definition. This
// library has no dependency on libc10: it only needs to be loaded with
// RTLD_GLOBAL *before* libc10 (i.e. before `import torch`), so that the
// dynamic linker binds libc10's callers to these definitions. torch_npu
// installs a tiny start-up hook (a .pth file) that does exactly that; see
// torch_npu/_preload.py. If torch was imported without the hook, torch_npu
// detects it and degrades to the "privateuseone" name (see
// torch_npu/_device_name.py).
//
// Because this library is loaded first, libc10 is not in its lookup scope and
// dlsym(RTLD_NEXT, ...) cannot find the originals. They are looked up by their
// mangled names with dlsym on libc10's own handle, found among the loaded
// objects with dl_iterate_phdr once libc10 is loaded (see resolve()).
//
// Note [Verifying the interposed symbols]
//
// The interposition works only while the mangled names below are what libc10
// exports; a libc10 built from other headers (a new PyTorch, another C++ ABI)
// may not define them. The dynamic linker would then bind callers to libc10's
// new symbols and never to ours, silently or -- worse -- only for one of the
// two functions: "npu" would print but not parse. So before either interposer
// takes effect, resolve() checks that both names are defined by this library
// and by the libc10 in the process. This cannot happen when the library is
// loaded (libc10 is not loaded yet), so it runs lazily, once: at the first
// call of an interposer (whose caller has loaded libc10), or of
// torch_npu_device_name_hook_status() after libc10 is loaded (import
// torch_npu asks for it). If a name is missing, both interposers
// only forward -- the documented "privateuseone" mode -- and the status names
// the missing symbol; torch_npu/_device_name.py turns it into a warning.
// TORCH_NPU_DEVICE_NAME_HOOK_TEST_MISSING=<mangled name> makes the check treat
// that name as missing from libc10, so the fallback can be tested. The build
// runs the same check against the libc10 it builds against
// (CheckSymbols.cpp) and fails if the hook would stand aside.
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>

extern "C" __attribute__((visibility("default"))) const char* torch_npu_device_name_hook_status();

namespace {

constexpr const char* kNpuName = "npu";

using DeviceCtor = void (*)(c10::Device*, const std::string&);
using DeviceTypeNameFn = std::string (*)(c10::DeviceType, bool);

// The libc10 symbols this library replaces (see Note [Verifying the interposed symbols]).
struct Symbol {
  const char* mangled;
  const char* signature;
};
constexpr Symbol kDeviceCtor{"_ZN3c106DeviceC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                             "c10::Device::Device(const std::string&)"};
constexpr Symbol kDeviceTypeName{"_ZN3c1014DeviceTypeNameB5cxx11ENS_10DeviceTypeEb",
                                 "c10::DeviceTypeName(DeviceType, bool)"};

// Path of the loaded libc10, or "" before it is loaded.
std::string libc10Path() {
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
  return path;
}

// Whether this library itself defines `mangled`, i.e. the name matches one of our definitions.
bool definedHere(const char* mangled) {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&torch_npu_device_name_hook_status), &self) == 0) return false;
  void* handle = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  void* sym = handle ? dlsym(handle, mangled) : nullptr;
  Dl_info found;
  return sym != nullptr && dladdr(sym, &found) != 0 && found.dli_fbase == self.dli_fbase;
}

// libc10's definitions, and whether the interposers are active.
struct Originals {
  DeviceCtor device_ctor = nullptr;
  DeviceTypeNameFn device_type_name = nullptr;
  std::string problem;  // empty: active; else why the interposers only forward
};

Originals* resolve() {
  auto* o = new Originals();  // never freed: interposers may run during static destruction
  const std::string path = libc10Path();
  // Not dlsym(nullptr, ...): that is RTLD_DEFAULT, which finds our own definitions.
  void* libc10 = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (libc10 == nullptr) {
    o->problem = "libc10 is not loaded";
    return o;
  }
  const char* hidden = std::getenv("TORCH_NPU_DEVICE_NAME_HOOK_TEST_MISSING");
  auto lookup = [&](const Symbol& symbol) {
    void* sym = dlsym(libc10, symbol.mangled);
    const char* missing = nullptr;
    if (sym == nullptr || (hidden != nullptr && symbol.mangled == std::string(hidden))) {
      missing = "libc10 does not define ";
    } else if (!definedHere(symbol.mangled)) {
      missing = "this library does not define ";
      sym = nullptr;  // a libc10 function we do not replace: its signature is unknown, never call it
    }
    if (missing != nullptr) {
      o->problem += std::string(o->problem.empty() ? "" : "; ") + missing + symbol.mangled + " (" +
                    symbol.signature + ")";
    }
    return sym;
  };
  o->device_ctor = reinterpret_cast<DeviceCtor>(lookup(kDeviceCtor));
  o->device_type_name = reinterpret_cast<DeviceTypeNameFn>(lookup(kDeviceTypeName));
  return o;
}

// Resolved once, at the first call from a caller of libc10 (libc10 is loaded by then).
const Originals& originals() {
  static const Originals* resolved = resolve();
  return *resolved;
}

bool active() { return originals().problem.empty(); }

template <typename Fn>
Fn forwardTo(Fn original, const Symbol& symbol) {
  if (original == nullptr) {
    throw std::runtime_error(std::string("torch_npu device-name hook: cannot find ") + symbol.mangled +
                             " in libc10");
  }
  return original;
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
  if (active() && parseNpuString(device_string, &index)) {
    type_ = DeviceType::PrivateUse1;
    index_ = static_cast<DeviceIndex>(index);
    return;
  }
  forwardTo(originals().device_ctor, kDeviceCtor)(this, device_string);
}

std::string DeviceTypeName(DeviceType d, bool lower_case) {
  if (active() && d == DeviceType::PrivateUse1) return lower_case ? "npu" : "NPU";
  return forwardTo(originals().device_type_name, kDeviceTypeName)(d, lower_case);
}

}  // namespace c10

// For torch_npu/_device_name.py: "" if the interposers are active, else why they only forward (naming the
// missing symbols). Before libc10 is loaded it says so and decides nothing.
extern "C" const char* torch_npu_device_name_hook_status() {
  if (libc10Path().empty()) return "libc10 is not loaded yet";
  return originals().problem.c_str();
}
