// Ascend C on the simulator: ACLRT_LAUNCH_KERNEL, CANN's launch of a kernel by name over blockDim
// cores on a stream, Note [Ascend C kernels on the simulator] in ascend_sim/aclsim_kernel.h.
//
//   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n);
//   ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, xDevice, yDevice, zDevice, n);
//
// Arguments are kept by value until the launch has run (device pointers, scalars, tiling structs).
// The call returns the launch's ACL status; a block that breaks a rule of the chip fails the stream's
// next synchronize instead, as an AI Core exception naming the kernel and the block.
#pragma once

#include <tuple>
#include <utility>

#include "ascend_sim/ascendc/block.h"

namespace AscendC {
namespace sim {

template <typename... Params>
struct KernelCall {
  void (*fn)(Params...);
  std::tuple<std::decay_t<Params>...> args;
};

// aclsimKernelBody: runs one block of the kernel.
template <typename... Params>
int runBlock(void* closure, aclsimKernelBlock* info, char* error, size_t error_size) {
  auto* call = static_cast<KernelCall<Params...>*>(closure);
  Block* const outer = current_block;
  std::string message;
  try {
    Block b(info);
    current_block = &b;
    std::apply(call->fn, call->args);
    b.finish();
  } catch (const std::exception& e) { message = e.what(); } catch (...) {
    message = "unknown exception";
  }
  current_block = outer;
  if (message.empty()) return 0;
  if (error && error_size > 0) {
    const size_t n = std::min(message.size(), error_size - 1);
    std::memcpy(error, message.data(), n);
    error[n] = '\0';
  }
  return 1;
}

// A device pointer given as void* (or const) becomes the kernel's GM_ADDR.
template <typename P, typename A>
P kernelArgument(A&& a) {
  if constexpr (std::is_pointer_v<P> && std::is_pointer_v<std::decay_t<A>>)
    return reinterpret_cast<P>(const_cast<void*>(static_cast<const void*>(a)));
  else
    return P(std::forward<A>(a));
}

template <typename... Params>
class Launcher {
 public:
  Launcher(const char* name, void (*fn)(Params...)) : name_(name), fn_(fn) {}
  template <typename... Args>
  uint32_t operator()(uint32_t blockDim, aclrtStream stream, Args&&... args) const {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "ACLRT_LAUNCH_KERNEL: the kernel takes a different number of arguments");
    auto* call = new KernelCall<Params...>{
        fn_, std::tuple<std::decay_t<Params>...>(kernelArgument<std::decay_t<Params>>(std::forward<Args>(args))...)};
    return static_cast<uint32_t>(aclsimLaunchKernel(name_, blockDim, stream, &runBlock<Params...>, call,
                                                    [](void* p) { delete static_cast<KernelCall<Params...>*>(p); }));
  }

 private:
  const char* name_;
  void (*fn_)(Params...);
};

template <typename... Params>
Launcher<Params...> makeLauncher(const char* name, void (*fn)(Params...)) {
  return Launcher<Params...>(name, fn);
}

}  // namespace sim
}  // namespace AscendC

#define ACLRT_LAUNCH_KERNEL(kernel) ::AscendC::sim::makeLauncher(#kernel, &kernel)
