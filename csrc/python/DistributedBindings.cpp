// torch_npu._C.ProcessGroupHCCL: the "hccl" c10d backend for Python
// (registered with torch.distributed by torch_npu/distributed/__init__.py).
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/extension.h>

#include "csrc/distributed/ProcessGroupGlooNPU.h"
#include "csrc/distributed/ProcessGroupHCCL.h"

namespace py = pybind11;

namespace torch_npu {
void bindDistributed(py::module& m) {
  // The base class must be known to pybind11 before the subclass.
  py::module::import("torch.distributed");
  using torch_npu::distributed::ProcessGroupHCCL;
  py::class_<ProcessGroupHCCL, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupHCCL>>(m, "ProcessGroupHCCL")
      .def(py::init(
               [](const c10::intrusive_ptr<c10d::Store>& store, int rank, int size, std::chrono::milliseconds timeout) {
                 return c10::make_intrusive<ProcessGroupHCCL>(store, rank, size, timeout);
               }),
           py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("timeout", &ProcessGroupHCCL::timeout)
      .def("get_hccl_comm_name", &ProcessGroupHCCL::getHcclCommName, py::arg("rankid"),
           py::call_guard<py::gil_scoped_release>());
  // Note [gloo with NPU tensors]: created by torch.distributed for backend "gloo".
  using torch_npu::distributed::ProcessGroupGlooNPU;
  py::class_<ProcessGroupGlooNPU, c10d::ProcessGroupGloo, c10::intrusive_ptr<ProcessGroupGlooNPU>>(
      m, "ProcessGroupGlooNPU")
      .def(py::init(&ProcessGroupGlooNPU::create), py::arg("store"), py::arg("rank"), py::arg("size"),
           py::arg("timeout") = ::kProcessGroupDefaultTimeout,
           py::call_guard<py::gil_scoped_release>());
}

}  // namespace torch_npu
