"""Builds the OpCommand example extension against the installed torch_npu:

    /usr/bin/python3 setup.py build_ext --inplace
    /usr/bin/python3 -c "import torch, torch_npu, npu_ext_ops; print(torch.ops.npu_ext.bias_gelu)"
"""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension

from torch_npu.utils.cpp_extension import NpuExtension

setup(name="npu_ext_ops", ext_modules=[NpuExtension("npu_ext_ops", ["op_command_ops.cpp"])],
      cmdclass={"build_ext": BuildExtension})
