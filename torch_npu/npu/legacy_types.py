"""Legacy tensor types: torch.npu.FloatTensor([1, 2]), isinstance(t, torch.npu.FloatTensor)."""
import torch

from torch_npu._device_name import DEVICE_TYPE, npu_device


class _LegacyTensorTypeMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, torch.Tensor) and obj.device.type == DEVICE_TYPE and obj.dtype == cls.dtype

    def __call__(cls, *args, device=None):
        target = npu_device(device)
        if len(args) == 1 and not isinstance(args[0], int):
            data = args[0]
            if isinstance(data, torch.Tensor):
                return data.to(device=target, dtype=cls.dtype)
            return torch.tensor(data, dtype=cls.dtype).to(target)
        if not all(isinstance(a, int) for a in args):
            raise TypeError(f"torch.npu.{cls.__name__}() expects sizes or data, got {args}")
        return torch.empty(args, dtype=cls.dtype, device=target)

    def __repr__(cls):
        return f"<class 'torch.npu.{cls.__name__}'>"


def _legacy_type(name, dtype):
    return _LegacyTensorTypeMeta(name, (), {"dtype": dtype, "is_npu": True})


FloatTensor = _legacy_type("FloatTensor", torch.float32)
HalfTensor = _legacy_type("HalfTensor", torch.float16)
DoubleTensor = _legacy_type("DoubleTensor", torch.float64)
IntTensor = _legacy_type("IntTensor", torch.int32)
LongTensor = _legacy_type("LongTensor", torch.int64)
ShortTensor = _legacy_type("ShortTensor", torch.int16)
CharTensor = _legacy_type("CharTensor", torch.int8)
ByteTensor = _legacy_type("ByteTensor", torch.uint8)
BoolTensor = _legacy_type("BoolTensor", torch.bool)
