"""torch.save / torch.load / copy.deepcopy of NPU tensors.

See Note [NPU storages in Python] (csrc/python/StorageBindings.cpp): 1.13's
C++ storage paths reject NPU storages, so the three storage operations those
features need are provided here for NPU storages and delegate otherwise:
  UntypedStorage.cpu()    save copies every storage to the host
  UntypedStorage.clone()  deepcopy clones storages
  UntypedStorage.resize_()  FSDP frees (resize to 0) and re-allocates parameter memory
  torch._utils._rebuild_tensor  load views a tensor onto a loaded storage
and copy.deepcopy of a plain NPU tensor (Tensor.__deepcopy__ views a new
tensor onto the cloned storage with set_, which 1.13 refuses for NPU
storages) clones the tensor instead, as PyTorch does for XLA or HPU
tensors: values, format, requires_grad and grad are copied; tensors sharing
one storage inside the copied object do not share it in the copy.
Storages are tagged "npu:N" on save; on load, storages tagged "npu*" (or
mapped there with map_location="npu:N") are copied to that NPU.
"""
import functools
import os
import secrets
import stat
import zipfile

import torch

from torch_npu import _C
from torch_npu._device_name import DEVICE_TYPE, npu_device
from torch_npu._patches.registry import replace


def _is_npu(storage):
    return storage.device.type == DEVICE_TYPE


def _tag(obj):
    if _is_npu(obj):
        return f"npu:{obj.device.index}"
    return None


def _deserialize(obj, location):
    if not (location.startswith("npu") or location.startswith("privateuseone")):
        return None
    device = npu_device(location)
    count = _C._npu_getDeviceCount()
    if device.index >= count:
        raise RuntimeError(
            f"Attempting to deserialize object on NPU device {device.index} but torch.npu.device_count() is "
            f"{count}. Please use torch.load with map_location to map your storages to an existing device.")
    untyped = obj.untyped() if isinstance(obj, torch.storage.TypedStorage) else obj
    host = torch.empty(0, dtype=torch.uint8).set_(untyped)
    moved = host.to(device).storage().untyped()
    if isinstance(obj, torch.storage.TypedStorage):
        return torch.storage.TypedStorage(wrap_storage=moved, dtype=obj.dtype)
    return moved


def _wrap_storage_method(original, npu_impl):
    @functools.wraps(original)
    def method(self, *args, **kwargs):
        if _is_npu(self):
            return npu_impl(self, *args, **kwargs)
        return original(self, *args, **kwargs)

    return method


def _storage_resize(storage, size):
    _C._npu_resizeStorage(storage, int(size))
    return storage


def _storage_cpu(storage):
    return _C._npu_storageAsBytes(storage).cpu().storage().untyped()


def _storage_clone(storage):
    return _C._npu_storageAsBytes(storage).clone().storage().untyped()


def _wrap_rebuild_tensor(original):
    @functools.wraps(original)
    def _rebuild_tensor(storage, storage_offset, size, stride):
        untyped = storage.untyped() if isinstance(storage, torch.storage.TypedStorage) else storage
        if _is_npu(untyped):
            t = torch.empty(0, dtype=storage.dtype, device=untyped.device)
            return _C._npu_setStorage(t, untyped, storage_offset, list(size), list(stride))
        return original(storage, storage_offset, size, stride)

    return _rebuild_tensor


_installed = False


def _wrap_deepcopy(original):
    @functools.wraps(original)
    def __deepcopy__(self, memo):
        if type(self) is not torch.Tensor or self.device.type != DEVICE_TYPE or self.is_sparse:
            return original(self, memo)
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment")
        if id(self) in memo:
            return memo[id(self)]
        with torch.no_grad():
            copy = self.clone()
        copy.requires_grad_(self.requires_grad)
        if self.grad is not None:
            copy.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = copy
        return copy
    return __deepcopy__


