"""Parameters, gradients and optimizer state combined into flat buffers.

Note [Combined parameters]
A fused optimizer (as torch_npu's NpuFused* and apex's combine_grad) moves,
at its first step, the parameters of each param group into one contiguous
buffer per (device, dtype): every parameter's .data becomes a view of its
slice, and so do its .grad and its state tensors (momentum buffer, Adam
moments). Backward accumulates into the existing .grad views in place, so a
step is one kernel over the whole buffer (ApplyMomentum / ApplyAdamW) instead
of one per tensor, and the optimizer's state_dict still holds one tensor
per parameter.
- Note [Combined private formats]: parameters stored in a private NPU format
  (a FRACTAL_Z convolution weight, an NC1HWC0 batch-norm parameter) cannot
  be viewed into a flat ND buffer, so each format gets its own flat buffer
  holding the parameters' storages back to back (pads included), and every
  parameter, gradient and state tensor becomes a storage that aliases its
  slice and keeps the parameter's format descriptor
  (_C._npu_aliasStorageLike). The Apply* kernels are elementwise,
  so one launch updates the whole buffer, pads included (zero pads stay
  zero). Optimizers whose step takes norms (LAMB's trust ratio) keep such
  parameters in their own storage and step them one kernel each, so that
  pads never enter a norm; so do parameters that are a view of a larger
  storage.
- zero_grad() zeros the gradient buffers in place (set_to_none is ignored, it
  would break the views). A parameter that received no gradient steps with a
  zero gradient, where torch.optim would skip it.
- Whatever broke a view since the last step (a .grad replaced, a loaded
  state_dict, .data reassigned) is copied back into the buffer at the next
  step, so results stay correct; only the speed depends on the views.
"""
import torch

from torch_npu import _C
from torch_npu._formats import get_npu_format

_BASE_FORMATS = (0, 1, 2)  # NCHW, NHWC, ND (torch_npu/_formats.py, docs/formats.md)


class Combined:
    """One flat buffer of parameters (and their grads and state) of one dtype on one device, in base formats
    (flat views) or in one private format (storage aliases, Note [Combined private formats])."""

    def __init__(self, params, state, state_names):
        self.params = params
        self.state_names = state_names
        ref = params[0]
        self.private = get_npu_format(ref) not in _BASE_FORMATS
        sizes = [_C._npu_storageNumel(p.data) if self.private else p.numel() for p in params]
        numel = sum(sizes)
        self.param = torch.empty(numel, dtype=ref.dtype, device=ref.device)
        self.grad = torch.zeros(numel, dtype=ref.dtype, device=ref.device)
        self.states = {name: torch.zeros(numel, dtype=ref.dtype, device=ref.device) for name in state_names}
        self.slices = []
        offset = 0
        for n in sizes:
            self.slices.append((offset, n))
            offset += n
        templates = [p.data for p in params]  # the layouts the views take (private formats keep theirs)
        self.param_views = [self._make_view(self.param, i, t) for i, t in enumerate(templates)]
        self.grad_views = [self._make_view(self.grad, i, t) for i, t in enumerate(templates)]
        self.state_views = {name: [self._make_view(flat, i, t) for i, t in enumerate(templates)]
                            for name, flat in self.states.items()}
        self.rebind(state, force=True)

    def _make_view(self, flat, index, template):
        offset, n = self.slices[index]
        if self.private:
            return _C._npu_aliasStorageLike(flat, offset, template)
        return flat[offset:offset + n].view_as(template)

    @staticmethod
    def _is_view(t, view):
        return t is not None and t.data_ptr() == view.data_ptr() and t.shape == view.shape

    def rebind(self, state, force=False):
        """Makes every parameter, grad and state tensor a view of the buffers again (copying in what changed)."""
        with torch.no_grad():
            for i, p in enumerate(self.params):
                view = self.param_views[i]
                if force or not self._is_view(p.data, view):
                    view.copy_(p.data)
                    p.data = view
                gview = self.grad_views[i]
                if not self._is_view(p.grad, gview):
                    if p.grad is None:
                        gview.zero_()
                    else:
                        gview.copy_(p.grad)
                    p.grad = gview
                entry = state[p]
                for name in self.state_names:
                    sview = self.state_views[name][i]
                    if not self._is_view(entry.get(name), sview):
                        if entry.get(name) is None:
                            sview.zero_()
                        else:
                            sview.copy_(entry[name])
                        entry[name] = sview

    def zero_grad(self):
        self.grad.zero_()


def _is_whole_storage(t):
    """t is exactly its storage's logical tensor (what a storage alias can stand for)."""
    desc = _C._npu_storageDesc(t)
    return t.storage_offset() == 0 and t.is_contiguous() and list(desc["base_sizes"]) == list(t.shape)


