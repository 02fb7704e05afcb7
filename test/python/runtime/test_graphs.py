"""NPU graphs (Note [NPU graphs]): torch.npu.NPUGraph / torch.npu.graph / make_graphed_callables over the
simulator's model capture. Replays recompute from the captured tensors, the capture's memory stays the
graph's, and every call that cannot be replayed fails during the capture, naming itself, and spoils it."""
import gc

import pytest
import torch
import torch_npu  # noqa: F401


@pytest.fixture(autouse=True)
def no_graph_memory_left():
    """Graphs held in reference cycles (a graphed module's forward) free their pools only when collected;
    each test leaves the device's memory as it found it, for the suites that run after this one."""
    yield
    gc.collect()
    torch.npu.empty_cache()


def capture(fn, pool=None):
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g, pool=pool):
        out = fn()
    return g, out


def test_replay_recomputes_from_the_static_inputs():
    x = torch.zeros(4, 5, device="npu")
    w = torch.randn(5, 3).npu()
    g, y = capture(lambda: torch.relu(x @ w * 2 + 1))
    assert g.task_count() >= 3  # MatMul, Mul, Add, Relu: kept, not run
    for _ in range(3):
        data = torch.randn(4, 5)
        x.copy_(data.npu())
        g.replay()
        torch.testing.assert_close(y.cpu(), torch.relu(data @ w.cpu() * 2 + 1), rtol=1e-5, atol=1e-5)


def test_captured_work_runs_only_on_replay_and_each_replay_runs_it_again():
    x = torch.zeros(3, device="npu")
    g, _ = capture(lambda: x.add_(1))
    assert x.cpu().tolist() == [0, 0, 0]
    for _ in range(4):
        g.replay()
    assert x.cpu().tolist() == [4, 4, 4]
    g.replay()  # and on the default stream, after eager work there
    x.mul_(10)
    assert x.cpu().tolist() == [50, 50, 50]


def test_is_current_stream_capturing():
    assert not torch.npu.is_current_stream_capturing()
    g = torch.npu.NPUGraph()
    with torch.npu.graph(g):
        assert torch.npu.is_current_stream_capturing()
        torch.ones(2, device="npu").add_(1)
    assert not torch.npu.is_current_stream_capturing()


def test_the_capture_memory_stays_the_graphs_until_reset():
    x = torch.randn(256, 256).npu()
    seen = {}

    def body():
        t = x * 2  # a temporary freed inside the capture
        seen["t"] = t.data_ptr()
        return t + 1

    torch.npu.empty_cache()
    before = torch.npu.memory_reserved()
    g, y = capture(body)
    assert torch.npu.memory_reserved() > before  # the graph's own pool
    with torch.npu.stream(torch.npu.graph.default_capture_stream):  # eager, same stream and size as the temporary
        z = torch.full((256, 256), 7.0, device="npu")
    assert z.data_ptr() != seen["t"]  # not given the graph's memory
    torch.npu.synchronize()
    g.replay()
    torch.testing.assert_close(y.cpu(), x.cpu() * 2 + 1)
    assert torch.all(z.cpu() == 7.0)
    del y, z
    g.reset()
    torch.npu.empty_cache()
    assert torch.npu.memory_reserved() == before


def test_graphs_can_share_a_pool():
    x = torch.randn(64, 64).npu()
    g1, y1 = capture(lambda: x + 1)
    g2, y2 = capture(lambda: y1 * 3, pool=g1.pool())
    handle = torch.npu.graph_pool_handle()
    g3, y3 = capture(lambda: y2 - 1, pool=handle)
    g4, y4 = capture(lambda: y3 / 2, pool=handle)
    for g in (g1, g2, g3, g4):
        g.replay()
    torch.testing.assert_close(y4.cpu(), ((x.cpu() + 1) * 3 - 1) / 2)
    with pytest.raises(RuntimeError, match="pool must be"):
        torch.npu.NPUGraph().capture_begin(pool=(1, 2))


FORBIDDEN = {
    "synchronize": (lambda x: torch.npu.synchronize(), "aclrtSynchronizeDevice"),
    "stream synchronize": (lambda x: torch.npu.current_stream().synchronize(), "aclrtSynchronizeStream"),
    "item": (lambda x: x.sum().item(), "A copy between host and NPU memory"),
    "to cpu": (lambda x: x.cpu(), "A copy between host and NPU memory"),
    "host tensor": (lambda x: torch.tensor([1.0, 2.0], device="npu"), "A copy between host and NPU memory"),
    "event": (lambda x: torch.npu.Event().record(), "Recording an NPU event"),
    "random": (lambda x: torch.rand(3, device="npu"), "A random op"),
    "dropout": (lambda x: torch.nn.functional.dropout(x, 0.5), "A random op"),
}


