"""torch.save / torch.load of NPU tensors.

Saving: PyTorch copies every non-CPU storage to the host itself; we only tag
NPU storages with their location ("npu:0"). Loading: storages tagged "npu*"
(or mapped there with map_location="npu:N") are moved to that NPU.
"""
import torch

from torch_npu._device_name import DEVICE_TYPE, npu_device


def _tag(obj):
    if obj.device.type == DEVICE_TYPE:
        return f"npu:{obj.device.index}"
    return None


def _to_npu_storage(storage, device):
    """An NPU UntypedStorage holding the bytes of a host UntypedStorage."""
    host = torch.empty(0, dtype=torch.uint8)
    host.set_(storage)
    return host.to(device).storage()._untyped()


def _deserialize(obj, location):
    if not (location.startswith("npu") or location.startswith("privateuseone")):
        return None
    device = npu_device(location)
    import torch_npu.npu as npu
    if device.index >= npu.device_count():
        raise RuntimeError(
            f"Attempting to deserialize object on NPU device {device.index} but torch.npu.device_count() is "
            f"{npu.device_count()}. Please use torch.load with map_location to map your storages to an "
            f"existing device.")
    if isinstance(obj, torch.storage.TypedStorage):
        return torch.storage.TypedStorage(wrap_storage=_to_npu_storage(obj._untyped(), device), dtype=obj.dtype)
    return _to_npu_storage(obj, device)


_installed = False


def install():
    global _installed
    if not _installed:
        torch.serialization.register_package(30, _tag, _deserialize)
        _installed = True