def split_for_combining(params, combine_private=True):
    """(lists of combinable params grouped by device, dtype and format, params stepped one by one)."""
    groups, single = {}, []
    for p in params:
        if not p.requires_grad:
            continue
        if p.device.type != "npu":
            raise ValueError(f"torch_npu.optim's fused optimizers step NPU parameters, got one on {p.device}; "
                             "call model.npu() before creating the optimizer")
        fmt = get_npu_format(p)
        if fmt in _BASE_FORMATS:
            groups.setdefault((p.device, p.dtype, "base"), []).append(p)
        elif combine_private and _is_whole_storage(p.data):
            groups.setdefault((p.device, p.dtype, fmt), []).append(p)
        else:
            single.append(p)
    return list(groups.values()), single


def check_adam_hyperparameters(lr, eps, betas):
    """torch.optim.Adam's checks of lr, eps and betas (ValueError naming the bad value)."""
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0 or not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameters: {betas}")


@torch.no_grad()
def clip_buffers_(grads, max_norm, norm_type=2.0):
    """Scales `grads` in place so that their joint norm is at most max_norm (clip_grad_norm_'s rule:
    coefficient max_norm / (norm + 1e-6), applied when below 1). Returns the joint norm."""
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return torch.tensor(0.0)
    if norm_type == float("inf"):
        norms = [g.detach().abs().max().float() for g in grads]
        total = norms[0] if len(norms) == 1 else torch.stack(norms).max()
    else:
        total = torch.linalg.vector_norm(
            torch.stack([torch.linalg.vector_norm(g.detach(), norm_type).float() for g in grads]), norm_type)
    clip = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip.to(g.dtype))
    return total


class CombinedOptimizer(torch.optim.Optimizer):
    """Base of the fused optimizers: combines lazily, zero_grad on the buffers, steps per buffer."""

    state_names = ()
    # Whether private-format parameters share per-format buffers (Note [Combined private formats]); False
    # for optimizers whose step takes norms over a parameter.
    combines_private_formats = True

    def __init__(self, params, defaults):
        super().__init__(params, defaults)
        self._combined = None

    def _ensure_combined(self):
        if self._combined is None:
            self._combined = []
            for group in self.param_groups:
                buffers, single = split_for_combining(group["params"], self.combines_private_formats)
                self._combined.append(([Combined(b, self.state, self.state_names) for b in buffers], single))
        else:
            for buffers, _ in self._combined:
                for c in buffers:
                    c.rebind(self.state)

    def zero_grad(self, set_to_none=False):
        if self._combined is None:
            return super().zero_grad(set_to_none)
        for buffers, single in self._combined:
            for c in buffers:
                c.zero_grad()
            for p in single:
                if p.grad is not None:
                    p.grad.zero_()

    @torch.no_grad()
    def clip_grad_norm_fused_(self, max_norm, norm_type=2.0):
        """torch.nn.utils.clip_grad_norm_ over this optimizer's parameters, one norm and one scaling per
        combined buffer instead of per tensor. Returns the total norm (a 0-d NPU tensor)."""
        self._ensure_combined()
        grads = [c.grad for buffers, _ in self._combined for c in buffers]
        grads += [p.grad for _, single in self._combined for p in single if p.grad is not None]
        return clip_buffers_(grads, max_norm, norm_type)

    def _single_state(self, p):
        entry = self.state[p]
        for name in self.state_names:
            if name not in entry:
                entry[name] = torch.zeros_like(p)
        if p.grad is None:
            p.grad = torch.zeros_like(p)
        return entry

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self._ensure_combined()
        for group, (buffers, single) in zip(self.param_groups, self._combined):
            single_states = [self._single_state(p) for p in single]
            self._begin_group(group, [c.grad for c in buffers] + [p.grad for p in single])
            for c in buffers:
                self._step_buffer(group, c.param, c.grad, c.states, [n for _, n in c.slices])
            for p, states in zip(single, single_states):
                self._step_buffer(group, p.data, p.grad, states, [])
        return loss

    counts_steps = False  # torch.optim keeps state["step"] per parameter (Adam, RMSprop, Adadelta, ...)

    def _begin_group(self, group, grads):
        """Per-step bookkeeping of a group (the step count of the optimizers that keep one); `grads` are the
        group's gradient buffers, combined and single."""
        if not self.counts_steps:
            return
        if "_step" not in group:  # a state_dict of the torch.optim counterpart keeps the count per parameter
            steps = [float(self.state[p]["step"]) for p in group["params"] if "step" in self.state[p]]
            group["_step"] = int(max(steps)) if steps else 0
        group["_step"] += 1
        for p in group["params"]:  # torch.optim's per-parameter step count, for state_dict compatibility
            if p.requires_grad:
                self.state[p]["step"] = torch.tensor(float(group["_step"]))

    def _step_buffer(self, group, param, grad, states, segments):
        """One step over a buffer: a combined one (`segments` lists its parameters' element counts) or a
        single parameter kept in its own storage (`segments` is empty)."""
        raise NotImplementedError
