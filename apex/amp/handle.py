"""amp.scale_loss: `with amp.scale_loss(loss, optimizer) as scaled_loss: scaled_loss.backward()`."""
import contextlib

import torch

from apex.amp.frontend import _amp_state, _as_list


def _grads_to_unscale(optimizer):
    """The gradients the step will use; under O2 the fp16 model gradients move to the fp32 masters."""
    grads = []
    for model_p, master in optimizer._amp_stash["pairs"]:
        if model_p.grad is not None:
            master.grad = model_p.grad.float() if master.grad is None else master.grad.add_(model_p.grad.float())
            model_p.grad = None
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None:
                grads.append(p.grad)
    return grads


@contextlib.contextmanager
def scale_loss(loss, optimizers, loss_id=0, model=None, delay_unscale=False, delay_overflow_check=False):
    if _amp_state.props is None:
        raise RuntimeError("amp.scale_loss called before amp.initialize")
    optimizer_list = _as_list(optimizers)
    for optimizer in optimizer_list:
        if not hasattr(optimizer, "_amp_stash"):
            raise RuntimeError("amp.scale_loss: this optimizer was not passed to amp.initialize")
    scaler = _amp_state.loss_scalers[loss_id]
    scaler.begin_backward(loss.device)
    yield loss.float() * scaler.loss_scale
    if delay_unscale:
        return
    grads = [g for optimizer in optimizer_list for g in _grads_to_unscale(optimizer)]
    overflow = scaler.unscale(grads) if grads else False
    scaler.update(overflow)
    for optimizer in optimizer_list:
        optimizer._amp_stash["skip_next_step"] = overflow
    if overflow and getattr(_amp_state, "verbosity", 1) > 0:
        print(f"Gradient overflow.  Skipping step, loss scaler {loss_id} reducing loss scale to {scaler.loss_scale}"
              if scaler.dynamic else f"Gradient overflow.  Skipping step (static loss scale {scaler.loss_scale})")
