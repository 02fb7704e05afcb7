"""Training parity of a model on the NPU with the CPU (shared by the model tests).

Note [Training parity]
The same initial weights train for a few SGD steps on the NPU (fp32, precision
mode must_keep_origin_dtype), on the CPU in fp32 and on the CPU in fp64. At
every step
  * the NPU loss is within `loss_rtol` (1e-4) of the CPU fp32 loss, and
  * the whole gradient (every parameter's .grad, concatenated) of the NPU is
    no further from the fp64 gradient than twice (`grad_factor`) the CPU fp32 gradient is:
        |g_npu - g_64| <= 2 |g_cpu - g_64| + floor
    (Euclidean norms; `floor` = 1e-6 |g_64| absorbs the case where the CPU's
    own error is a handful of ulps, where "twice" would demand bit-exactness).
Dropout is off (its random masks differ between devices by design).
"""
import copy

import torch


def _flat_grad(model):
    return torch.cat([p.grad.detach().reshape(-1).cpu().double() for p in model.parameters() if p.grad is not None])


def _to(value, device, dtype):
    if isinstance(value, torch.Tensor):
        value = value.to(device)
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_to(v, device, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _to(v, device, dtype) for k, v in value.items()}
    return value


def train_parity(model, batches, loss_fn, steps=3, lr=0.05, loss_rtol=1e-4, grad_factor=2):
    """Trains copies of `model` on npu / cpu fp32 / cpu fp64; returns per-step records.

    batches(step) -> (inputs: tuple or dict of forward arguments, target);
    loss_fn(output, target) -> scalar loss.
    """
    # `model` may also be a factory giving the same model each call (modules deepcopy refuses,
    # such as those with weight norm, whose `weight` is a computed, non-leaf attribute).
    copies = [model() for _ in range(3)] if callable(model) and not isinstance(model, torch.nn.Module) else \
        [copy.deepcopy(model) for _ in range(3)]
    runs = {"npu": (copies[0].to("npu"), "npu", torch.float32),
            "cpu": (copies[1], "cpu", torch.float32),
            "f64": (copies[2].double(), "cpu", torch.float64)}
    optimizers = {k: torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9) for k, (m, _, _) in runs.items()}
    records = []
    for step in range(steps):
        inputs, target = batches(step)
        losses, grads = {}, {}
        for key, (m, device, dtype) in runs.items():
            optimizers[key].zero_grad()
            args = _to(inputs, device, dtype)
            out = m(**args) if isinstance(args, dict) else m(*args)
            loss = loss_fn(out, _to(target, device, dtype))
            loss.backward()
            losses[key] = loss.item()
            grads[key] = _flat_grad(m)
            optimizers[key].step()
        ref = grads["f64"]
        npu_err = (grads["npu"] - ref).norm().item()
        cpu_err = (grads["cpu"] - ref).norm().item()
        floor = 1e-6 * ref.norm().item()
        record = {"step": step, "loss_npu": losses["npu"], "loss_cpu": losses["cpu"], "npu_grad_err": npu_err,
                  "cpu_grad_err": cpu_err, "grad_norm": ref.norm().item()}
        records.append(record)
        assert abs(losses["npu"] - losses["cpu"]) <= loss_rtol * abs(losses["cpu"]), record
        assert npu_err <= grad_factor * cpu_err + floor, record
    return records
