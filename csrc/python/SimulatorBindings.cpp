// Python access to the simulated chip's options, overflow status, per-op
// records and compile count (torch.npu.set_option, torch.npu.op_records, ...).
// Bindings only: the work is done in csrc/core (Note [One adapter to the
// simulator]).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/extension.h>

#include "csrc/aten/common/HostFallback.h"
#include "csrc/core/DeviceOptions.h"
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/OpDump.h"
#include "csrc/core/SimulatorExtensions.h"

namespace py = pybind11;

namespace torch_npu {
namespace {

c10::DeviceIndex deviceIndex(int64_t device) { return static_cast<c10::DeviceIndex>(device); }

py::list taskRecords(int64_t device) {
  py::list out;
  for (const sim::TaskRecord& r : sim::taskRecords(deviceIndex(device)))
    out.append(py::make_tuple(r.op_type, r.shapes, r.stream_id, r.core_type, r.start_us, r.duration_us,
                              r.cube_ratio, r.vector_ratio, r.mte_ratio, r.bytes, r.flops, r.block_dim,
                              r.host_thread_id, r.host_launch_us, r.host_launch_id));
  return out;
}

}  // namespace

void bindSimulator(py::module& m) {
  m.def("_npu_getOption", &getCompileOption);
  m.def("_npu_setOption", &setCompileOption);
  m.def("_npu_getOverflowFlag", [](int64_t device) { return readOverflowFlag(deviceIndex(device)); });
  m.def("_npu_clearOverflowFlag", [](int64_t device) { clearOverflowFlag(deviceIndex(device)); });
  m.def("_npu_deviceCapability",
        [](int64_t device, int64_t which) { return deviceCapability(deviceIndex(device), which); });
  m.def("_npu_setOpProfiling", [](int64_t device, bool enabled) { sim::setProfiling(deviceIndex(device), enabled); });
  m.def("_npu_opRecords", &taskRecords);
  m.def("_npu_setMemoryReporting", [](bool enabled) { allocator::setMemoryReporting(enabled); });
  m.def("_npu_hostFallbackRecords", [](int64_t device) {
    py::list out;
    for (const auto& r : hostFallbackRecords(deviceIndex(device))) out.append(py::make_tuple(r.op, r.shapes, r.start_us));
    return out;
  });
  m.def("_npu_clearHostFallbackRecords", [](int64_t device) { clearHostFallbackRecords(deviceIndex(device)); });
  m.def("_npu_clearOpRecords", [](int64_t device) { sim::clearTaskRecords(deviceIndex(device)); });
  m.def("_npu_initDump", &initDump);
  m.def("_npu_setDump", &setDump, py::call_guard<py::gil_scoped_release>());
  m.def("_npu_finalizeDump", &finalizeDump, py::call_guard<py::gil_scoped_release>());
  m.def("_npu_setLaunchScope", &setLaunchScope);
  m.def("_npu_injectFault", &sim::injectFault);
  m.def("_npu_clearFaults", &sim::clearFaults);
  m.def("_npu_setOpExecuteTimeoutMs", &setOpExecuteTimeoutMs);
  m.def("_npu_hungTaskCount", &sim::hungTaskCount);
  m.def("_npu_compileCount", &sim::compileCount);
}

}  // namespace torch_npu
