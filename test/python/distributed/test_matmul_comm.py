"""torch_npu's fused matmul-communication ops (npu_mm_all_reduce_base,
npu_all_gather_base_mm, npu_mm_reduce_scatter_base) across real ranks: the
results of the unfused composition on the NPU and of the CPU, and the pipeline
the profiler shows (Note [Matmul-communication pipelines])."""
import pytest

from dist_util import assert_all_ok, launch

TOL = {"float16": 4e-3, "bfloat16": 3e-2}


@pytest.fixture(scope="module", params=[2, 4])
def reports(request):
    results = launch("matmul_comm.py", request.param, timeout=300)
    assert_all_ok(results)
    return [r.json() for r in results]


def test_every_rank_gets_a_name_of_its_own_communicator(reports):
    names = [r["hcom"] for r in reports]
    assert len(set(names)) == len(names) and all(r["hcom"].endswith(f"_npu{r['rank']}") for r in reports), names


def test_results_equal_the_unfused_composition_and_the_cpu(reports):
    for report in reports:
        for case, res in report["cases"].items():
            dtype = "bfloat16" if "bfloat16" in case else "float16"
            # The fused op runs the same kernels as the composition, on row tiles: the same bits.
            assert res["vs_unfused"] == 0, (report["rank"], case, res)
            assert res["vs_cpu"] <= TOL[dtype], (report["rank"], case, res)


def test_shapes_and_the_gathered_input(reports):
    world = len(reports)
    for report in reports:
        cases = report["cases"]
        assert cases["all_reduce_float16"]["shape"] == [600, 64]
        assert cases["all_reduce_3d_float16"]["shape"] == [3, 200, 64]
        assert cases["all_gather_float16"]["shape"] == [520 * world, 48]
        assert cases["all_gather_float16"]["gathered_shape"] == [520 * world, 256]
        assert cases["all_gather_float16"]["gathered_exact"] and cases["all_gather_bfloat16"]["gathered_exact"]
        assert cases["all_gather_no_output"]["gathered_shape"] == [0]
        assert cases["reduce_scatter_float16"]["shape"] == [528, 40]


def test_profiler_shows_the_all_reduce_tiles_under_the_matmul_tiles(reports):
    for report in reports:
        p = report["pipeline"]
        assert p["matmuls"] == 4 and p["allreduces"] == 4, p  # 1024 rows: 4 tiles of 256
        assert p["allreduce_rows"] != p["matmul_rows"] and p["allreduce_rows"][0].endswith("(communication)"), p
        assert p["overlap_us"] > 0, p
        # The whole product and its tiles are all-reduced by the same algorithm (mesh: one HCCS group), which
        # sums in rank order whatever the cut (Note [Mesh reduction order]): the same bits.
        assert p["vs_unfused"] == 0, p
        # On 4 ranks the mesh all-reduce (three links at once) is short next to the MatMul, and every tile
        # pays its latency again: the pipeline still wins, by less.
        assert p["fused_us"] < (0.9 if len(reports) == 2 else 1.0) * p["unfused_us"], p
        # The all-gather form: the same bits as all_gather + mm, in less simulated time.
        assert p["gather_vs_unfused"] == 0 and p["gather_fused_us"] < 0.95 * p["gather_unfused_us"], p


def test_bad_calls_raise_and_leave_the_group_usable(reports):
    world = len(reports)
    for report in reports:
        assert f"world_size is {world + 1} but the communicator hcom has {world} ranks" in report["wrong_world_size"]
        assert "hcom 'nope' names no live HCCL communicator" in report["unknown_hcom"]
        assert "x1 and x2 must be on one device" in report["cpu_x2"]
        assert "bias must be a Half tensor" in report["bias_dtype"]
        assert f"must be divisible by world_size ({world})" in report["rows_not_divisible"]
        assert report["after"] == [float(world)] * 4
        assert "names no live HCCL communicator" in report["after_destroy"]
