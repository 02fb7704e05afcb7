"""torch_npu.contrib: additions around the NPU backend.

- torch_npu's affinity library: torch_npu.contrib.function (detection helpers such as npu_iou,
  npu_multiclass_nms and the box coders, roll, matmul_transpose, ...) and torch_npu.contrib.module
  (ChannelShuffle, ROIAlign, DCNv2, Focus, ...), both re-exported here. Importing them patches nothing
  and does not import torchvision (the helpers that use it import it when they run).
- transfer_to_npu: CUDA scripts on the NPU; it patches torch, so it is imported only when asked for
  (`import torch_npu.contrib.transfer_to_npu`).
"""
from torch_npu.contrib import function, module  # noqa: F401
from torch_npu.contrib.function import *  # noqa: F401,F403
from torch_npu.contrib.function import __all__ as _function_all
from torch_npu.contrib.module import *  # noqa: F401,F403
from torch_npu.contrib.module import __all__ as _module_all

__all__ = [*_function_all, *_module_all]
