"""Injected device faults (torch.npu.inject_fault; Note [Fault injection]): each surfaces as a
Python exception naming the fault and the task, and the device, its streams and the caching
allocator stay usable afterwards; a hung task fails at the op execute timeout; an interrupted
checkpoint never replaces the previous one, and a damaged one is refused on load."""
import io
import os
import threading
import time
import zipfile

import pytest
import torch

NPU = torch.device("npu:0")


@pytest.fixture(autouse=True)
def no_faults_left():
    yield
    torch.npu.clear_faults()
    torch.npu.synchronize()


def test_an_op_that_faults_on_the_device_raises_at_synchronize_and_the_device_recovers():
    a, b = torch.randn(8, 5), torch.randn(5, 3)
    x, y = a.to(NPU), b.to(NPU)
    with torch.npu.injected_faults("task:MatMul"):
        out = torch.mm(x, y)
        with pytest.raises(RuntimeError, match=r"op 'MatMul' failed on device 0.*injected fault: task 'MatMul'"):
            torch.npu.synchronize()
    torch.testing.assert_close(torch.mm(x, y).cpu(), a @ b)  # the same stream runs the next MatMul
    torch.testing.assert_close((x * 2).cpu(), a * 2)
    del out


def test_the_nth_task_faults_not_the_ones_before():
    x = torch.ones(4, device=NPU)
    torch.npu.inject_fault("task:Add:3")
    first, second = x + 1, x + 2
    torch.npu.synchronize()  # the first two Adds ran
    assert first.cpu().tolist() == [2.0] * 4 and second.cpu().tolist() == [3.0] * 4
    third = x + 3
    with pytest.raises(RuntimeError, match="injected fault: task 'Add'"):
        torch.npu.synchronize()
    assert (x + 3).cpu().tolist() == [4.0] * 4  # the rule expired
    del third


def test_a_failing_device_to_host_copy_raises_and_loses_nothing():
    values = torch.randn(1000)
    x = values.to(NPU)
    with torch.npu.injected_faults("task:MemcpyD2H"):
        with pytest.raises(RuntimeError, match="injected fault: task 'MemcpyD2H'"):
            x.cpu()
    torch.testing.assert_close(x.cpu(), values)  # the device copy is intact; the next copy works


def test_a_failing_host_to_device_copy_raises():
    with torch.npu.injected_faults("task:MemcpyH2D"):
        with pytest.raises(RuntimeError, match="injected fault: task 'MemcpyH2D'"):
            torch.arange(64.0).to(NPU)
            torch.npu.synchronize()
    assert torch.arange(64.0).to(NPU).sum().item() == sum(range(64))


def test_a_hung_op_fails_at_the_op_execute_timeout_and_the_device_goes_on():
    a, b = torch.randn(64, 32), torch.randn(32, 16)
    an, bn = a.to(NPU), b.to(NPU)
    torch.npu.set_op_execute_timeout(0.3)
    try:
        with torch.npu.injected_faults("hang:MatMul"):
            start = time.monotonic()
            y = an @ bn
            z = an.sum()  # queued behind the hung MatMul
            with pytest.raises(RuntimeError, match="injected hang: task 'MatMul' did not finish within the op "
                                                   "execute timeout of 300 ms"):
                torch.npu.synchronize()
            assert time.monotonic() - start >= 0.3  # a lower bound: the hang lasts the timeout
    finally:
        torch.npu.set_op_execute_timeout(0)
    torch.testing.assert_close(z.cpu(), a.sum())  # the op behind the hung one ran
    torch.testing.assert_close((an @ bn).cpu(), a @ b, rtol=1e-3, atol=1e-3)  # the device works
    assert torch.npu.hung_tasks() == 0
    del y


def test_clear_faults_releases_a_hung_op():
    x = torch.randn(100, device=NPU)
    torch.npu.inject_fault("hang:Add")  # the default timeout (68 s): only clear_faults ends it in time
    y = x + 1

    def release():
        deadline = time.monotonic() + 30
        while torch.npu.hung_tasks() == 0 and time.monotonic() < deadline:  # clear only once it hangs
            time.sleep(0.001)
        torch.npu.clear_faults()

    releaser = threading.Thread(target=release)
    releaser.start()
    with pytest.raises(RuntimeError, match="task 'Add' hung on the device until aclsimClearFaults released it"):
        torch.npu.synchronize()
    releaser.join()
    assert (x + 1).cpu().tolist() == (x.cpu() + 1).tolist()
    del y


def test_bad_op_execute_timeouts_say_what_is_accepted():
    for bad in (-1, "3", True, 1e12):
        with pytest.raises(ValueError, match="between 0 \\(the default, 68 s\\) and 4294967"):
            torch.npu.set_op_execute_timeout(bad)


