"""torch_npu.contrib.module: torch_npu's affinity modules (torch_npu/contrib/module/__init__.py), NPU
implementations of layers common in vision models. torchvision is imported only by the modules that use
it, when they run."""
from torch_npu.contrib.module.activations import Mish, SiLU, Swish
from torch_npu.contrib.module.channel_shuffle import ChannelShuffle
from torch_npu.contrib.module.crossentropy import LabelSmoothingCrossEntropy
from torch_npu.contrib.module.deform_conv import DCNv2, ModulatedDeformConv
from torch_npu.contrib.module.focus import Focus
from torch_npu.contrib.module.fusedcolorjitter import FusedColorJitter
from torch_npu.contrib.module.npu_droppath import NpuDropPath
from torch_npu.contrib.module.prefetcher import Prefetcher
from torch_npu.contrib.module.ps_roi_pooling import PSROIPool
from torch_npu.contrib.module.roi_align import ROIAlign

__all__ = ["ChannelShuffle", "Prefetcher", "LabelSmoothingCrossEntropy", "ROIAlign", "DCNv2", "ModulatedDeformConv",
           "Mish", "PSROIPool", "SiLU", "Swish", "FusedColorJitter", "NpuDropPath", "Focus"]
