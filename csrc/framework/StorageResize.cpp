#include "csrc/framework/StorageResize.h"

#include <algorithm>

#include "csrc/core/NPUCachingAllocator.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/framework/CopyCommand.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"

namespace torch_npu {

void resizeStorageBytes(c10::StorageImpl* storage, size_t nbytes) {
  TORCH_CHECK(storage->resizable(), "Trying to resize storage that is not resizable");
  const auto* npu_storage = dynamic_cast<const NPUStorageImpl*>(storage);
  TORCH_CHECK(npu_storage == nullptr || isBaseFormat(npu_storage->desc.npu_format),
              "resize: the storage holds the private format ", formatName(npu_storage->desc.npu_format),
              "; cast the tensor to its base format first (torch_npu.npu_format_cast)");
  const c10::DeviceIndex device = storage->data_ptr().device().index();
  DeviceSwitch guard(device);
  c10::DataPtr fresh = allocator::get()->allocate(nbytes);
  const size_t kept = std::min(nbytes, storage->nbytes());
  if (kept > 0) {
    CopyCommand(fresh.get(), storage->data(), kept, ACL_MEMCPY_DEVICE_TO_DEVICE, device).Run();
  }
  storage->set_data_ptr_noswap(std::move(fresh));
  storage->set_nbytes(nbytes);
}

}  // namespace torch_npu
