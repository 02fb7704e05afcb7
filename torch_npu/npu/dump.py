"""Op data dump: torch.npu.init_dump(), set_dump(config), finalize_dump() (torch_npu v1.11's names).

    torch.npu.init_dump()
    torch.npu.set_dump("dump.json")     # or the config as a dict
    loss = model(x); loss.backward()
    torch.npu.finalize_dump()           # waits for the device, writes <dump_path>/manifest.json

The config is CANN's (aclmdlSetDump):
    {"dump": {"dump_path": "./dump", "dump_mode": "output" | "input" | "all",
              "dump_list": [{"layer": ["MatMul", "Add_3", "MLP.fc2"]}],
              "dump_debug": "off" | "on"}}
A layer entry selects ops by op type, by op name (<type>_<n>, counted from set_dump) or by module path
(and everything under it). dump_debug "on" is the overflow-detection mode: only ops that overflowed are
dumped, inputs and outputs, and `python3 -m torch_npu.tools.overflow <dump_path>` names the first.
Each dumped tensor is <dump_path>/<index>.<op name>.{input,output}.<i>.npy in its logical layout; the
manifest lists every dumped op with its type, name, layer (module path), stream, overflow flag and
tensors (docs/profiling.md, "Dump").
"""
import json
import os
import tempfile

from torch_npu import _C
from torch_npu.npu import _module_scope

_state = {"initialized": False, "dumping": False}


def init_dump():
    """Starts a dump session (aclmdlInitDump); set_dump then says what to dump."""
    _C._npu_initDump()
    _state["initialized"] = True


def set_dump(config):
    """Starts dumping per `config`: a path to a JSON config file, or the config as a dict."""
    if not _state["initialized"]:
        raise RuntimeError("torch.npu.set_dump: call torch.npu.init_dump() first")
    if isinstance(config, dict):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(config, f)
        try:
            _C._npu_setDump(f.name)
        finally:
            os.unlink(f.name)
    else:
        if not os.path.isfile(config):
            raise FileNotFoundError(f"torch.npu.set_dump: no dump config file {config!r}")
        _C._npu_setDump(os.fspath(config))
    if not _state["dumping"]:
        _module_scope.acquire()
        _state["dumping"] = True


def finalize_dump():
    """Waits for every device, writes the manifest and ends the session (aclmdlFinalizeDump)."""
    if not _state["initialized"]:
        raise RuntimeError("torch.npu.finalize_dump: no dump session (call torch.npu.init_dump() first)")
    try:
        _C._npu_finalizeDump()
    finally:
        _state["initialized"] = False
        if _state["dumping"]:
            _module_scope.release()
            _state["dumping"] = False
