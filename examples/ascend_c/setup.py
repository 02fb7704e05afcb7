"""Builds the Ascend C example extension against the installed torch_npu:

    /usr/bin/python3 setup.py build_ext --inplace
    /usr/bin/python3 -c "import torch, torch_npu, ascendc_ext; print(torch.ops.ascendc_ext.add_custom)"

The kernels (*_custom.cpp) include <kernel_operator.h> as Ascend C kernels do; on the simulated NPU
they compile with the host compiler and run on the simulator (docs/ascend_c.md).
"""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension

from torch_npu.utils.cpp_extension import NpuExtension

SOURCES = ["ascendc_ops.cpp", "add_custom.cpp", "softmax_custom.cpp", "matmul_leakyrelu_custom.cpp"]

setup(name="ascendc_ext", ext_modules=[NpuExtension("ascendc_ext", SOURCES)], cmdclass={"build_ext": BuildExtension})
