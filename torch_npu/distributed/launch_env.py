"""Ascend's launch conventions: the rank table file, and which simulated server this process is on.

Note [Rank table and servers]
CANN jobs are often launched without torchrun: every process gets RANK_TABLE_FILE (a JSON file
listing the servers, their devices and the rank of each), RANK_ID, RANK_SIZE and DEVICE_ID.
At `import torch_npu` this module reads them and fills in what torch.distributed's env:// needs
and what the simulator needs to place the rank in the cluster:

    RANK        <- RANK_ID                     LOCAL_RANK <- the device's index in its server
    WORLD_SIZE  <- RANK_SIZE (else the table)  ASCEND_SIM_SERVER_ID <- the server's server_id

Values already in the environment win (RANK, WORLD_SIZE, LOCAL_RANK), except that a DEVICE_ID
or RANK_SIZE that contradicts the table is an error. MASTER_ADDR / MASTER_PORT are the user's,
as with real torch_npu.

Without a rank table, under torchrun (GROUP_RANK set by its agent) the server is "node<GROUP_RANK>":
`torchrun --nnodes 2` on one machine gives two simulated servers whose collectives cross the
simulated RoCE network (Note [Servers] in the simulator's hccl/placement.h).

A rank table that cannot be used is reported when the hccl process group is created (and
`import torch_npu` warns), so that a stale RANK_TABLE_FILE does not break every script.
"""
import os
import warnings
from dataclasses import dataclass
from typing import List, Optional

from torch_npu.utils._json_file import read_json


@dataclass(frozen=True)
class RankEntry:
    rank_id: int
    server_id: str
    server_index: int
    device_id: int
    local_rank: int  # index of the device in its server's list


@dataclass(frozen=True)
class RankTable:
    path: str
    entries: List[RankEntry]  # in rank order
    server_count: int

    def entry(self, rank_id: int) -> RankEntry:
        for e in self.entries:
            if e.rank_id == rank_id:
                return e
        raise ValueError(f"rank table {self.path}: no device has rank_id {rank_id} "
                         f"(ranks 0..{len(self.entries) - 1})")


def _int_field(path, where, obj, key):
    if key not in obj:
        raise ValueError(f"rank table {path}: {where} has no '{key}'")
    try:
        return int(obj[key])
    except (TypeError, ValueError):
        raise ValueError(f"rank table {path}: {where} '{key}' is {obj[key]!r}, not an integer") from None


def load_rank_table(path: str) -> RankTable:
    """Parses and checks a CANN rank table (version 1.0: server_list -> device -> rank_id)."""
    table = read_json(path, "rank table")
    servers = table.get("server_list") if isinstance(table, dict) else None
    if not isinstance(servers, list) or not servers:
        raise ValueError(f"rank table {path}: 'server_list' must be a non-empty list")
    if "server_count" in table and _int_field(path, "the table", table, "server_count") != len(servers):
        raise ValueError(f"rank table {path}: server_count is {table['server_count']} but server_list has "
                         f"{len(servers)} servers")
    entries, seen_servers = [], set()
    for si, server in enumerate(servers):
        where = f"server_list[{si}]"
        server_id = server.get("server_id") if isinstance(server, dict) else None
        if not isinstance(server_id, str) or not server_id or "\n" in server_id:
            raise ValueError(f"rank table {path}: {where} needs a 'server_id' string (got {server_id!r})")
        if server_id in seen_servers:
            raise ValueError(f"rank table {path}: server_id {server_id!r} appears twice")
        seen_servers.add(server_id)
        devices = server.get("device")
        if not isinstance(devices, list) or not devices:
            raise ValueError(f"rank table {path}: {where} ({server_id}) has no 'device' list")
        device_ids = set()
        for di, dev in enumerate(devices):
            dwhere = f"{where}.device[{di}]"
            if not isinstance(dev, dict):
                raise ValueError(f"rank table {path}: {dwhere} must be an object with device_id and rank_id")
            device_id = _int_field(path, dwhere, dev, "device_id")
            if device_id in device_ids:
                raise ValueError(f"rank table {path}: device_id {device_id} appears twice on server {server_id}")
            device_ids.add(device_id)
            entries.append(RankEntry(_int_field(path, dwhere, dev, "rank_id"), server_id, si, device_id, di))
    ranks = sorted(e.rank_id for e in entries)
    if ranks != list(range(len(entries))):
        raise ValueError(f"rank table {path}: rank_id values must be 0..{len(entries) - 1}, each once "
                         f"(got {ranks})")
    return RankTable(path, sorted(entries, key=lambda e: e.rank_id), len(servers))


_launch_error: Optional[str] = None


def _as_int(text):
    try:
        return int(text)
    except ValueError:
        return None


def apply(environ=None) -> Optional[RankEntry]:
    """Fills the env:// variables and ASCEND_SIM_SERVER_ID (Note [Rank table and servers])."""
    env = os.environ if environ is None else environ
    path = env.get("RANK_TABLE_FILE")
    if not path:
        if env.get("GROUP_RANK") is not None and "ASCEND_SIM_SERVER_ID" not in env:
            env["ASCEND_SIM_SERVER_ID"] = "node" + env["GROUP_RANK"]
        return None
    table = load_rank_table(path)
    if "RANK_ID" not in env:
        raise ValueError(f"RANK_TABLE_FILE={path} is set but RANK_ID is not (the rank of this process)")
    try:
        rank_id = int(env["RANK_ID"])
    except ValueError:
        raise ValueError(f"RANK_ID={env['RANK_ID']!r} is not an integer") from None
    entry = table.entry(rank_id)
    world = len(table.entries)
    for name, expected, meaning in (("RANK_SIZE", world, f"lists {world} ranks"),
                                    ("WORLD_SIZE", world, f"lists {world} ranks"),
                                    ("RANK", rank_id, f"is read for RANK_ID={rank_id}"),
                                    ("DEVICE_ID", entry.device_id,
                                     f"puts rank {rank_id} on device {entry.device_id} of server {entry.server_id}")):
        if name in env and _as_int(env[name]) != expected:
            raise ValueError(f"{name}={env[name]} but the rank table {path} {meaning}")
    env.setdefault("RANK", str(rank_id))
    env.setdefault("WORLD_SIZE", str(len(table.entries)))
    env.setdefault("LOCAL_RANK", str(entry.local_rank))
    env.setdefault("DEVICE_ID", str(entry.device_id))
    env["ASCEND_SIM_SERVER_ID"] = entry.server_id
    return entry


def apply_at_import():
    global _launch_error
    try:
        apply()
    except ValueError as e:
        _launch_error = str(e)
        warnings.warn(f"torch_npu: {e}; the hccl process group will refuse to start", RuntimeWarning)


def check_before_init():
    """Raises the rank table's problem, if any, when an hccl process group is created."""
    if _launch_error:
        raise RuntimeError(f"hccl: cannot use the Ascend launch environment: {_launch_error}")