@pytest.mark.parametrize("name", sorted(FORBIDDEN))
def test_each_forbidden_call_raises_during_the_capture_and_spoils_it(name):
    call, message = FORBIDDEN[name]
    x = torch.ones(8, device="npu")
    g = torch.npu.NPUGraph()
    with pytest.raises(RuntimeError, match=message):
        with torch.npu.graph(g):
            x.mul_(2)
            call(x)
    assert not torch.npu.is_current_stream_capturing()
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    # A caught error still spoils the capture: its end fails, naming what was refused.
    g = torch.npu.NPUGraph()
    s = torch.npu.Stream()
    with torch.npu.stream(s):
        g.capture_begin()
        try:
            call(x)
        except RuntimeError:
            pass
        with pytest.raises(RuntimeError, match="capture"):
            g.capture_end()
    # The device works as before, and x was never doubled (nothing captured ran).
    assert x.cpu().tolist() == [1.0] * 8
    assert (x + 1).cpu().tolist() == [2.0] * 8


def test_misuse_raises_clear_errors():
    g = torch.npu.NPUGraph()
    with pytest.raises(RuntimeError, match="non-default stream"):
        g.capture_begin()
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    with pytest.raises(RuntimeError, match="without a capture_begin"):
        g.capture_end()
    x = torch.ones(2, device="npu")
    g, _ = capture(lambda: x.add_(1))
    with pytest.raises(RuntimeError, match="already owns a captured graph"):
        with torch.npu.graph(g):
            pass
    g.reset()
    g.reset()  # twice is fine
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    s1, s2 = torch.npu.Stream(), torch.npu.Stream()
    assert s1 != s2
    h = torch.npu.NPUGraph()
    with torch.npu.stream(s1):
        h.capture_begin()
        x.add_(1)
    with torch.npu.stream(s2):
        with pytest.raises(RuntimeError, match="stream the capture began on"):
            h.capture_end()
    with torch.npu.stream(s1):
        h.capture_end()
    h.replay()
    assert x.cpu().tolist() == [2.0, 2.0]
    with pytest.warns(UserWarning, match="graph is empty"):
        capture(lambda: None)


def test_a_replay_is_one_launch_with_its_kernels_in_the_op_records():
    x = torch.randn(32, 32).npu()
    g, _ = capture(lambda: torch.tanh(x @ x))
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        g.replay()
        g.replay()
        torch.npu.synchronize()
    names = [r.op_type for r in rec.records]
    assert names.count("ModelExecute") == 2, names
    first = names.index("ModelExecute")
    kernels, launch = rec.records[:first], rec.records[first]
    assert "Tanh" in names[:first] and len(kernels) == g.task_count(), names
    assert names[first + 1:] == names[:first + 1]  # the second replay runs the same kernels
    assert launch.duration_us == 0  # a marker: the kernels carry the time, counted once in any sum
    assert kernels[0].start_us == pytest.approx(launch.start_us)
    assert kernels[-1].start_us + kernels[-1].duration_us <= rec.records[first + 1].start_us + 1e-9


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_make_graphed_callables_trains_like_the_eager_module():
    torch.manual_seed(0)
    eager = MLP()
    graphed = MLP()
    graphed.load_state_dict(eager.state_dict())
    eager, graphed = eager.npu(), graphed.npu()
    sample = torch.randn(8, 16, device="npu", requires_grad=False)
    graphed = torch.npu.make_graphed_callables(graphed, (sample,))
    opt_e = torch.optim.SGD(eager.parameters(), lr=0.1)
    opt_g = torch.optim.SGD(graphed.parameters(), lr=0.1)
    for step in range(3):
        data = torch.randn(8, 16)
        target = torch.randn(8, 4)
        losses = []
        for model, opt in ((eager, opt_e), (graphed, opt_g)):
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(model(data.npu()), target.npu())
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-5), step
    for pe, pg in zip(eager.parameters(), graphed.parameters()):
        torch.testing.assert_close(pe.cpu(), pg.cpu(), rtol=1e-5, atol=1e-6)
    graphed.eval()  # not the mode it was captured in: the eager forward
    torch.testing.assert_close(graphed(sample).cpu(), eager(sample).cpu(), rtol=1e-5, atol=1e-6)


