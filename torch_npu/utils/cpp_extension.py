"""C++ extensions against torch_npu: torch.utils.cpp_extension with the NPU's headers and library.

    # setup.py
    from setuptools import setup
    from torch.utils.cpp_extension import BuildExtension
    from torch_npu.utils.cpp_extension import NpuExtension
    setup(name="my_ops", ext_modules=[NpuExtension("my_ops", ["my_ops.cpp"])],
          cmdclass={"build_ext": BuildExtension})

    # or just in time
    my_ops = torch_npu.utils.cpp_extension.load("my_ops", ["my_ops.cpp"])

An extension includes torch_npu's public headers as torch_npu spells them
("torch_npu/csrc/framework/OpCommand.h", "torch_npu/csrc/core/npu/NPUStream.h",
"torch_npu/csrc/framework/utils/OpPreparation.h"), registers its kernels for the NPU with
TORCH_LIBRARY_IMPL(ns, PrivateUse1, m), and links libtorch_npu.so, found at run time through the
extension's rpath. Only torch_npu/include is on the include path (Note [Public headers] in setup.py):
nothing from the source tree is needed. See docs/cpp_extensions.md.
"""
import inspect
import os

import torch.utils.cpp_extension as _torch_ext

import torch_npu

PYTORCH_NPU_INSTALL_PATH = os.path.dirname(os.path.realpath(torch_npu.__file__))


def include_paths():
    """The include directories of torch_npu's public headers."""
    path = os.path.join(PYTORCH_NPU_INSTALL_PATH, "include")
    if not os.path.isfile(os.path.join(path, "torch_npu", "csrc", "framework", "OpCommand.h")):
        raise RuntimeError(f"torch_npu's C++ headers are not installed in {path}; build the package "
                           "(`/usr/bin/python3 setup.py develop` in the torch_npu checkout) to install them")
    return [path]


def library_paths():
    """The directory of libtorch_npu.so."""
    return [PYTORCH_NPU_INSTALL_PATH]


# torch 1.13 builds extensions as C++14; torch_npu's headers (std::variant, if constexpr) need C++17,
# which torch's own headers accept. A later -std wins, so this one goes last.
_CXX_STANDARD = "-std=c++17"


def _with_cxx17(args):
    if isinstance(args, dict):  # {"cxx": [...], "nvcc": [...]}
        return {**args, "cxx": list(args.get("cxx", [])) + [_CXX_STANDARD]}
    return list(args or []) + [_CXX_STANDARD]


# libascend_sim: the simulator's C API, which Ascend C kernels (<kernel_operator.h>) call.
_LIBRARIES = ["torch_npu", "ascend_sim"]


def _link_flags():
    lib_dir = library_paths()[0]
    return [f"-L{lib_dir}", *[f"-l{lib}" for lib in _LIBRARIES], f"-Wl,-rpath,{lib_dir}"]


def _listed(kwargs, key):
    return list(kwargs.get(key) or [])


def NpuExtension(name, sources, *args, **kwargs):
    """A setuptools.Extension for C++ against torch and torch_npu (torch_npu's name and signature);
    arguments as torch.utils.cpp_extension.CppExtension's. torch_npu's include directory comes first,
    so that no header of the extension's own tree can stand in for one of torch_npu's."""
    kwargs["include_dirs"] = include_paths() + _listed(kwargs, "include_dirs")
    kwargs["library_dirs"] = _listed(kwargs, "library_dirs") + library_paths()
    kwargs["libraries"] = _listed(kwargs, "libraries") + _LIBRARIES
    kwargs["runtime_library_dirs"] = _listed(kwargs, "runtime_library_dirs") + library_paths()
    kwargs["extra_compile_args"] = _with_cxx17(kwargs.get("extra_compile_args"))
    return _torch_ext.CppExtension(name, sources, *args, **kwargs)


def _call_with_npu(fn, *args, **kwargs):
    """fn (torch's load or load_inline) with its arguments bound by name, torch_npu's added."""
    bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    bound["extra_include_paths"] = include_paths() + _listed(bound, "extra_include_paths")
    bound["extra_ldflags"] = _listed(bound, "extra_ldflags") + _link_flags()
    bound["extra_cflags"] = _with_cxx17(bound.get("extra_cflags"))
    return fn(**bound)


def load(name, sources, *args, **kwargs):
    """torch.utils.cpp_extension.load (same arguments), building against torch_npu too."""
    return _call_with_npu(_torch_ext.load, name, sources, *args, **kwargs)


def load_inline(name, cpp_sources, *args, **kwargs):
    """torch.utils.cpp_extension.load_inline (same arguments), building against torch_npu too."""
    return _call_with_npu(_torch_ext.load_inline, name, cpp_sources, *args, **kwargs)
