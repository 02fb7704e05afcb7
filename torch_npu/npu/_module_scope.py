"""The module path ("MLP.fc2") of the nn.Module whose forward is running, per thread.

Op dumps name each op's layer by it (Note [Op dump] in the simulator): while a user (an op dump, the
compare recorder) holds it, global forward hooks keep a per-thread stack of running modules and hand
the innermost one's path to the NPU's launches (_C._npu_setLaunchScope). A module's path is its name
in the first module whose forward ran with an empty stack (its root, named by its class): `MLP.fc2`.
A submodule called on its own before its parent ever ran keeps the root name it got then. Backward
ops run on the autograd engine's thread, outside any forward: they have no layer.
"""
import threading
import weakref

import torch

from torch_npu import _C

_lock = threading.Lock()
_users = 0
_handles = []
_names = weakref.WeakKeyDictionary()
_local = threading.local()


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current():
    """The innermost running module's path on this thread, or ""."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else ""


def _name_of(module):
    name = _names.get(module)
    if name is None:
        root = type(module).__name__
        for sub_name, sub in module.named_modules(prefix=root):
            _names.setdefault(sub, sub_name)
        name = _names[module]
    return name


def _enter(module, inputs):
    stack = _stack()
    stack.append(_name_of(module))
    _C._npu_setLaunchScope(stack[-1])


def _leave(module, inputs, output):
    stack = _stack()
    if stack:
        stack.pop()
    _C._npu_setLaunchScope(stack[-1] if stack else "")


def acquire():
    """Starts tracking (reference counted)."""
    global _users
    with _lock:
        _users += 1
        if _users == 1:
            _handles.append(torch.nn.modules.module.register_module_forward_pre_hook(_enter))
            _handles.append(torch.nn.modules.module.register_module_forward_hook(_leave))


def release():
    global _users
    with _lock:
        if _users == 0:
            return
        _users -= 1
        if _users == 0:
            for handle in _handles:
                handle.remove()
            _handles.clear()
            _stack().clear()
            _C._npu_setLaunchScope("")
