// The build-time half of Note [Verifying the interposed symbols]: loads the device-name hook and then the
// libc10 torch_npu is built against, in the order `import torch` does, and fails if the hook would stand
// aside (a symbol it replaces is missing from libc10 or from the hook itself).
//
//   torch_npu_device_name_check <libtorch_npu_device_name.so> <libc10.so>
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <libtorch_npu_device_name.so> <libc10.so>\n", argv[0]);
    return 2;
  }
  void* hook = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  void* libc10 = hook != nullptr ? dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL) : nullptr;
  if (libc10 == nullptr) {
    std::fprintf(stderr, "error: %s\n", dlerror());
    return 1;
  }
  using StatusFn = const char* (*)();
  auto status = reinterpret_cast<StatusFn>(dlsym(hook, "torch_npu_device_name_hook_status"));
  const char* problem = status != nullptr ? status() : "it does not export torch_npu_device_name_hook_status";
  if (*problem != '\0') {
    std::fprintf(stderr,
                 "error: the \"npu\" device-name hook would stand aside against %s: %s. Update the mangled names "
                 "in csrc/device_name/DeviceName.cpp for this PyTorch.\n",
                 argv[2], problem);
    return 1;
  }
  std::printf("the \"npu\" device-name hook replaces symbols %s defines\n", argv[2]);
  return 0;
}
