// Python side of the allocator's memory history (Note [Memory history]): the Python-stack recorder
// the allocator calls, and the snapshot and trace in torch's dictionary layout
// (torch.npu.memory._record_memory_history, _snapshot, memory_snapshot).
#include <Python.h>
#include <frameobject.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/extension.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"

namespace py = pybind11;

namespace torch_npu {
namespace {

using allocator::AllocationContext;
using allocator::CodeInfo;
using allocator::ContextPtr;

// Code objects seen in stacks while recording, each held (so that its address is not reused while it
// is a key) with its names copied once into a CodeInfo that lives for the process (contexts point to
// it). Guarded by the GIL; released when recording stops (releaseCodes).
std::unordered_map<PyCodeObject*, const CodeInfo*>& internedCodes() {
  static auto* codes = new std::unordered_map<PyCodeObject*, const CodeInfo*>();
  return *codes;
}

std::string utf8(PyObject* text) {
  PyObject* bytes = PyUnicode_AsEncodedString(text, "utf-8", "replace");  // a file name may not be UTF-8
  if (bytes == nullptr) {
    PyErr_Clear();
    return "<?>";
  }
  std::string out(PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes)));
  Py_DECREF(bytes);
  return out;
}

const CodeInfo* internCode(PyCodeObject* code) {
  auto& codes = internedCodes();
  auto it = codes.find(code);
  if (it != codes.end()) return it->second;
  Py_INCREF(code);
  auto* info = new CodeInfo{utf8(code->co_filename), utf8(code->co_name)};
  codes.emplace(code, info);
  return info;
}

void releaseCodes() {
  for (auto& [code, info] : internedCodes()) Py_DECREF(code);  // the CodeInfos stay: contexts point to them
  internedCodes().clear();
}

// The calling thread's Python stack, innermost first. A thread that never ran Python (an autograd or
// task-queue worker) has none: it gets no context without touching the GIL.
ContextPtr gatherPythonStack() {
  if (!Py_IsInitialized() || _Py_IsFinalizing() || PyGILState_GetThisThreadState() == nullptr) return nullptr;
  py::gil_scoped_acquire gil;
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);  // an allocation inside an error's handling keeps the error
  auto context = std::make_shared<AllocationContext>();
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
    context->frames.push_back({internCode(code), PyFrame_GetLineNumber(frame)});
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  PyErr_Restore(type, value, traceback);
  return context;
}

// Stacks as torch's lists of {filename, line, name}. One conversion (a snapshot, a trace) builds each
// distinct stack once and shares it (so does its pickle): a trace of 100 000 entries holds a few
// hundred distinct stacks.
class FrameLists {
 public:
  py::list of(const ContextPtr& context) {
    if (!context) return py::list();
    auto it = lists_.find(context.get());
    if (it != lists_.end()) return it->second;
    py::list frames;
    for (const auto& f : context->frames) frames.append(frame(f));
    lists_.emplace(context.get(), frames);
    return frames;
  }

 private:
  py::dict frame(const allocator::StackFrame& f) {
    const auto key = std::make_pair(f.code, f.line);
    auto it = frames_.find(key);
    if (it != frames_.end()) return it->second;
    py::dict d;
    d["filename"] = f.code->filename;
    d["line"] = f.line;
    d["name"] = f.code->name;
    frames_.emplace(key, d);
    return d;
  }
  struct PairHash {
    size_t operator()(const std::pair<const CodeInfo*, int>& k) const {
      return std::hash<const void*>()(k.first) * 31 + static_cast<size_t>(k.second);
    }
  };
  std::unordered_map<const AllocationContext*, py::list> lists_;
  std::unordered_map<std::pair<const CodeInfo*, int>, py::dict, PairHash> frames_;
};

const char* blockStateName(allocator::BlockState state) {
  switch (state) {
    case allocator::BlockState::kActiveAllocated: return "active_allocated";
    case allocator::BlockState::kActivePendingFree: return "active_pending_free";
    case allocator::BlockState::kInactive: break;
  }
  return "inactive";
}

// torch 1.13's CUDA snapshot: a list of segments, each with its blocks and their histories.
py::list memorySnapshot() {
  std::vector<allocator::SegmentInfo> segments;
  {
    py::gil_scoped_release no_gil;  // the allocator's lock is taken by threads that then take the GIL
    segments = allocator::snapshot();
  }
  FrameLists frames;
  py::list out;
  for (const auto& s : segments) {
    py::dict seg;
    seg["device"] = s.device;
    seg["address"] = s.address;
    seg["total_size"] = s.total_size;
    seg["allocated_size"] = s.allocated_size;
    seg["active_size"] = s.active_size;
    seg["stream"] = s.stream;
    seg["segment_type"] = s.is_large ? "large" : "small";
    seg["is_expandable"] = s.is_expandable;
    py::list blocks;
    for (const auto& b : s.blocks) {
      py::dict block;
      block["size"] = b.size;
      block["requested_size"] = b.requested_size;
      block["state"] = blockStateName(b.state);
      if (!b.history.empty()) {
        py::list history;
        for (const auto& h : b.history) {
          py::dict entry;
          entry["addr"] = h.addr;
          entry["real_size"] = h.real_size;
          entry["frames"] = frames.of(h.context);
          history.append(entry);
        }
        block["history"] = history;
      }
      blocks.append(block);
    }
    seg["blocks"] = blocks;
    out.append(seg);
  }
  return out;
}

// torch 2's device_traces entries: action, addr, size, stream, frames; plus the host time and the
// device's allocated and reserved totals after the event.
py::list memoryTrace(int64_t device) {
  std::vector<allocator::TraceEntry> entries;
  {
    py::gil_scoped_release no_gil;
    entries = allocator::allocationTrace(static_cast<c10::DeviceIndex>(device));
  }
  FrameLists frames;
  py::list out;
  for (const auto& e : entries) {
    py::dict d;
    d["action"] = allocator::traceActionName(e.action);
    d["addr"] = e.addr;
    d["size"] = e.size;
    d["stream"] = e.stream;
    d["time_us"] = e.time_us;
    d["allocated"] = e.allocated_bytes;
    d["reserved"] = e.reserved_bytes;
    d["frames"] = frames.of(e.context);
    out.append(d);
  }
  return out;
}

}  // namespace

void bindMemoryHistory(py::module& m) {
  m.def("_npu_recordMemoryHistory", [](int64_t device, bool enabled, bool record_stacks, int64_t max_entries) {
    TORCH_CHECK(max_entries >= 0, "_record_memory_history: max_entries must be >= 0, got ", max_entries);
    // One recorder for the process: the last enabling call's stacks setting holds for every recording device.
    if (enabled) allocator::setContextRecorder(record_stacks ? &gatherPythonStack : nullptr);
    {
      py::gil_scoped_release no_gil;  // the allocator's lock: see gatherPythonStack
      allocator::recordHistory(static_cast<c10::DeviceIndex>(device), enabled, static_cast<size_t>(max_entries));
    }
    if (!allocator::anyDeviceRecordsHistory()) {
      allocator::setContextRecorder(nullptr);
      releaseCodes();
    }
  });
  m.def("_npu_memorySnapshot", &memorySnapshot);
  m.def("_npu_memoryTrace", &memoryTrace);
}

}  // namespace torch_npu
