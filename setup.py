"""Builds torch_npu with CMake and installs it for /usr/bin/python3.

    /usr/bin/python3 setup.py build     # configure + build (./build), copy the libraries into torch_npu/
    /usr/bin/python3 setup.py develop   # build, then make `import torch_npu` work from any directory

`develop` writes two files into the interpreter's site-packages directory:
  torch_npu.pth            adds this checkout to sys.path and runs the start-up hook
  _torch_npu_preload.py    the hook (torch_npu/_preload.py) pointing at the built library
See Note [Making "npu" a native device name] for why a start-up hook is needed.
"""
import glob
import os
import re
import shutil
import site
import subprocess
import sys

from setuptools import Command, setup

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.environ.get("TORCH_NPU_BUILD_DIR", os.path.join(ROOT, "build"))
PACKAGE_DIR = os.path.join(ROOT, "torch_npu")


def _run(cmd):
    print("+", " ".join(cmd), flush=True)
    subprocess.check_call(cmd, cwd=ROOT)


# Note [Public headers]: what a C++ extension may include. include/ (torch_npu's spellings:
# torch_npu/csrc/framework/OpCommand.h, ...) is installed whole into torch_npu/include/, with the
# project headers below, which those include; nothing else from csrc/ or third_party/ is installed,
# so an extension that builds against torch_npu/include needs nothing from the source tree.
PUBLIC_HEADERS = [
    "csrc/framework/OpCommand.h", "csrc/core/AclOpLaunch.h", "csrc/core/NPUStream.h",
    "csrc/core/NPUFunctions.h", "csrc/framework/FormatHelper.h",
    "csrc/framework/NPUStorageImpl.h", "csrc/framework/NPUTensorFactory.h", "csrc/core/NPUCachingAllocator.h",
    "csrc/core/AllocatorHistory.h",
    ("third_party/ascend_sim/include/ascend_sim/acl.h", "ascend_sim/acl.h"),
    # Ascend C kernels (docs/ascend_c.md): <kernel_operator.h>, header-only over the simulator's launch API.
    ("third_party/ascend_sim/include/ascend_sim/aclsim_kernel.h", "ascend_sim/aclsim_kernel.h"),
    ("third_party/ascend_sim/include/kernel_operator.h", "kernel_operator.h"),
] + [(os.path.relpath(path, ROOT), os.path.relpath(path, os.path.join(ROOT, "third_party/ascend_sim/include")))
     for path in sorted(glob.glob(os.path.join(ROOT, "third_party/ascend_sim/include/ascend_sim/ascendc/*.h")))]


def install_headers():
    target_root = os.path.join(PACKAGE_DIR, "include")
    if os.path.isdir(target_root):
        shutil.rmtree(target_root)  # a header removed from the list must not linger
    shutil.copytree(os.path.join(ROOT, "include"), target_root, ignore=shutil.ignore_patterns("*.md"))
    for entry in PUBLIC_HEADERS:
        source, target = entry if isinstance(entry, tuple) else (entry, entry)
        os.makedirs(os.path.dirname(os.path.join(target_root, target)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, source), os.path.join(target_root, target))
    # Every quoted include of an installed header must resolve inside the installed tree.
    unresolved = []
    for folder, _, files in os.walk(target_root):
        for name in files:
            with open(os.path.join(folder, name)) as f:
                for include in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                    if not os.path.isfile(os.path.join(target_root, include)):
                        unresolved.append(f"{os.path.relpath(os.path.join(folder, name), target_root)}: {include}")
    if unresolved:
        raise RuntimeError("public headers include headers that are not installed (add them to PUBLIC_HEADERS): "
                           + "; ".join(unresolved))
    print(f"installed the public C++ headers into {target_root}")


def build_native(jobs=None):
    jobs = jobs or os.environ.get("TORCH_NPU_BUILD_JOBS", str(os.cpu_count() or 2))
    # TORCH_NPU_TEST_BUILD=1 (ci/test.sh): a test build, with the mutation check's deliberate
    # defects compiled in (Note [Test mutations] in csrc/core/TestMutations.h).
    mutations = "ON" if os.environ.get("TORCH_NPU_TEST_BUILD") == "1" else "OFF"
    _run(["cmake", "-S", ROOT, "-B", BUILD_DIR, "-DCMAKE_BUILD_TYPE=Release",
          f"-DPython3_EXECUTABLE={sys.executable}", f"-DTORCH_NPU_TEST_MUTATIONS={mutations}"])
    _run(["cmake", "--build", BUILD_DIR, "-j", jobs])
    libs = glob.glob(os.path.join(BUILD_DIR, "lib", "*.so"))
    for lib in libs:
        target = os.path.join(PACKAGE_DIR, os.path.basename(lib))
        if os.path.exists(target):
            os.remove(target)  # never overwrite a mapped library in place
        shutil.copy2(lib, target)
    print(f"copied {len(libs)} libraries into {PACKAGE_DIR}")
    install_headers()


def install_startup_hook():
    site_dir = site.getsitepackages()[0]
    os.makedirs(site_dir, exist_ok=True)
    with open(os.path.join(PACKAGE_DIR, "_preload.py")) as f:
        hook = f.read().replace(
            'LIB_DIR = os.path.dirname(os.path.abspath(__file__))', f"LIB_DIR = {PACKAGE_DIR!r}")
    with open(os.path.join(site_dir, "_torch_npu_preload.py"), "w") as f:
        f.write(hook)
    with open(os.path.join(site_dir, "torch_npu.pth"), "w") as f:
        f.write(f"{ROOT}\nimport _torch_npu_preload\n")
    print(f"installed torch_npu.pth and _torch_npu_preload.py into {site_dir}")
    report_companion_apex()


def report_companion_apex():
    """The checkout's apex/ (apex.amp for the NPU) is importable through torch_npu.pth, which
    comes after the system paths: an apex installed elsewhere keeps precedence."""
    import importlib.util
    spec = importlib.util.find_spec("apex")
    origin = os.path.dirname(spec.origin) if spec and spec.origin else ""
    if spec and not origin.startswith(ROOT):
        print(f"note: another apex is installed ({origin}); it is imported instead of torch_npu's apex.amp")


class BuildCommand(Command):
    description = "build the native libraries with CMake"
    user_options = []

    def initialize_options(self):
        pass

    def finalize_options(self):
        pass

    def run(self):
        build_native()


class DevelopCommand(BuildCommand):
    description = "build, then make torch_npu importable from any directory"

    def run(self):
        build_native()
        install_startup_hook()


setup(
    name="torch_npu",
    version="0.1.0",
    description="PyTorch backend for a simulated Ascend NPU",
    packages=["torch_npu", "torch_npu.npu", "torch_npu.npu.amp", "torch_npu.distributed", "torch_npu.testing",
              "torch_npu.optim", "torch_npu.profiler", "torch_npu.utils"],
    cmdclass={"build": BuildCommand, "develop": DevelopCommand},
)