def test_hbm_exhausted_mid_step_raises_out_of_memory_and_the_allocator_recovers():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).to(NPU)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(batch):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(torch.randn(batch, 64, device=NPU)),
                                                 torch.randint(0, 10, (batch,), device=NPU))
        loss.backward()
        opt.step()
        return loss.item()

    step(8)
    torch.npu.empty_cache()  # whatever earlier tests cached: the big step must ask the device
    allocated = torch.npu.memory_allocated
    before = allocated()
    with torch.npu.injected_faults("malloc"):
        with pytest.raises(RuntimeError, match=r"NPU out of memory. Tried to allocate "
                                               r".*The device said: .*injected fault: HBM exhausted"):
            step(65536)  # 64 MiB activations: no cached block can hold them, every new segment is refused
    opt.zero_grad(set_to_none=True)
    torch.npu.synchronize()
    assert allocated() <= before + 65536 * 64 * 4 * 4  # nothing leaked beyond a step's inputs
    assert step(65536) > 0  # the same step now succeeds


def test_a_checkpoint_interrupted_by_a_fault_leaves_the_previous_one_whole(tmp_path):
    path = tmp_path / "model.pt"
    weights = {"w": torch.randn(300, 7).to(NPU), "b": torch.randn(7).to(NPU)}
    torch.save(weights, path)
    size = path.stat().st_size
    newer = {k: v * 10 for k, v in weights.items()}
    with torch.npu.injected_faults("task:MemcpyD2H:2"):  # the second storage's copy fails mid-write
        with pytest.raises(RuntimeError, match="injected fault: task 'MemcpyD2H'"):
            torch.save(newer, path)
    assert path.stat().st_size == size
    loaded = torch.load(path)
    for k in weights:
        torch.testing.assert_close(loaded[k].cpu(), weights[k].cpu())
    assert sorted(os.listdir(tmp_path)) == ["model.pt"]  # no partial file left behind
    torch.save(newer, path)  # and a save that is not interrupted replaces it
    torch.testing.assert_close(torch.load(path)["b"].cpu(), newer["b"].cpu())


def _flip_a_byte_of_a_storage(path):
    """Flips one byte inside the first tensor storage record of the zip checkpoint at `path`."""
    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if "/data/" in i.filename)
    data = bytearray(path.read_bytes())
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 17] ^= 0x40  # local header, then data
    path.write_bytes(bytes(data))
    return info.filename


def test_a_corrupted_checkpoint_is_refused_naming_the_file_and_record(tmp_path, monkeypatch):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.randn(300, 7).to(NPU)}, path)
    record = _flip_a_byte_of_a_storage(path)
    with pytest.raises(RuntimeError, match=f"checkpoint '{path}' is corrupted: its record '{record}' fails the "
                                           "CRC-32 check"):
        torch.load(path)
    with open(path, "rb") as f, pytest.raises(RuntimeError, match=f"'{record}' fails the CRC-32 check"):
        torch.load(f)
    monkeypatch.setenv("TORCH_NPU_VERIFY_CHECKPOINTS", "0")  # the documented opt-out: torch's own reader, unchecked
    assert torch.load(path)["w"].shape == (300, 7)


def test_a_truncated_checkpoint_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "model.pt"
    torch.save({"w": torch.randn(300, 7).to(NPU)}, path)
    path.write_bytes(path.read_bytes()[:5000])
    with pytest.raises(RuntimeError, match=f"checkpoint '{path}' is truncated or damaged"):
        torch.load(path)
    with open(path, "rb") as f, pytest.raises(RuntimeError, match="is truncated or damaged"):
        torch.load(f)


def test_whole_checkpoints_still_load_in_every_form(tmp_path):
    w = torch.randn(5, 3)
    torch.save({"w": w.to(NPU)}, tmp_path / "zip.pt")
    torch.save({"w": w}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    buf = io.BytesIO()
    torch.save({"w": w.to(NPU)}, buf)
    buf.seek(0)
    for loaded in (torch.load(tmp_path / "zip.pt"), torch.load(str(tmp_path / "legacy.pt")), torch.load(buf)):
        torch.testing.assert_close(loaded["w"].cpu(), w)


def test_saving_to_a_file_object_or_a_device_file_still_works(tmp_path):
    with open(tmp_path / "f.pt", "wb") as f:
        torch.save({"x": torch.ones(3, device=NPU)}, f)
    assert torch.load(tmp_path / "f.pt")["x"].cpu().tolist() == [1.0, 1.0, 1.0]
    torch.save({"x": torch.ones(3, device=NPU)}, "/dev/null")


def test_bad_fault_specs_say_what_is_accepted():
    with pytest.raises(RuntimeError, match=r"fault rule 'task': expected task:<name>\[:<n>\]"):
        torch.npu.inject_fault("task")
    with pytest.raises(RuntimeError, match=r"fault rule 'hang:': expected hang:<name>\[:<n>\]"):
        torch.npu.inject_fault("hang:")
    with pytest.raises(RuntimeError, match=r"fault rule 'explode': unknown kind 'explode'.*malloc\[:<n>\]"):
        torch.npu.inject_fault("task:Add;explode")
    with pytest.raises(RuntimeError, match="'0' is not a count from 1"):
        torch.npu.inject_fault("task:Add:0")
    with pytest.raises(TypeError, match="spec string"):
        torch.npu.inject_fault(3)
    assert (torch.ones(2, device=NPU) + 1).cpu().tolist() == [2.0, 2.0]  # the rejected specs added nothing
