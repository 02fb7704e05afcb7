"""amp.initialize and the amp state (apex's frontend, on the NPU)."""
import functools
import warnings

import torch

from apex.amp.opt_levels import properties_for
from apex.amp.scaler import LossScaler
from torch_npu.npu.amp.autocast_mode import cast_tensors


class _AmpState:
    def __init__(self):
        self.props = None
        self.loss_scalers = []


_amp_state = _AmpState()


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _cast_floating(value, dtype):
    return cast_tensors(value, dtype, lambda t: t.is_floating_point())


def _patch_forward_casts(model, input_dtype):
    """O2/O3: floating inputs are cast to fp16 and outputs to fp32, as apex does."""
    original = model.forward

    @functools.wraps(original)
    def forward(*args, **kwargs):
        out = original(*_cast_floating(args, input_dtype), **_cast_floating(kwargs, input_dtype))
        return _cast_floating(out, torch.float32)
    model.forward = forward


def _patch_forward_autocast(model):
    """O1: the forward runs under torch.npu.amp.autocast."""
    original = model.forward

    @functools.wraps(original)
    def forward(*args, **kwargs):
        with torch.npu.amp.autocast():
            return original(*args, **kwargs)
    model.forward = forward


def _cast_model(model, dtype, keep_batchnorm_fp32):
    model.to(dtype)
    if keep_batchnorm_fp32:
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.float()


def _check_on_npu(models, optimizers):
    model_params = set()
    for model in models:
        for name, p in model.named_parameters():
            if p.device.type != "npu":
                raise RuntimeError(f"amp.initialize expects models on the NPU: parameter {name!r} is on {p.device}; "
                                   "call model.npu() before amp.initialize")
            model_params.add(id(p))
    for optimizer in optimizers:
        for group in optimizer.param_groups:
            for p in group["params"]:
                if id(p) not in model_params:
                    raise RuntimeError("amp.initialize: the optimizer holds a parameter that is not one of the "
                                       "models' parameters; create the optimizer after model.npu()")


def _wire_optimizer(optimizer, master_weights):
    """Adds the amp stash: fp32 master copies (O2) and a step that can be skipped."""
    pairs = []
    if master_weights:
        for group in optimizer.param_groups:
            masters = []
            for p in group["params"]:
                if p.dtype == torch.float16:
                    master = p.detach().clone().float().requires_grad_(p.requires_grad)
                    pairs.append((p, master))
                    masters.append(master)
                else:
                    masters.append(p)
            group["params"] = masters
    optimizer._amp_stash = {"pairs": pairs, "skip_next_step": False, "grads_scaled_or_zero": True, "set_aside": []}
    original_step = optimizer.step
    original_zero_grad = optimizer.zero_grad

    @functools.wraps(original_step)
    def step(*args, **kwargs):
        stash = optimizer._amp_stash
        if stash["skip_next_step"]:
            stash["skip_next_step"] = False
            return None
        result = original_step(*args, **kwargs)
        with torch.no_grad():
            for model_p, master in stash["pairs"]:
                model_p.copy_(master)
        return result

    @functools.wraps(original_zero_grad)
    def zero_grad(set_to_none=False):
        original_zero_grad(set_to_none=set_to_none)
        for model_p, _ in optimizer._amp_stash["pairs"]:
            model_p.grad = None
        optimizer._amp_stash.update(grads_scaled_or_zero=True, set_aside=[])  # Note [Accumulating scaled gradients]

    optimizer.step = step
    optimizer.zero_grad = zero_grad


def initialize(models, optimizers=None, enabled=True, opt_level="O1", cast_model_type=None,
               patch_torch_functions=None, keep_batchnorm_fp32=None, master_weights=None, loss_scale=None,
               cast_model_outputs=None, num_losses=1, verbosity=1, min_loss_scale=None, max_loss_scale=2.0 ** 24,
               combine_grad=None, **unused):
    """Sets up models and optimizers for mixed precision; returns them in the structure they were given.

    combine_grad is accepted: gradients are always unscaled and checked one
    call per dtype (the combined form).
    """
    if not enabled:
        return models if optimizers is None else (models, optimizers)
    if isinstance(keep_batchnorm_fp32, str):
        keep_batchnorm_fp32 = keep_batchnorm_fp32 == "True"
    props = properties_for(opt_level, cast_model_type=cast_model_type, keep_batchnorm_fp32=keep_batchnorm_fp32,
                           master_weights=master_weights, loss_scale=loss_scale, patch_autocast=patch_torch_functions)
    model_list = _as_list(models)
    optimizer_list = [] if optimizers is None else _as_list(optimizers)
    _check_on_npu(model_list, optimizer_list)
    for model in model_list:
        if props.cast_model_type is not None and props.cast_model_type != torch.float32:
            _cast_model(model, props.cast_model_type, props.keep_batchnorm_fp32)
            _patch_forward_casts(model, props.cast_model_type)
        if props.patch_autocast:
            _patch_forward_autocast(model)
    for optimizer in optimizer_list:
        if hasattr(optimizer, "_amp_stash"):
            raise RuntimeError("amp.initialize was already called on this optimizer")
        _wire_optimizer(optimizer, props.master_weights)
    _amp_state.props = props
    _amp_state.verbosity = verbosity
    _amp_state.loss_scalers = [LossScaler(props.loss_scale, min_loss_scale, max_loss_scale)
                               for _ in range(num_losses)]
    if verbosity > 0:
        print(f"Selected optimization level {props.opt_level}: loss_scale={props.loss_scale}, "
              f"master_weights={props.master_weights}, keep_batchnorm_fp32={props.keep_batchnorm_fp32}")
    if optimizers is None:
        return models
    return models, optimizers


def master_params(optimizer):
    """The parameters the optimizer steps (the fp32 masters under O2)."""
    for group in optimizer.param_groups:
        yield from group["params"]


def state_dict(destination=None):
    state = destination if destination is not None else {}
    for i, scaler in enumerate(_amp_state.loss_scalers):
        state[f"loss_scaler{i}"] = scaler.state_dict()
    return state


def load_state_dict(state):
    if len(state) != len(_amp_state.loss_scalers):
        warnings.warn(f"amp.load_state_dict: {len(state)} loss scalers in the state, "
                      f"{len(_amp_state.loss_scalers)} configured")
    for i, scaler in enumerate(_amp_state.loss_scalers):
        key = f"loss_scaler{i}"
        if key in state:
            scaler.load_state_dict(state[key])
