// Resizing an NPU storage's memory in place (Tensor.resize_ growing its storage, and
// UntypedStorage.resize_ from Python, which FSDP uses to free and re-gather parameters).
#pragma once

#include <c10/core/StorageImpl.h>

namespace torch_npu {

// Gives `storage` a fresh block of `nbytes` device memory from the caching allocator (none for 0),
// copies the first min(old, new) bytes into it on the device's current stream and frees the old
// block, as resize_bytes does for CUDA. The storage must be resizable and in a base format.
void resizeStorageBytes(c10::StorageImpl* storage, size_t nbytes);

}  // namespace torch_npu
