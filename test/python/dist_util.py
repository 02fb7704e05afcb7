"""Runs a worker script as N ranks of one torch.distributed job (one process each)."""
import contextlib
import json
import os
import shutil
import socket
import subprocess
import time

import pytest

PYTHON = "/usr/bin/python3"
WORKERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_workers")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RankResult:
    def __init__(self, rank, returncode, stdout, stderr, seconds):
        self.rank, self.returncode, self.stdout, self.stderr, self.seconds = rank, returncode, stdout, stderr, seconds

    def json(self):
        """The last line of stdout that is a JSON object (the worker's report)."""
        for line in reversed(self.stdout.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError(f"rank {self.rank} printed no JSON report:\n{self.stdout}\n{self.stderr[-3000:]}")

    def __repr__(self):
        return (f"rank {self.rank}: exit {self.returncode}\n"
                f"--- stdout\n{self.stdout[-2000:]}\n--- stderr\n{self.stderr[-4000:]}")


def launch(script, world_size, args=(), env=None, per_rank_env=None, timeout=300, prefix=None):
    """Starts `world_size` ranks of dist_workers/<script> and waits for all of them.

    Each rank gets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR=127.0.0.1 and a free
    MASTER_PORT; `per_rank_env(rank)` adds more; `prefix(rank)` is a command
    prefix (e.g. `ip netns exec ns0`). A rank still running after `timeout`
    seconds is killed and reported with returncode None.
    """
    port = free_port()
    procs = []
    start = time.monotonic()
    for rank in range(world_size):
        e = dict(os.environ)
        e.update({"RANK": str(rank), "WORLD_SIZE": str(world_size), "LOCAL_RANK": str(rank),
                  "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
        e.update(env or {})
        if per_rank_env:
            e.update(per_rank_env(rank))
        cmd = (prefix(rank) if prefix else []) + [PYTHON, os.path.join(WORKERS, script), *map(str, args)]
        procs.append(subprocess.Popen(cmd, cwd="/tmp", env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    results = []
    for rank, p in enumerate(procs):
        remaining = max(1.0, timeout - (time.monotonic() - start))
        try:
            out, err = p.communicate(timeout=remaining)
            code = p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            code = None
        results.append(RankResult(rank, code, out, err, time.monotonic() - start))
    return results


def assert_all_ok(results):
    bad = [r for r in results if r.returncode != 0]
    assert not bad, "\n".join(repr(r) for r in bad)


def _netns_available():
    if shutil.which("ip") is None or os.geteuid() != 0:
        return False
    probe = f"npuprobe{os.getpid()}"
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    if ok:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ok


@contextlib.contextmanager
def network_namespaces(count):
    """`count` network namespaces joined by a veth pair: yields
    (names, ips); namespace i has address ips[i] and reaches every other one. Skips the test
    when namespaces cannot be made (needs root with CAP_NET_ADMIN and iproute2)."""
    if count != 2:
        raise ValueError("two namespaces (one veth pair) are supported")
    if not _netns_available():
        pytest.skip("network namespaces cannot be created here (needs root with CAP_NET_ADMIN and iproute2)")
    tag = f"{os.getpid() % 10000}"
    ns = [f"npu{tag}a", f"npu{tag}b"]
    veth = [f"vn{tag}a", f"vn{tag}b"]
    ips = ["10.213.7.1", "10.213.7.2"]
    cmds = [["ip", "netns", "add", ns[0]], ["ip", "netns", "add", ns[1]],
            ["ip", "link", "add", veth[0], "type", "veth", "peer", "name", veth[1]]]
    for i in range(2):
        cmds += [["ip", "link", "set", veth[i], "netns", ns[i]],
                 ["ip", "-n", ns[i], "addr", "add", f"{ips[i]}/24", "dev", veth[i]],
                 ["ip", "-n", ns[i], "link", "set", veth[i], "up"],
                 ["ip", "-n", ns[i], "link", "set", "lo", "up"]]
    try:
        for c in cmds:
            subprocess.run(c, check=True, capture_output=True)
        yield ns, ips
    finally:
        for n in ns:
            subprocess.run(["ip", "netns", "del", n], capture_output=True)
