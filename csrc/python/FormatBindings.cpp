// Python access to storage formats: torch_npu.get_npu_format and
// torch_npu.empty_with_format (npu_format_cast is a dispatcher op, npu::).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/Dtype.h>
#include <torch/extension.h>

#include "csrc/core/NPUFunctions.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"
#include "csrc/framework/NPUTensorFactory.h"

namespace py = pybind11;

namespace torch_npu {
namespace {

// The simulator's format table, one (name, id, base id, private, min rank, max rank) per format:
// torch_npu.Format is built from it (torch_npu/_formats.py), not copied.
std::vector<py::tuple> formatTable() {
  std::vector<py::tuple> rows;
  for (const sim::FormatRow& row : sim::formatTable()) {
    rows.push_back(py::make_tuple(row.name, static_cast<int>(row.format), static_cast<int>(row.base), row.is_private,
                                  row.min_rank, row.max_rank));
  }
  return rows;
}

int64_t getFormat(const at::Tensor& t) {
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, "get_npu_format: expected an npu tensor, got one on ",
              t.device());
  return static_cast<int64_t>(npuFormatOf(t));
}

at::Tensor emptyWithFormat(std::vector<int64_t> sizes, py::handle dtype, int64_t device, int64_t acl_format) {
  TORCH_CHECK(THPDtype_Check(dtype.ptr()), "empty_with_format: dtype must be a torch.dtype");
  const auto scalar_type = reinterpret_cast<THPDtype*>(dtype.ptr())->scalar_type;
  const auto index = device < 0 ? current_device() : static_cast<c10::DeviceIndex>(device);
  check_device_index(index);
  return makeNpuTensor(sizes, c10::nullopt, scalar_type, index, checkFormatId(acl_format));
}

py::dict storageDescription(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  TORCH_CHECK(desc != nullptr, "tensor has no NPU storage descriptor");
  py::dict d;
  d["base_sizes"] = std::vector<int64_t>(desc->base_sizes.begin(), desc->base_sizes.end());
  d["storage_sizes"] = std::vector<int64_t>(desc->storage_sizes.begin(), desc->storage_sizes.end());
  d["origin_format"] = formatName(desc->origin_format);
  d["npu_format"] = formatName(desc->npu_format);
  return d;
}

}  // namespace

void bindFormats(py::module& m) {
  m.def("_npu_formatTable", &formatTable);
  m.def("_npu_getFormat", &getFormat);
  m.def("_npu_emptyWithFormat", &emptyWithFormat);
  m.def("_npu_storageDesc", &storageDescription);
  m.def("_npu_storageNumel", &storageNumel);
  m.def("_npu_aliasStorageLike", &aliasStorageLike);
  m.def("_npu_allowInternalFormat", &allowInternalFormat);
  m.def("_npu_setAllowInternalFormat", &setAllowInternalFormat);
}

}  // namespace torch_npu
