"""Linear algebra from Python: CPU-identical results on the AI CPU kernels, and their costs."""
import pytest
import torch


def test_results_are_the_cpus_including_signs():
    torch.manual_seed(0)
    a = torch.randn(3, 6, 4)
    for cpu, npu in zip(torch.linalg.svd(a, full_matrices=False), torch.linalg.svd(a.npu(), full_matrices=False)):
        torch.testing.assert_close(npu.cpu(), cpu, rtol=1e-5, atol=1e-5)
    for cpu, npu in zip(torch.linalg.qr(a), torch.linalg.qr(a.npu())):
        torch.testing.assert_close(npu.cpu(), cpu, rtol=1e-5, atol=1e-5)
    s = a.mT @ a
    for cpu, npu in zip(torch.linalg.eigh(s), torch.linalg.eigh(s.npu())):
        torch.testing.assert_close(npu.cpu(), cpu, rtol=1e-5, atol=1e-5)


def test_linalg_ops_run_on_the_ai_cpu_and_cost_their_flops():
    small, big = torch.randn(8, 8).npu(), torch.randn(128, 128).npu()
    with torch.npu.op_records() as rec:
        torch.linalg.inv(small)
        torch.linalg.inv(big)
        torch.npu.synchronize()
    inv = [r for r in rec.records if r.op_type == "MatrixInverse"]
    assert len(inv) == 2 and all(r.core_type == "ai_cpu" for r in inv)
    assert inv[1].flops == pytest.approx(8 / 3 * 128 ** 3)
    assert inv[1].duration_us > 10 * inv[0].duration_us  # compute-bound: n^3, not bytes


def test_errors_name_the_batch_element():
    a = torch.stack([torch.eye(3), torch.zeros(3, 3)]).npu()
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 1 is zero"):
        torch.linalg.inv(a)
    with pytest.raises(RuntimeError, match="float32"):
        torch.linalg.cholesky(torch.eye(3).half().npu())
