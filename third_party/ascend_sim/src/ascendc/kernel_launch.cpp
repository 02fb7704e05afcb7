// aclsimLaunchKernel and aclsimKernelGmView: user kernels (Ascend C) as stream tasks, Note [Ascend C
// kernels on the simulator] in ascend_sim/aclsim_kernel.h.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ascend_sim/aclsim_kernel.h"
#include "ascendc/core_buffers.h"
#include "ascendc/kernel_trace.h"
#include "runtime/error_state.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

namespace {

constexpr uint32_t kMaxBlockDim = 65535;  // CANN's limit on blockDim

void copyMessage(const std::string& text, char* out, size_t size) {
  if (!out || size == 0) return;
  const size_t n = std::min(text.size(), size - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

// Everything the task needs after the call returns.
struct KernelLaunch {
  std::string name;
  uint32_t block_dim = 0;
  int32_t device = 0;
  aclsimKernelBody body = nullptr;
  std::shared_ptr<void> closure;
  std::shared_ptr<TaskDetail> detail = std::make_shared<TaskDetail>();
};

// Runs every block; returns the kernel's simulated time (Note [Ascend C kernels on the simulator]).
double runKernel(const KernelLaunch& k) {
  const ChipConfig& chip = Runtime::get().chip();
  const int vector_cores = std::max(1, chip.vector_cores);
  aclsimCoreSpec core = coreSpecOf(chip);

  std::vector<double> vector_core_busy(static_cast<size_t>(vector_cores), 0.0);
  std::vector<double> cube_core_busy(static_cast<size_t>(std::max(1, chip.cube_cores)), 0.0);
  double cube_us = 0, vector_us = 0, mte_us = 0, bytes = 0, flops = 0;
  bool used_cube = false;
  std::unique_ptr<KernelTrace> trace = KernelTrace::begin(k.name, k.block_dim);
  for (uint32_t b = 0; b < k.block_dim; ++b) {
    aclsimKernelBlock block{};
    block.kernel_name = k.name.c_str();
    block.block_idx = b;
    block.block_num = k.block_dim;
    block.device = k.device;
    block.core = core;
    if (trace) trace->attach(&block);
    char error[1024] = {0};
    if (k.body(k.closure.get(), &block, error, sizeof(error)) != 0)
      throw std::runtime_error("AI Core exception in kernel '" + k.name + "', block " + std::to_string(b) + " of " +
                               std::to_string(k.block_dim) + ": " + error);
    // Cube kernels run on the AI Cores (cube_cores), vector-only ones on the vector cores.
    std::vector<double>& busy = block.used_cube ? cube_core_busy : vector_core_busy;
    busy[b % busy.size()] += block.duration_us;
    used_cube = used_cube || block.used_cube;
    cube_us += block.cube_us;
    vector_us += block.vector_us;
    mte_us += block.mte_us;
    bytes += block.gm_read_bytes + block.gm_write_bytes;
    flops += block.flops;
  }
  if (trace && trace->write().empty())
    throw std::runtime_error("kernel '" + k.name + "': cannot write its trace into ASCEND_SIM_KERNEL_TRACE_DIR");
  const double busiest = std::max(*std::max_element(vector_core_busy.begin(), vector_core_busy.end()),
                                  *std::max_element(cube_core_busy.begin(), cube_core_busy.end()));
  TaskDetail& d = *k.detail;
  d.core = used_cube ? ACL_CORE_AI_CORE : ACL_CORE_VECTOR;
  const double top = std::max({cube_us, vector_us, mte_us});
  if (top > 0) {
    d.cube_ratio = cube_us / top;
    d.vector_ratio = vector_us / top;
    d.mte_ratio = mte_us / top;
  }
  d.bytes = bytes;
  d.flops = flops;
  return CostModel::kLaunchUs + busiest;
}

}  // namespace

extern "C" {

ASCEND_SIM_API aclError aclsimLaunchKernel(const char* kernelName, uint32_t blockDim, aclrtStream stream,
                                           aclsimKernelBody body, void* closure, void (*destroy)(void*)) {
  // The closure is owned from here on, whatever happens.
  std::shared_ptr<void> owned(closure, [destroy](void* p) {
    if (destroy) destroy(p);
  });
  return guardApi("aclsimLaunchKernel", [&] {
    if (!kernelName || !*kernelName) throwAcl(ACL_ERROR_INVALID_PARAM, "kernelName must not be null or empty");
    const std::string name = kernelName;
    if (blockDim == 0 || blockDim > kMaxBlockDim)
      throwAcl(ACL_ERROR_INVALID_PARAM, "kernel '" + name + "': blockDim must be in [1, " +
                                            std::to_string(kMaxBlockDim) + "], got " + std::to_string(blockDim));
    if (!body) throwAcl(ACL_ERROR_INVALID_PARAM, "kernel '" + name + "': body must not be null");
    std::shared_ptr<Stream> s = Runtime::get().stream(stream);
    auto launch = std::make_shared<KernelLaunch>();
    launch->name = name;
    launch->block_dim = blockDim;
    launch->device = s->device();
    launch->body = body;
    launch->closure = std::move(owned);
    launch->detail->shapes = "blockDim=" + std::to_string(blockDim);
    launch->detail->block_dim = blockDim;
    Task task{TaskKind::kOp, name, [launch](Stream&) { return runKernel(*launch); }};
    task.detail = launch->detail;  // filled in by the run, before the task is recorded
    s->submit(std::move(task));
  });
}

ASCEND_SIM_API void* aclsimKernelGmView(int32_t device, const void* devPtr, size_t size, char* error,
                                        size_t errorSize) {
  try {
    DeviceRange r = Runtime::get().resolve(devPtr, size);
    if (r.device != device)
      throw AclError(ACL_ERROR_RT_INVALID_MEMORY, "address " + ptrString(devPtr) + " is memory of device " +
                                                      std::to_string(r.device) + ", not of device " +
                                                      std::to_string(device) + " that runs the kernel");
    return r.host;
  } catch (const std::exception& e) {
    copyMessage(e.what(), error, errorSize);
    return nullptr;
  }
}

}  // extern "C"
