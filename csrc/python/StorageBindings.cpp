// Note [NPU storages in Python]
// PyTorch 1.13's Python storage paths (UntypedStorage.copy_, Tensor.set_ with
// a storage argument) look storages up by backend and only know CPU, CUDA,
// XPU and MPS: any NPU storage fails with "Invalid device for storage". These
// bindings take the storage's StorageImpl straight from the THPStorage object
// so torch_npu/_serialization.py can implement cpu(), clone(), resize_() and
// tensor rebuilding for NPU storages (torch.save / torch.load / copy.deepcopy,
// FSDP's freeing and re-gathering of parameters).
#include <pybind11/pybind11.h>
#include <c10/util/strides.h>
#include <torch/csrc/Storage.h>
#include <torch/extension.h>

#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"
#include "csrc/framework/StorageResize.h"

namespace py = pybind11;

namespace torch_npu {
namespace {

c10::Storage storageOf(py::handle obj) {
  static py::object untyped_storage = py::module::import("torch").attr("UntypedStorage");
  TORCH_CHECK(py::isinstance(obj, untyped_storage), "expected a torch.UntypedStorage, got ",
              Py_TYPE(obj.ptr())->tp_name);
  auto* impl = reinterpret_cast<THPStorage*>(obj.ptr())->cdata;
  return c10::Storage(c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(impl));
}

// The storage's logical bytes as a flat uint8 NPU tensor: a view of the
// storage itself, or for a private format a base-format copy (so saved and
// cloned storages hold the logical layout that tensor views index).
at::Tensor storageAsBytes(py::handle obj) {
  c10::Storage storage = storageOf(obj);
  TORCH_CHECK(storage.device_type() == c10::DeviceType::PrivateUse1, "expected an npu storage, got one on ",
              storage.device());
  auto* npu_storage = dynamic_cast<NPUStorageImpl*>(storage.unsafeGetStorageImpl());
  if (npu_storage != nullptr && !isBaseFormat(npu_storage->desc.npu_format)) {
    const auto& desc = npu_storage->desc;
    at::Tensor logical = at::empty({0}, at::TensorOptions()
                                            .dtype(c10::typeMetaToScalarType(desc.data_type))
                                            .device(storage.device()));
    logical.set_(storage, 0, desc.base_sizes, c10::contiguous_strides(desc.base_sizes));
    return materializeBase(logical).contiguous().reshape({-1}).view(at::kByte);
  }
  at::Tensor bytes = at::empty({0}, at::TensorOptions().dtype(at::kByte).device(storage.device()));
  return bytes.set_(storage, 0, {static_cast<int64_t>(storage.nbytes())}, {1});
}

at::Tensor setStorage(at::Tensor self, py::handle obj, int64_t offset, std::vector<int64_t> size,
                      std::vector<int64_t> stride) {
  return self.set_(storageOf(obj), offset, size, stride);
}

// UntypedStorage.resize_ for an NPU storage (torch 1.13 resizes only CPU and CUDA storages).
void resizeStorage(py::handle obj, int64_t nbytes) {
  TORCH_CHECK(nbytes >= 0, "resize_: the size must be non-negative, got ", nbytes);
  c10::Storage storage = storageOf(obj);
  TORCH_CHECK(storage.device_type() == c10::DeviceType::PrivateUse1, "expected an npu storage, got one on ",
              storage.device());
  resizeStorageBytes(storage.unsafeGetStorageImpl(), static_cast<size_t>(nbytes));
}

}  // namespace

void bindStorage(py::module& m) {
  m.def("_npu_storageAsBytes", &storageAsBytes);
  m.def("_npu_setStorage", &setStorage);
  m.def("_npu_resizeStorage", &resizeStorage);
}

}  // namespace torch_npu
