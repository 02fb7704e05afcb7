// torch_npu._C access to the NPU autocast state (Note [NPU autocast] in
// csrc/aten/common/AutocastNPU.cpp): thread-local, like torch.is_autocast_enabled.
#include <ATen/autocast_mode.h>
#include <pybind11/pybind11.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/extension.h>

#include "csrc/aten/common/AutocastNPU.h"

namespace py = pybind11;

namespace torch_npu {

void bindAutocast(py::module& m) {
  m.def("_npu_setAutocastEnabled", [](bool enabled) { at::autocast::set_xpu_enabled(enabled); });
  m.def("_npu_isAutocastEnabled", [] { return at::autocast::is_xpu_enabled(); });
  m.def("_npu_setAutocastDtype", [](py::object dtype) {
    TORCH_CHECK(THPDtype_Check(dtype.ptr()), "autocast dtype must be a torch.dtype");
    at_npu::native::setNpuAutocastDtype(reinterpret_cast<THPDtype*>(dtype.ptr())->scalar_type);
  });
  m.def("_npu_getAutocastDtype", [] {
    return py::reinterpret_borrow<py::object>(
        reinterpret_cast<PyObject*>(torch::getTHPDtype(at_npu::native::npuAutocastDtype())));
  });
  m.def("_npu_clearAutocastCache", &at_npu::native::clearAutocastCache);
}

}  // namespace torch_npu
