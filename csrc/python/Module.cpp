// torch_npu._C: thin Python bindings of the NPU runtime. Policy lives in the
// Python package (torch_npu/npu/*.py); this file only converts arguments.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/Generator.h>
#include <torch/extension.h>

#include "csrc/core/DeviceOptions.h"
#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUEvent.h"
#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUGenerator.h"
#include "csrc/core/NPUGraph.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"

namespace py = pybind11;

namespace torch_npu {
namespace {

c10::DeviceIndex deviceOr(int64_t device) {
  return device < 0 ? current_device() : static_cast<c10::DeviceIndex>(device);
}

// (stream_id, device_index, packed c10::Stream for torch._C.Stream(_cdata=...))
py::tuple streamTuple(const NPUStream& s) {
  return py::make_tuple(static_cast<int64_t>(s.id()), static_cast<int64_t>(s.device_index()),
                        s.unwrap().pack());
}

NPUStream streamFrom(int64_t stream_id, int64_t device) {
  return NPUStream(c10::Stream(c10::Stream::UNSAFE,
                               c10::Device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(device)),
                               static_cast<c10::StreamId>(stream_id)));
}

py::dict statArrayDict(const allocator::DeviceStats& s) {
  py::dict out;
  const char* pools[] = {"all", "small_pool", "large_pool"};
  auto add = [&](const char* name, const allocator::StatArray& a) {
    for (size_t i = 0; i < allocator::kNumStatTypes; ++i) {
      const std::string prefix = std::string(name) + "." + pools[i] + ".";
      out[py::str(prefix + "current")] = a[i].current;
      out[py::str(prefix + "peak")] = a[i].peak;
      out[py::str(prefix + "allocated")] = a[i].allocated;
      out[py::str(prefix + "freed")] = a[i].freed;
    }
  };
  add("allocation", s.allocation);
  add("segment", s.segment);
  add("active", s.active);
  add("inactive_split", s.inactive_split);
  add("allocated_bytes", s.allocated_bytes);
  add("reserved_bytes", s.reserved_bytes);
  add("active_bytes", s.active_bytes);
  add("inactive_split_bytes", s.inactive_split_bytes);
  add("requested_bytes", s.requested_bytes);
  out["num_alloc_retries"] = s.num_alloc_retries;
  out["num_ooms"] = s.num_ooms;
  for (const auto& [name, stat] :
       {std::pair<const char*, const allocator::Stat&>{"oversize_allocations", s.oversize_allocations},
        {"oversize_segments", s.oversize_segments}}) {
    const std::string prefix = std::string(name) + ".";
    out[py::str(prefix + "current")] = stat.current;
    out[py::str(prefix + "peak")] = stat.peak;
    out[py::str(prefix + "allocated")] = stat.allocated;
    out[py::str(prefix + "freed")] = stat.freed;
  }
  out["max_split_size"] = s.max_split_size;
  return out;
}

void bindDevice(py::module& m) {
  m.def("_npu_getDeviceCount", [] { return static_cast<int64_t>(device_count()); });
  m.def("_npu_getDevice", [] { return static_cast<int64_t>(current_device()); });
  m.def("_npu_setDevice", [](int64_t d) {
    check_device_index(static_cast<c10::DeviceIndex>(d));
    set_device(static_cast<c10::DeviceIndex>(d));
  });
  m.def("_npu_synchronize", [](int64_t d) {
    py::gil_scoped_release no_gil;
    synchronize(deviceOr(d));
  });
  m.def("_npu_getSocName", &socName);
  m.def("_npu_memGetInfo", [](int64_t d) { return allocator::memGetInfo(deviceOr(d)); });
  m.def("_npu_getSimTimeUs", [](int64_t d) { return simulatedTimeUs(deviceOr(d)); });
  m.def("_npu_getUtilizationRates", [](int64_t d) {
    const UtilizationRates r = utilizationRates(deviceOr(d));
    return std::make_tuple(r.cube, r.vector, r.aicpu, r.memory);
  });
}

void bindStreamsAndEvents(py::module& m) {
  m.def("_npu_getCurrentStream", [](int64_t d) { return streamTuple(getCurrentNPUStream(deviceOr(d))); });
  m.def("_npu_getDefaultStream", [](int64_t d) { return streamTuple(getDefaultNPUStream(deviceOr(d))); });
  m.def("_npu_getStreamFromPool", [](int64_t d) { return streamTuple(getStreamFromPool(deviceOr(d))); });
  m.def("_npu_setStream", [](int64_t id, int64_t d) { setCurrentNPUStream(streamFrom(id, d)); });
  m.def("_npu_streamQuery", [](int64_t id, int64_t d) { return streamFrom(id, d).query(); });
  m.def("_npu_streamSynchronize", [](int64_t id, int64_t d) {
    py::gil_scoped_release no_gil;
    streamFrom(id, d).synchronize();
  });

  py::class_<NPUEvent>(m, "_NPUEvent")
      .def(py::init<>())
      .def("record", [](NPUEvent& e, int64_t id, int64_t d) { e.record(streamFrom(id, d)); })
      .def("block", [](NPUEvent& e, int64_t id, int64_t d) { e.block(streamFrom(id, d)); })
      .def("query", &NPUEvent::query)
      .def("synchronize", &NPUEvent::synchronize, py::call_guard<py::gil_scoped_release>())
      .def("elapsed_time", &NPUEvent::elapsed_time)
      .def_property_readonly("recorded", &NPUEvent::was_recorded)
      .def_property_readonly("device_index", [](const NPUEvent& e) { return static_cast<int64_t>(e.device_index()); });

  // Note [NPU graphs]; torch_npu/npu/graphs.py wraps it as torch.npu.NPUGraph.
  py::class_<NPUGraph>(m, "_NPUGraph")
      .def(py::init<>())
      .def("capture_begin", &NPUGraph::capture_begin, py::arg("pool") = allocator::MempoolId{0, 0},
           py::call_guard<py::gil_scoped_release>())
      .def("capture_end", &NPUGraph::capture_end, py::call_guard<py::gil_scoped_release>())
      .def("replay", &NPUGraph::replay, py::call_guard<py::gil_scoped_release>())
      .def("reset", &NPUGraph::reset, py::call_guard<py::gil_scoped_release>())
      .def("_abort_capture", &NPUGraph::abort_capture, py::call_guard<py::gil_scoped_release>())
      .def("pool", &NPUGraph::pool)
      .def("task_count", &NPUGraph::task_count);
  m.def("_npu_graphPoolHandle", &graphPoolHandle);
  // Note [Streams of the autograd engine's NPU threads]
  m.def("_npu_publishBackwardStreams", &publishBackwardStreams);
  m.def("_npu_unpublishBackwardStreams", &unpublishBackwardStreams);
  m.def("_npu_isCurrentStreamCapturing", [] { return streamIsCapturing(getCurrentNPUStream().handle()); });
}

void bindMemory(py::module& m) {
  m.def("_npu_memoryStats", [](int64_t d) { return statArrayDict(allocator::getDeviceStats(deviceOr(d))); });
  m.def("_npu_resetPeakMemoryStats", [](int64_t d) { allocator::resetPeakStats(deviceOr(d)); });
  m.def("_npu_resetAccumulatedMemoryStats", [](int64_t d) { allocator::resetAccumulatedStats(deviceOr(d)); });
  m.def("_npu_setMemoryFraction", [](double fraction, int64_t d) { allocator::setMemoryFraction(fraction, deviceOr(d)); });
  m.def("_npu_cachingAllocatorAlloc", [](int64_t size, int64_t d, int64_t stream_id) {
    TORCH_CHECK(size >= 0, "caching_allocator_alloc: size must be >= 0, got ", size);
    const auto device = deviceOr(d);
    const c10::StreamId stream = stream_id < 0 ? getCurrentNPUStream(device).id() : stream_id;
    return reinterpret_cast<uintptr_t>(allocator::rawAlloc(static_cast<size_t>(size), device, stream));
  });
  m.def("_npu_cachingAllocatorDelete", [](uintptr_t ptr) { allocator::rawDelete(reinterpret_cast<void*>(ptr)); });
  m.def("_npu_emptyCache", [] {
    py::gil_scoped_release no_gil;
    allocator::emptyCache();
  });
}

void bindRandomAndQueue(py::module& m) {
  m.def("_npu_manualSeed", [](int64_t d, uint64_t seed) { NPUGenerator::forDevice(deviceOr(d)).manual_seed(seed); });
  m.def("_npu_seed", [](int64_t d) { return NPUGenerator::forDevice(deviceOr(d)).seed(); });
  m.def("_npu_initialSeed", [](int64_t d) { return NPUGenerator::forDevice(deviceOr(d)).initial_seed(); });
  // Note [NPU torch.Generator] in torch_npu/npu/generator.py
  m.def("_npu_defaultGenerator", [](int64_t d) {
    return py::reinterpret_steal<py::object>(
        THPGenerator_initDefaultGenerator(NPUGenerator::defaultGenerator(deviceOr(d))));
  });
  m.def("_npu_newGenerator", [](int64_t d) {
    return py::reinterpret_steal<py::object>(THPGenerator_Wrap(makeNPUGenerator(deviceOr(d))));
  });
  m.def("_npu_setTaskQueueEnabled", &TaskQueue::setEnabled);
  m.def("_npu_taskQueueEnabled", &TaskQueue::enabled);
}

}  // namespace

void bindStorage(py::module& m);  // StorageBindings.cpp
void bindFormats(py::module& m);  // FormatBindings.cpp
void bindSimulator(py::module& m);  // SimulatorBindings.cpp
void bindDistributed(py::module& m);  // DistributedBindings.cpp
void bindAutocast(py::module& m);  // AutocastBindings.cpp
void bindMemoryHistory(py::module& m);  // MemoryHistoryBindings.cpp

}  // namespace torch_npu

PYBIND11_MODULE(_C, m) {
  m.doc() = "torch_npu native bindings (simulated Ascend NPU)";
  torch_npu::device_count();  // initialise the simulator first, see Note [Simulator initialisation]
  torch_npu::bindDevice(m);
  torch_npu::bindStreamsAndEvents(m);
  torch_npu::bindMemory(m);
  torch_npu::bindMemoryHistory(m);
  torch_npu::bindRandomAndQueue(m);
  torch_npu::bindStorage(m);
  torch_npu::bindFormats(m);
  torch_npu::bindSimulator(m);
  torch_npu::bindDistributed(m);
  torch_npu::bindAutocast(m);
}
