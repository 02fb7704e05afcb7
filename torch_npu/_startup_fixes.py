"""Start-up fixes, loaded by the start-up hook (_preload.py) in every /usr/bin/python3 process.

It must not import torch (the hook runs before anything does) and must never break start-up.

Note [Torch 1.13 on Python 3.11]
Debian runs torch 1.13.1 on Python 3.11, two Python releases newer than 1.13 was written for.
Two of torch's own modules fail there, and users of this project meet them first:
- torch.distributed.elastic.multiprocessing.api: `Std.from_str("0")` returns None, because
  iterating an IntFlag no longer yields the zero and multi-bit members, so torchrun and
  torch.distributed.launch crash with their default `--redirects 0 --tee 0`;
- torch.distributed._shard.sharded_tensor.metadata: a dataclass field with an unhashable default
  (`field(default=TensorProperties())`), which 3.11 rejects, so torch.distributed.fsdp and
  torch.distributed._shard cannot be imported.
This module installs an import hook that compiles exactly those two modules from their own
source with the one-line repairs below (the fix later torch releases made), in memory: Debian's
files and their bytecode caches are not touched. A repair whose original text is not found (another
torch) leaves the module as it is.

Note [transfer_to_npu in child processes]
`python3 -m torch_npu.contrib.transfer_to_npu script.py` sets TORCH_NPU_TRANSFER_TO_NPU=1, which
every process it starts inherits: multiprocessing's spawned children, torch.multiprocessing.spawn's
workers and torchrun's, which run the script again in a fresh interpreter. In such a process the
same import hook installs transfer_to_npu right after `import torch` finishes, so a CUDA script's
children run on the NPU as its main process does; processes that never import torch pay nothing.
"""
import importlib.abc
import importlib.machinery
import os
import sys

_REPAIRS = {
    "torch.distributed.elastic.multiprocessing.api": [(
        "            v = int(v)\n"
        "            for s in Std:\n"
        "                if s == v:\n"
        "                    return s\n",
        "            return cls(int(v))  # torch_npu: Python 3.11 iterates no zero/alias IntFlag members\n",
    )],
    "torch.distributed._shard.sharded_tensor.metadata": [(
        "tensor_properties: TensorProperties = field(default=TensorProperties())",
        "tensor_properties: TensorProperties = field(default_factory=TensorProperties)  # torch_npu: 3.11",
    )],
}
TRANSFER_ENV = "TORCH_NPU_TRANSFER_TO_NPU"


class _RepairedSourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the module from its source with the repairs applied; writes no bytecode cache."""

    def __init__(self, fullname, path, repairs):
        super().__init__(fullname, path)
        self.repairs = repairs

    def get_code(self, fullname):
        source = self.get_data(self.path).decode("utf-8")
        if all(old in source for old, _ in self.repairs):
            for old, new in self.repairs:
                source = source.replace(old, new, 1)
        return compile(source, self.path, "exec", dont_inherit=True)


class _TorchAwareLoader(importlib.abc.Loader):
    """torch's own loader, then transfer_to_npu (Note [transfer_to_npu in child processes])."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        import torch_npu.contrib.transfer_to_npu  # noqa: F401  (installs the redirection)


class StartupFinder(importlib.abc.MetaPathFinder):
    """Finds the modules above through the other finders and swaps their loader."""

    def find_spec(self, fullname, path=None, target=None):
        wants_transfer = fullname == "torch" and os.environ.get(TRANSFER_ENV) == "1"
        if fullname not in _REPAIRS and not wants_transfer:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        if wants_transfer:
            spec.loader = _TorchAwareLoader(spec.loader)
        else:
            spec.loader = _RepairedSourceLoader(fullname, spec.origin, _REPAIRS[fullname])
        return spec


def install():
    if sys.version_info >= (3, 11) or os.environ.get(TRANSFER_ENV) == "1":
        if not any(isinstance(finder, StartupFinder) for finder in sys.meta_path):
            sys.meta_path.insert(0, StartupFinder())