def _wrap_save(original):
    """torch.save to a path writes a temporary file next to it and renames it into place.

    Note [Checkpoints are written whole]
    Saving NPU tensors copies every storage to the host while the file is being written, and a
    device fault (or any error, or a kill) can interrupt that half way. Writing to a temporary
    file in the target's directory and os.replace()-ing it over the target on success means the
    target path holds either the previous checkpoint or the complete new one, never a truncated
    one; on failure the temporary file is removed and the error propagates. Paths that are not
    regular files (/dev/null, a FIFO) and file objects are written as before."""
    @functools.wraps(original)
    def save(obj, f, *args, **kwargs):
        if not isinstance(f, (str, os.PathLike)):
            return original(obj, f, *args, **kwargs)
        target = os.path.realpath(os.fspath(f))
        try:
            if not stat.S_ISREG(os.stat(target).st_mode):
                return original(obj, f, *args, **kwargs)
        except FileNotFoundError:
            pass
        tmp = f"{target}.{os.getpid()}.{secrets.token_hex(4)}.partial"
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))  # the umask applies, as for open()
        try:
            original(obj, tmp, *args, **kwargs)
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return save


def _check_checkpoint(f, name):
    """Raises a RuntimeError naming `name` if the zip checkpoint `f` (a path or a seekable binary file,
    left at its position) is truncated or a record fails its CRC-32.

    Note [Checkpoints are verified on load]
    torch.save writes a zip archive whose records (the pickle and one per storage) carry a CRC-32,
    but 1.13's reader never checks it: a flipped bit in a storage loads as a silently different
    weight, and a truncated file fails with "failed finding central directory", naming no file.
    torch.load therefore reads every record once through zipfile, which checks each CRC, before
    handing the file to torch. Files that are not zip archives (the legacy format) are left to
    torch. The check reads the file once more (zlib's CRC runs at about 1 GB/s here); set
    TORCH_NPU_VERIFY_CHECKPOINTS=0 to skip it."""
    start = None if isinstance(f, str) else f.tell()
    try:
        if not _starts_like_zip(f, start):
            return  # the legacy format: left to torch
        if not zipfile.is_zipfile(f):
            raise zipfile.BadZipFile("it starts as a zip archive (torch.save's format) but has no central directory "
                                     "at its end")
        if start is not None:
            f.seek(start)
        with zipfile.ZipFile(f) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, EOFError, OSError) as e:
        raise RuntimeError(f"torch.load: checkpoint {name} is truncated or damaged: {e}") from e
    finally:
        if start is not None:
            f.seek(start)
    if bad is not None:
        raise RuntimeError(f"torch.load: checkpoint {name} is corrupted: its record '{bad}' fails the CRC-32 check "
                           "(the file changed after torch.save wrote it); restore it from a copy or save it again")


def _starts_like_zip(f, start):
    if start is None:
        with open(f, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def _wrap_load(original):
    """torch.load that refuses a damaged checkpoint with an error naming it (Note [Checkpoints are verified on
    load])."""
    @functools.wraps(original)
    def load(f, *args, **kwargs):
        if os.environ.get("TORCH_NPU_VERIFY_CHECKPOINTS", "1") != "0":
            if isinstance(f, (str, os.PathLike)):
                path = os.fspath(f)
                if os.path.isfile(path):
                    _check_checkpoint(path, f"'{path}'")
            elif hasattr(f, "seekable") and f.seekable() and hasattr(f, "read"):
                _check_checkpoint(f, repr(getattr(f, "name", "<file object>")))
        return original(f, *args, **kwargs)
    return load


def install():
    global _installed
    if _installed:
        return
    torch.serialization.register_package(30, _tag, _deserialize)
    replace("torch.UntypedStorage.cpu", _wrap_storage_method(torch.UntypedStorage.cpu, _storage_cpu))
    replace("torch.UntypedStorage.clone", _wrap_storage_method(torch.UntypedStorage.clone, _storage_clone))
    replace("torch.UntypedStorage.resize_", _wrap_storage_method(torch.UntypedStorage.resize_, _storage_resize))
    replace("torch._utils._rebuild_tensor", _wrap_rebuild_tensor(torch._utils._rebuild_tensor))
    replace("torch.Tensor.__deepcopy__", _wrap_deepcopy(torch.Tensor.__deepcopy__))
    replace("torch.save", _wrap_save(torch.save))
    replace("torch.load", _wrap_load(torch.load))
    _installed = True
