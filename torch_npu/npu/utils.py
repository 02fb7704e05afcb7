"""torch.npu.utils: the device functions under the module name torch_npu's
code imports them from (`from torch_npu.npu.utils import ...`)."""
from torch_npu.npu import (  # noqa: F401  (re-exports)
    current_device, device, device_count, device_of, get_device_capability, get_device_name,
    get_device_properties, init, is_available, is_bf16_supported, is_initialized, set_device, synchronize)

__all__ = ["current_device", "device", "device_count", "device_of", "get_device_capability", "get_device_name",
           "get_device_properties", "init", "is_available", "is_bf16_supported", "is_initialized", "set_device",
           "synchronize"]