def test_make_graphed_callables_of_functions_and_its_checks():
    w = torch.randn(6, 6, device="npu", requires_grad=True)

    def f(x):
        return (x @ w).sin()

    x = torch.randn(4, 6, device="npu", requires_grad=True)
    gf = torch.npu.make_graphed_callables(f, (x,), num_warmup_iters=1)
    x2 = torch.randn(4, 6).npu().requires_grad_()
    out = gf(x2)
    out.sum().backward()
    ref_x = x2.detach().cpu().requires_grad_()
    (ref_x @ w.detach().cpu()).sin().sum().backward()
    torch.testing.assert_close(out.detach().cpu(), (ref_x @ w.detach().cpu()).sin().detach(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(x2.grad.cpu(), ref_x.grad, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="tuple of tensors"):
        torch.npu.make_graphed_callables(f, (3,))
    m = MLP().npu()
    m.register_forward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="no hooks"):
        torch.npu.make_graphed_callables(m, (torch.randn(2, 16, device="npu"),))


def test_a_backward_runs_on_the_stream_of_its_caller():
    # Note [Streams of the autograd engine's NPU threads]
    s = torch.npu.Stream()
    w = torch.randn(16, 16, device="npu", requires_grad=True)
    x = torch.randn(8, 16, device="npu")
    torch.npu.synchronize()
    with torch.npu.op_records() as rec:
        with torch.npu.stream(s):
            loss = (x @ w).tanh().sum()
            loss.backward()
            torch.npu.synchronize()
    streams = {r.stream_id for r in rec.records}  # the simulator's stream numbers
    assert len(streams) == 1 and 0 not in streams, [(r.op_type, r.stream_id) for r in rec.records]
    assert "TanhGrad" in [r.op_type for r in rec.records]
    w2 = w.detach().cpu().requires_grad_()
    (x.cpu() @ w2).tanh().sum().backward()
    torch.testing.assert_close(w.grad.cpu(), w2.grad, rtol=1e-5, atol=1e-5)


def test_a_block_another_stream_used_freed_during_a_capture_waits_for_its_end():
    g = torch.npu.NPUGraph()
    ctx = torch.npu.graph(g)
    t = torch.ones(1000, device="npu")
    t.record_stream(ctx.capture_stream)  # its free records an event on the capturing stream: after the capture
    x = torch.ones(8, device="npu")
    with ctx:
        y = x + 1
        del t
    g.replay()
    assert y.cpu().tolist() == [2.0] * 8
    u = torch.ones(1000, device="npu")  # the allocator goes on as before
    assert u.sum().item() == 1000


def test_two_captures_sharing_a_pool_at_once_keep_their_memory():
    s1, s2 = torch.npu.Stream(), torch.npu.Stream()
    x = torch.ones(100, device="npu")
    torch.npu.synchronize()
    g1, g2 = torch.npu.NPUGraph(), torch.npu.NPUGraph()
    seen = {}
    with torch.npu.stream(s1):
        g1.capture_begin()
    with torch.npu.stream(s2):
        g2.capture_begin(pool=g1.pool())
    with torch.npu.stream(s1):
        y1 = x * 2
        g1.capture_end()  # g2 still captures, from the same pool
    with torch.npu.stream(s2):
        t = x * 3
        seen["t"] = t.data_ptr()
        y2 = t + 1
        del t
        g2.capture_end()
        z = torch.empty(100, device="npu")  # eager on g2's stream: not g2's freed temporary
        assert z.data_ptr() != seen["t"]
    g1.replay()
    g2.replay()
    assert y1.cpu().tolist() == [2.0] * 100 and y2.cpu().tolist() == [4.0] * 100


def test_an_error_in_a_graph_block_after_a_stream_switch_still_ends_the_capture():
    g = torch.npu.NPUGraph()
    with pytest.raises(ValueError, match="boom"):
        with torch.npu.graph(g):
            torch.ones(2, device="npu").add_(1)
            torch.npu.set_stream(torch.npu.Stream())
            raise ValueError("boom")
    assert not torch.npu.is_current_stream_capturing()
    torch.npu.synchronize()  # no capture is left under way
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
