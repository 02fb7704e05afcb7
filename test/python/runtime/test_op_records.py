"""Per-op records (torch.npu.op_records) and the op "compilation" cache."""
import torch

from conftest import run_python


def test_records_describe_each_op():
    a, b = torch.randn(64, 128).npu(), torch.randn(128, 32).npu()
    with torch.npu.op_records() as rec:
        (a @ b).relu()
    ops = [r.op_type for r in rec.records]
    assert "MatMul" in ops and "Relu" in ops
    mm = next(r for r in rec.records if r.op_type == "MatMul")
    assert mm.core_type == "cube" and mm.duration_us > 0 and mm.flops == 2 * 64 * 128 * 32
    assert "[64,128]" in mm.shapes and "[64,32]" in mm.shapes
    assert 0 <= mm.cube_ratio <= 1 and max(mm.cube_ratio, mm.vector_ratio, mm.mte_ratio) == 1.0
    relu = next(r for r in rec.records if r.op_type == "Relu")
    assert relu.core_type == "vector" and relu.bytes >= 2 * 64 * 32 * 4
    rows = rec.summary()
    assert rows[0][2] >= rows[-1][2]  # sorted by total simulated time
    assert "MatMul" in rec.table()


def test_records_are_off_outside_the_context():
    with torch.npu.op_records():
        pass
    torch.ones(3).npu().add_(1)
    assert torch.npu.get_op_records() == []


def test_compile_counts_new_shapes_only():
    x = torch.randn(7, 11).npu()
    torch.npu.synchronize()
    before = torch.npu.compile_count()
    (x * 3).cpu()
    after_first = torch.npu.compile_count()
    assert after_first > before
    (x * 3).cpu()
    assert torch.npu.compile_count() == after_first   # same op, dtypes, shapes: cached
    (torch.randn(7, 12).npu() * 3).cpu()
    assert torch.npu.compile_count() > after_first     # a new shape compiles again


def test_compile_logs_at_info_level():
    result = run_python("""
        import torch, torch_npu
        (torch.ones(5, 3).npu() * 2).cpu()
    """, env={"ASCEND_GLOBAL_LOG_LEVEL": "1", "ASCEND_SLOG_PRINT_TO_STDOUT": "1"})
    assert result.returncode == 0, result.stderr
    assert "To compile op" in result.stdout and "OpType: Mul" in result.stdout


def test_compiles_persist_in_the_compiler_cache_dir(tmp_path):
    """Note [Persistent compile cache]: a second process loads what the first compiled."""
    script = f"""
        import torch, torch_npu
        torch.npu.set_option({{"ACL_OP_COMPILER_CACHE_MODE": @MODE@, "ACL_OP_COMPILER_CACHE_DIR": {str(tmp_path)!r}}})
        x = torch.randn(13, 17).npu()
        y = torch.nn.functional.gelu(x @ x.t() * 3).sum()
        torch.npu.synchronize()
        print("COMPILES", torch.npu.compile_count())
    """

    def compiles(mode):
        result = run_python(script.replace("@MODE@", repr(mode)))
        assert result.returncode == 0, result.stderr
        return int(result.stdout.split("COMPILES")[1])

    first = compiles("enable")
    assert first > 0 and list((tmp_path / "kernel_meta").glob("*.json"))
    assert compiles("enable") == 0      # everything loads from the disk cache
    assert compiles("force") == first   # force recompiles (and rewrites)
    assert compiles("disable") == first
    assert compiles("enable") == 0
