"""What a recorded collective costs on another cluster: the simulator's own pricing
(HcclSimPredictCollective, the algorithm choice and link model of a real communicator)."""
import ctypes
import os
from dataclasses import dataclass
from typing import Optional

_DTYPE_BYTES = {"INT8": 1, "UINT8": 1, "INT16": 2, "UINT16": 2, "FP16": 2, "BFP16": 2, "INT32": 4,
                "UINT32": 4, "FP32": 4, "INT64": 8, "UINT64": 8, "FP64": 8}
_KINDS = {"HcclAllReduce": "allreduce", "HcclBroadcast": "broadcast", "HcclReduce": "reduce",
          "HcclAllGather": "allgather", "HcclReduceScatter": "reducescatter", "HcclAlltoAllV": "alltoall",
          "HcclSend": "send", "HcclRecv": "send", "HcclBarrier": "barrier"}


@dataclass(frozen=True)
class Collective:
    kind: str          # HcclSimPredictCollective's kind
    count: int         # elements as in the record (all-gather: per rank sent; reduce-scatter: per rank received)
    dtype_bytes: int

    def bytes_for(self, ranks):
        """The collective's n on `ranks` ranks (Note [Collective cost])."""
        per_rank = self.count * self.dtype_bytes
        if self.kind in ("allgather", "reducescatter"):
            return float(per_rank * ranks)
        if self.kind == "alltoall":  # the recorded total includes the rank's own part (evenly split, assumed)
            return float(per_rank) * (ranks - 1) / ranks
        return float(per_rank)


def parse(name, shapes) -> Optional[Collective]:
    """The collective of a task record, or None if the task is not one the prediction can re-price
    (not a collective, or a batch of sends and receives: those keep their recorded time)."""
    kind = _KINDS.get(name)
    if kind is None:
        return None
    if kind == "barrier":
        return Collective(kind, 0, 1)
    fields = shapes.split(":")
    key, _, value = fields[0].partition("=")
    if key == "send":  # all-to-all-v: "send=<total>,recv=<total>": its bytes to the others, as recorded
        count = int(value.split(",")[0])
    elif key in ("count", "sendCount", "recvCount"):
        count = int(value)
    else:
        raise ValueError(f"{name} record with unexpected shapes {shapes!r}")
    dtype = fields[1] if len(fields) > 1 else ""
    if dtype not in _DTYPE_BYTES:
        raise ValueError(f"{name} record with unknown dtype in {shapes!r}")
    return Collective(kind, count, _DTYPE_BYTES[dtype])


class _Library:
    def __init__(self):
        import torch_npu
        path = os.path.join(os.path.dirname(torch_npu.__file__), "libascend_sim.so")
        self.lib = ctypes.CDLL(path)
        f = self.lib.HcclSimPredictCollective
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_double,
                      ctypes.c_char_p, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_char_p)]
        self.lib.aclGetRecentErrMsg.restype = ctypes.c_char_p


_lib = None


def price(soc, servers, per_server, kind, nbytes, hccl_algo=None):
    """(simulated us, algorithm name) of one collective on servers x per_server NPUs of `soc`."""
    global _lib
    if _lib is None:
        _lib = _Library()
    us, name = ctypes.c_double(), ctypes.c_char_p()
    rc = _lib.lib.HcclSimPredictCollective(soc.encode(), servers, per_server, kind.encode(), float(nbytes),
                                           hccl_algo.encode() if hccl_algo else None, ctypes.byref(us),
                                           ctypes.byref(name))
    if rc != 0:
        message = (_lib.lib.aclGetRecentErrMsg() or b"").decode(errors="replace")
        raise ValueError(message or f"HcclSimPredictCollective failed with HCCL error {rc}")
    return us.value, name.value.decode()
