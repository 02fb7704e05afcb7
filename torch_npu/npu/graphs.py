"""NPU graphs: capture a region of NPU work once, replay it without host dispatch.

The interface is torch.cuda's (``torch.cuda.CUDAGraph``, ``torch.cuda.graph``,
``torch.cuda.make_graphed_callables``, ``graph_pool_handle``, ``is_current_stream_capturing``),
as torch_npu names it under ``torch.npu``. The graph is the simulator's model capture
(Note [NPU graphs] in csrc/core/NPUGraph.h; Note [Model capture] in the simulator).

Static-buffer semantics are CUDA's: a replay reads the tensors the capture read and writes the
tensors it wrote, so new inputs are copied into the captured input tensors and results are read
from the captured outputs. What cannot be replayed is refused during the capture, and the capture
is then invalid: synchronizing, copying between host and NPU (``.item()``, ``.cpu()``,
``torch.tensor(..., device="npu")``), events, collectives and random ops.
"""
import gc
import warnings

import torch

from torch_npu import _C

__all__ = ["NPUGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]


def is_current_stream_capturing():
    """True while an NPU graph capture is under way on the current stream."""
    return _C._npu_isCurrentStreamCapturing()


def graph_pool_handle():
    """A token naming a graph memory pool, for graphs that should share memory (``pool=``)."""
    return _C._npu_graphPoolHandle()


class NPUGraph(_C._NPUGraph):
    """A captured sequence of NPU work (torch.cuda.CUDAGraph's interface).

    ``capture_begin(pool=None)`` / ``capture_end()`` bracket the work on the current stream, which
    must not be the default one; ``replay()`` runs it again on the current stream; ``reset()``
    drops it and lets its memory pool go; ``pool()`` names the pool for another capture to share.
    """

    def capture_begin(self, pool=None):
        if pool is None:
            super().capture_begin()
        else:
            super().capture_begin(tuple(pool))

    def capture_end(self):
        super().capture_end()
        if super().task_count() == 0:
            warnings.warn("The NPU graph is empty: no device work was launched on the capturing stream during the "
                          "capture (was the work run on another stream?)")

    def task_count(self):
        """How many device tasks (ops, device copies, memsets) the captured graph holds."""
        return super().task_count()


class graph:
    """Captures the NPU work of a ``with`` block into ``npu_graph`` (torch.cuda.graph's interface).

    The block runs on ``stream``, or on a side stream shared by all captures that name none. Before
    the capture the device is synchronized and the cache emptied, so the graph's pool starts from
    free memory. If the block raises, the capture is ended and dropped and the block's own
    exception propagates.
    """

    default_capture_stream = None

    def __init__(self, npu_graph, pool=None, stream=None):
        if stream is None:
            if graph.default_capture_stream is None:
                graph.default_capture_stream = torch.npu.Stream()
            stream = graph.default_capture_stream
        self.npu_graph = npu_graph
        self.pool = pool
        self.capture_stream = stream
        self._stream_ctx = torch.npu.stream(stream)

    def __enter__(self):
        torch.npu.synchronize()
        gc.collect()
        torch.npu.empty_cache()
        self._stream_ctx.__enter__()
        try:
            self.npu_graph.capture_begin(self.pool)
        except BaseException:
            self._stream_ctx.__exit__(None, None, None)
            raise
        return self.npu_graph

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            if exc_type is None:
                self.npu_graph.capture_end()
            else:  # the block's error is the one to report; the capture is ended and dropped
                self.npu_graph._abort_capture()
        finally:
            self._stream_ctx.__exit__(exc_type, exc_value, traceback)
        return False


def _as_tuple(outputs):
    return (outputs,) if isinstance(outputs, torch.Tensor) else tuple(outputs)


def _check_graphable(fn, args):
    if isinstance(fn, torch.nn.Module):
        if fn._forward_hooks or fn._forward_pre_hooks or fn._backward_hooks:
            raise RuntimeError("make_graphed_callables: a module must have no hooks when it is graphed "
                               "(hooks registered afterwards are allowed)")
        if any(b.requires_grad for b in fn.buffers()):
            raise RuntimeError("make_graphed_callables: only a module's parameters may require grad, not its buffers")
    if not all(isinstance(a, torch.Tensor) for a in args):
        raise TypeError("make_graphed_callables: sample_args must be a tuple of tensors for each callable "
                        "(other types and keyword arguments are not supported)")


class _GraphedCallable:
    """One callable's captured forward and backward, and the autograd function that replays them."""

    def __init__(self, fn, sample_args, pool):
        self.params = tuple(fn.parameters()) if isinstance(fn, torch.nn.Module) else ()
        self.n_user_args = len(sample_args)
        self.inputs = tuple(sample_args) + self.params  # the static input tensors
        self.forward_graph = NPUGraph()
        self.backward_graph = NPUGraph()
        with graph(self.forward_graph, pool=pool):
            outputs = fn(*sample_args)
        self.single_output = isinstance(outputs, torch.Tensor)
        self.outputs = _as_tuple(outputs)

    def capture_backward(self, pool):
        if not all(o.requires_grad for o in self.outputs):
            raise RuntimeError("make_graphed_callables: every tensor output of a graphed callable must require grad")
        self.grad_outputs = tuple(torch.empty_like(o) for o in self.outputs)
        differentiable = tuple(i for i in self.inputs if i.requires_grad)
        with graph(self.backward_graph, pool=pool):
            grads = iter(torch.autograd.grad(self.outputs, differentiable, self.grad_outputs, allow_unused=False))
        self.grad_inputs = tuple(next(grads) if i.requires_grad else None for i in self.inputs)

    def function(self):
        me = self

        class Replayed(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *inputs):
                for static, given in zip(me.inputs[:me.n_user_args], inputs):
                    if static.data_ptr() != given.data_ptr():
                        static.copy_(given)
                me.forward_graph.replay()
                return tuple(o.detach() for o in me.outputs)

            @staticmethod
            @torch.autograd.function.once_differentiable
            def backward(ctx, *grads):
                for static, given in zip(me.grad_outputs, grads):
                    if given is not None and static.data_ptr() != given.data_ptr():
                        static.copy_(given)
                me.backward_graph.replay()
                return tuple(g.detach() if g is not None else None for g in me.grad_inputs)

        def run(*user_args):
            out = Replayed.apply(*(tuple(user_args) + me.params))
            return out[0] if me.single_output else out

        return run


def make_graphed_callables(callables, sample_args, num_warmup_iters=3):
    """Graphed versions of ``callables`` (functions or modules) for the given sample arguments.

    torch.cuda.make_graphed_callables' interface: each callable's forward and backward are captured
    (after ``num_warmup_iters`` eager iterations on a side stream) into two NPU graphs sharing one
    memory pool, and the result replays them inside an autograd function. A module keeps its eager
    forward for the training mode it was not captured in. Arguments must be passed in the order and
    format of ``sample_args``; every tensor output must require grad; autocast needs
    ``cache_enabled=False``.
    """
    if torch.is_autocast_enabled() and torch.is_autocast_cache_enabled():
        raise RuntimeError("make_graphed_callables does not support autocast's cache; use cache_enabled=False")
    single = not isinstance(callables, tuple)
    if single:
        callables, sample_args = (callables,), (sample_args,)
    for fn, args in zip(callables, sample_args):
        _check_graphable(fn, args)
    torch.npu.synchronize()
    with torch.npu.stream(torch.npu.Stream()):
        for fn, args in zip(callables, sample_args):
            params = tuple(fn.parameters()) if isinstance(fn, torch.nn.Module) else ()
            differentiable = tuple(t for t in tuple(args) + params if t.requires_grad)
            for _ in range(num_warmup_iters):
                outputs = _as_tuple(fn(*args))
                torch.autograd.grad(outputs, differentiable, tuple(torch.empty_like(o) for o in outputs),
                                    allow_unused=False)
            del outputs
    torch.npu.synchronize()
    pool = graph_pool_handle()
    graphed = [_GraphedCallable(fn, args, pool) for fn, args in zip(callables, sample_args)]
    for g in reversed(graphed):  # backward graphs in the reverse order, as a backward pass runs them
        g.capture_backward(pool)
    results = []
    for fn, g in zip(callables, graphed):
        run = g.function()
        if isinstance(fn, torch.nn.Module):
            results.append(_graph_module_forward(fn, run))
        else:
            results.append(run)
    return results[0] if single else tuple(results)


def _graph_module_forward(module, run):
    captured_training = module.training
    eager_forward = module.forward

    def forward(*user_args):
        return run(*user_args) if module.training == captured_training else eager_forward(*user_args)

    module.forward = forward
    return module
