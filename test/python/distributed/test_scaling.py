"""Scaling prediction (torch_npu.tools.scaling, Note [Scaling by replay]): one rank's recorded step,
replayed on a cluster shape, against the simulated step of the real multi-process run of that shape
(torchrun on one server; two torchrun agents as two servers, on this host and in two network
namespaces over TCP)."""
import os
import subprocess

import pytest

from conftest import PYTHON, TEST_DIR
from dist_util import free_port, network_namespaces
from torch_npu.tools import scaling
from torch_npu.tools.scaling.replay import replay

WORKER = os.path.join(TEST_DIR, "dist_workers", "scaling_step.py")
TOLERANCE = 0.05  # the bar; the replay is exact by construction, so any miss is a modelling bug


def _torchrun(out_dir, nproc, nnodes=1, node_rank=0, master_addr="127.0.0.1", port=None, prefix=(), env=None):
    cmd = list(prefix) + [PYTHON, "-m", "torch.distributed.run", "--nnodes", str(nnodes), "--node_rank",
                          str(node_rank), "--nproc_per_node", str(nproc), "--master_addr", master_addr,
                          "--master_port", str(port or free_port()), WORKER, str(out_dir)]
    return subprocess.Popen(cmd, cwd="/tmp", env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(procs, timeout=300):
    for p in procs:
        out, err = p.communicate(timeout=timeout)
        assert p.returncode == 0, f"torchrun failed ({p.returncode}):\n{err[-4000:]}"


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """The worker's recorded step for 1, 2, 4 and 8 ranks on one simulated server."""
    out = tmp_path_factory.mktemp("scaling")
    for n in (1, 2, 4, 8):
        _finish([_torchrun(out, n)])
    return {n: scaling.load(out / f"step_{n}.json") for n in (1, 2, 4, 8)}


def _check(prediction, real, shape):
    error = prediction.step_us / real.span_us() - 1
    assert abs(error) < TOLERANCE, (f"{shape}: predicted {prediction.step_us:.1f} us, the real run simulated "
                                    f"{real.span_us():.1f} us ({error:+.1%})")


def test_prediction_matches_real_runs_on_one_server(traces):
    one = traces[1]
    assert one.ranks == 1
    for n in (2, 4, 8):
        _check(scaling.predict(one, 1, n), traces[n], f"1 server x {n}")
    # The shapes differ for real: the collectives cost something, and more on 8 NPUs of the 910A's two
    # HCCS groups than on 4 of one group.
    steps = {n: scaling.predict(one, 1, n).step_us for n in (2, 4, 8)}
    assert steps[8] > steps[4] and min(steps.values()) > one.span_us()


def test_replay_with_the_recorded_durations_is_the_recorded_step(traces):
    for n, t in traces.items():
        assert replay(t, lambda task: task.duration_us) == pytest.approx(t.span_us(), rel=1e-12), n


def _two_servers_of_two(out, prefix=lambda i: (), addr=lambda i: "127.0.0.1", env=lambda i: {}):
    port = free_port()
    _finish([_torchrun(out, 2, nnodes=2, node_rank=i, master_addr=addr(0), port=port, prefix=prefix(i),
                       env=env(i)) for i in range(2)])
    return scaling.load(out / "step_4.json")


def _check_two_by_two(traces, real):
    prediction = scaling.predict(traces[1], 2, 2)
    _check(prediction, real, "2 servers x 2")
    assert prediction.algorithms == "mesh/H-D_R"  # CANN's default for 2 servers of the 910A
    assert all("mesh/H-D_R:p=4" in t.shapes for t in real.tasks if t.name == "HcclAllReduce")
    # Between servers the RoCE link makes the step slower than four NPUs of one server.
    assert prediction.step_us > scaling.predict(traces[1], 1, 4).step_us


def test_two_servers_of_two_on_this_host(traces, tmp_path):
    _check_two_by_two(traces, _two_servers_of_two(tmp_path))


def test_two_servers_of_two_in_two_network_namespaces_over_tcp(traces, tmp_path):
    with network_namespaces(2) as (ns, ips):
        real = _two_servers_of_two(tmp_path, prefix=lambda i: ["ip", "netns", "exec", ns[i]],
                                   addr=lambda i: ips[i],
                                   env=lambda i: {"HCCL_IF_IP": ips[i], "ASCEND_SIM_HCCL_TRANSPORT": "tcp"})
    _check_two_by_two(traces, real)


def test_cli_prints_every_size_and_algorithm_and_plots_them(traces, tmp_path):
    trace = tmp_path / "step.json"
    traces[1].save(trace)
    html = tmp_path / "report.html"
    r = subprocess.run([PYTHON, "-m", "torch_npu.tools.scaling", str(trace), "--servers", "1,2,8,64", "--html",
                        str(html)], capture_output=True, text=True, timeout=120, cwd="/tmp")
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == 16  # 4 sizes x auto, ring, H-D_R, pipeline
    auto = [row for row in rows if row[2] == "auto"]
    assert [int(row[0]) for row in auto] == [1, 2, 8, 64] and [int(row[1]) for row in auto] == [8, 16, 64, 512]
    efficiency = [float(row[-1].rstrip("%")) for row in auto]
    assert efficiency == sorted(efficiency, reverse=True) and 0 < efficiency[-1] < efficiency[0] <= 100
    ring64 = next(row for row in rows if row[2] == "ring" and row[0] == "64")
    assert float(ring64[4]) > float(auto[-1][4])  # ring's 2(p-1) steps over 64 servers cost more than H-D_R
    page = html.read_text()
    assert page.count("<svg") == 2 and "<polyline" in page and "Weak-scaling efficiency" in page


def test_bad_input_is_reported(tmp_path, traces):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not a scaling trace"):
        scaling.load(bad)
    bad.write_text('{"format": "torch_npu.scaling/1", "soc": "Ascend910A"}')
    with pytest.raises(ValueError, match="a malformed scaling trace"):
        scaling.load(bad)
    with pytest.raises(ValueError, match="algo 'NHR' is not one of"):
        scaling.predict(traces[1], 2, 8, algo="NHR")
    with pytest.raises(ValueError, match="at least one server"):
        scaling.predict(traces[1], 0, 8)
    r = subprocess.run([PYTHON, "-m", "torch_npu.tools.scaling", str(tmp_path / "missing.json")],
                       capture_output=True, text=True, timeout=60, cwd="/tmp")
    assert r.returncode == 2 and "scaling trace" in r.stderr and "cannot be read" in r.stderr
    r = subprocess.run([PYTHON, "-m", "torch_npu.tools.scaling", str(tmp_path / "missing.json"), "--servers", "0"],
                       capture_output=True, text=True, timeout=60, cwd="/tmp")
    assert r.returncode == 2 and "--servers must be integers >= 1" in r.stderr
