"""amp.scale_loss: `with amp.scale_loss(loss, optimizer) as scaled_loss: scaled_loss.backward()`."""
import contextlib

from apex.amp.frontend import _amp_state, _as_list


def _grads_to_unscale(optimizer):
    """The gradients the step will use; under O2 the fp16 model gradients move to the fp32 masters.

    Note [Accumulating scaled gradients]: the gradients an unscale sees must all carry the loss scale.
    A backward whose gradients land on gradients unscaled by an earlier scale_loss (accumulation
    without delay_unscale) would scale those twice, so scale_loss first sets them aside
    (_set_aside_unscaled), and adds them back after its unscale. Master gradients are therefore zero
    (or None) whenever model gradients move to them, and the move is a copy: one Cast, which keeps a
    private format, so NpuFused optimizers' combined buffers stay in place (apex copies them too)."""
    grads = []
    for model_p, master in optimizer._amp_stash["pairs"]:
        if model_p.grad is not None:
            if master.grad is None:
                master.grad = model_p.grad.float()
            else:
                master.grad.copy_(model_p.grad)
            model_p.grad = None
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None:
                grads.append(p.grad)
    return grads


def _set_aside_unscaled(optimizer):
    """Before a backward: moves gradients an earlier scale_loss unscaled out of the way (Note
    [Accumulating scaled gradients]); nothing after zero_grad or a delay_unscale backward."""
    stash = optimizer._amp_stash
    if stash.get("grads_scaled_or_zero", True):
        return
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None:
                stash["set_aside"].append((p.grad, p.grad.clone()))
                p.grad.zero_()
    stash["grads_scaled_or_zero"] = True


def _add_back_set_aside(optimizer):
    stash = optimizer._amp_stash
    for grad, value in stash["set_aside"]:
        grad.add_(value)
    stash["set_aside"] = []
    stash["grads_scaled_or_zero"] = False


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
    for optimizer in optimizer_list:
        _set_aside_unscaled(optimizer)
    yield loss.float() * scaler.loss_scale
    if delay_unscale:
        return
    grads = [g for optimizer in optimizer_list for g in _grads_to_unscale(optimizer)]
    overflow = scaler.unscale(grads) if grads else False
    scaler.update(overflow)
    for optimizer in optimizer_list:
        _add_back_set_aside(optimizer)
        optimizer._amp_stash["skip_next_step"] = overflow
    if overflow and getattr(_amp_state, "verbosity", 1) > 0:
        print(f"Gradient overflow.  Skipping step, loss scaler {loss_id} reducing loss scale to {scaler.loss_scale}"
              if scaler.dynamic else f"Gradient overflow.  Skipping step (static loss scale {scaler.loss_scale})")
