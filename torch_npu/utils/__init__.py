"""torch_npu.utils: helpers for code written against torch_npu (C++ extensions: cpp_extension).

`torch_npu.utils.cpp_extension` works after a plain `import torch_npu`; it is imported on first use,
so that `import torch_npu` does not load setuptools and torch.utils.cpp_extension.
"""
import importlib

_LAZY = ("cpp_extension",)


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
