"""Parameters shared between modules stay shared when a module moves to the NPU.

Note [Shared parameters across devices]
nn.Module._apply (behind .to(), .npu(), .half(), ...) converts each module's
parameters one module at a time. When the converted tensor cannot take the
old one's place in memory (PyTorch 1.13 allows `param.data = new` only
between CPU, CUDA, MPS, HIP and XPU tensors), it wraps it in a *new*
Parameter per module. A parameter held by two modules — the tied embedding and
output head of a language model — would silently become two independent
parameters on the NPU, each trained on half of its gradient. torch_npu wraps
the outermost _apply call: before converting, it records which (module,
name) slots hold the same Parameter; afterwards every slot of a group holds
the Parameter of its first slot again, exactly as on CUDA. Nested _apply
calls (the recursion into children) run unchanged.
"""
import functools
import threading

import torch

_state = threading.local()


def _parameter_slots(module):
    """{id(parameter): [(module, name), ...]} for parameters held in more than one slot."""
    slots = {}
    for sub in module.modules():
        for name, param in sub._parameters.items():
            if param is not None:
                slots.setdefault(id(param), []).append((sub, name))
    return {key: group for key, group in slots.items() if len(group) > 1}


def _wrap_apply(original):
    @functools.wraps(original)
    def _apply(self, fn, *args, **kwargs):
        if getattr(_state, "depth", 0) > 0:
            return original(self, fn, *args, **kwargs)
        shared = _parameter_slots(self)
        _state.depth = 1
        try:
            result = original(self, fn, *args, **kwargs)
        finally:
            _state.depth = 0
        for group in shared.values():
            first_module, first_name = group[0]
            kept = first_module._parameters[first_name]
            for module, name in group[1:]:
                module._parameters[name] = kept
        return result

    return _apply


def install():
    torch.nn.Module._apply = _wrap_apply(torch.nn.Module._apply)
