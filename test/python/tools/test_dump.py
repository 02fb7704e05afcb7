"""Op dump (torch.npu.init_dump / set_dump / finalize_dump), overflow location
(python3 -m torch_npu.tools.overflow) and the NPU-vs-CPU compare tool (torch_npu.tools.compare)."""
import copy
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import torch_npu  # noqa: F401
from torch_npu.tools import compare


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = torch.nn.Linear(8, 16), torch.nn.Linear(16, 16), torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def _dump(path, step, **config):
    torch.npu.init_dump()
    torch.npu.set_dump({"dump": dict(dump_path=str(path), **config)})
    try:
        result = step()
    finally:
        torch.npu.finalize_dump()
    with open(path / "manifest.json") as f:
        return json.load(f), result


def _load(path, tensor):
    return np.load(path / tensor["file"])


def test_mlp_dump_holds_exactly_the_configured_ops_and_modes(tmp_path):
    torch.manual_seed(0)
    model, x = MLP().npu(), torch.randn(5, 8).npu()

    # Selection by module path (everything under MLP.fc2) and by op type, inputs only.
    manifest, _ = _dump(tmp_path / "a", lambda: model(x), dump_mode="input",
                        dump_list=[{"layer": ["MLP.fc2", "Relu"]}])
    ops = manifest["ops"]
    assert [(op["op_name"], op["scope"]) for op in ops] == [("Relu_0", "MLP"), ("MatMul_1", "MLP.fc2"),
                                                            ("Relu_1", "MLP")]
    assert manifest["ops_executed"] == 5 and manifest["dump_mode"] == "input"
    assert all(op["outputs"] == [] and op["inputs"] for op in ops)
    matmul = ops[1]
    np.testing.assert_array_equal(_load(tmp_path / "a", matmul["inputs"][1]), model.fc2.weight.detach().cpu().numpy())
    np.testing.assert_array_equal(_load(tmp_path / "a", matmul["inputs"][2]), model.fc2.bias.detach().cpu().numpy())

    # Selection by op name, outputs only: the last MatMul's output is the model's output, bit for bit.
    manifest, y = _dump(tmp_path / "b", lambda: model(x), dump_mode="output", dump_list=[{"layer": ["MatMul_2"]}])
    (op,) = manifest["ops"]
    assert op["op_name"] == "MatMul_2" and op["scope"] == "MLP.fc3" and op["inputs"] == []
    np.testing.assert_array_equal(_load(tmp_path / "b", op["outputs"][0]), y.detach().cpu().numpy())

    # Everything, inputs and outputs: forward and backward ops, the first input is x.
    manifest, _ = _dump(tmp_path / "c", lambda: model(x).sum().backward(), dump_mode="all")
    ops = manifest["ops"]
    assert len(ops) == manifest["ops_executed"] > 10 and [op["index"] for op in ops] == list(range(len(ops)))
    assert all(op["inputs"] and op["outputs"] for op in ops if op["op_type"] != "Fill")
    np.testing.assert_array_equal(_load(tmp_path / "c", ops[0]["inputs"][0]), x.cpu().numpy())
    files = {t["file"] for op in ops for t in op["inputs"] + op["outputs"]}
    assert files == {f for f in os.listdir(tmp_path / "c") if f.endswith(".npy")}
    assert {op["scope"] for op in ops if op["op_type"] == "ReluGrad"} == {""}  # backward: no layer


def test_dump_writes_private_formats_in_their_logical_layout(tmp_path):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 8, 3, padding=1).npu()
    x = torch.randn(2, 3, 6, 6).npu()
    manifest, y = _dump(tmp_path, lambda: conv(x), dump_mode="all", dump_list=[{"layer": ["Conv2D"]}])
    (op,) = manifest["ops"]
    out, weight = op["outputs"][0], op["inputs"][1]
    assert out["storage_format"] == "NC1HWC0" and out["shape"] == [2, 8, 6, 6]
    assert out["storage_shape"] == [2, 1, 6, 6, 16]
    assert weight["storage_format"] == "FRACTAL_Z" and weight["shape"] == [8, 3, 3, 3]
    np.testing.assert_array_equal(_load(tmp_path, out), y.detach().cpu().numpy())
    np.testing.assert_array_equal(_load(tmp_path, weight), conv.weight.detach().cpu().numpy())


def test_config_errors_are_clear(tmp_path):
    with pytest.raises(RuntimeError, match="init_dump"):
        torch.npu.set_dump({"dump": {"dump_path": str(tmp_path)}})
    torch.npu.init_dump()
    try:
        with pytest.raises(RuntimeError, match="dump_path"):
            torch.npu.set_dump({"dump": {"dump_mode": "all"}})
        with pytest.raises(RuntimeError, match="dump_mode must be"):
            torch.npu.set_dump({"dump": {"dump_path": str(tmp_path), "dump_mode": "everything"}})
        with pytest.raises(RuntimeError, match="needs a \"dump\" object"):
            torch.npu.set_dump({"dunp": {}})
        bad = tmp_path / "bad.json"
        bad.write_text("{\"dump\": [")
        with pytest.raises(RuntimeError, match="not valid JSON"):
            torch.npu.set_dump(str(bad))
        with pytest.raises(FileNotFoundError, match="no dump config"):
            torch.npu.set_dump(str(tmp_path / "missing.json"))
    finally:
        torch.npu.finalize_dump()
    with pytest.raises(RuntimeError, match="no dump session"):
        torch.npu.finalize_dump()
    assert torch.ones(3).npu().add(1).sum().item() == 6  # the device works on


_OVERFLOW_SCRIPT = textwrap.dedent("""
    import sys, torch, torch_npu
    sys.path.insert(0, {test_dir!r})
    from test_dump import MLP
    torch.manual_seed(0)
    model = MLP().half().npu()
    with torch.no_grad():
        model.fc2.weight.fill_(60000.0)  # the injected overflow: fc2's MatMul exceeds 65504
    torch.npu.init_dump()
    torch.npu.set_dump({{"dump": {{"dump_path": {path!r}, "dump_debug": "on"}}}})
    model(torch.rand(16, 8).half().npu()).float().sum().backward()
    torch.npu.finalize_dump()
""")


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend910B2"])  # float status / inf-NaN scan
def test_overflow_tool_names_the_first_overflowing_op_and_its_layer(tmp_path, soc):
    script = _OVERFLOW_SCRIPT.format(test_dir=os.path.dirname(__file__), path=str(tmp_path / "dump"))
    env = dict(os.environ, ASCEND_SIM_SOC_VERSION=soc)
    subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True, timeout=300)
    tool = subprocess.run([sys.executable, "-m", "torch_npu.tools.overflow", str(tmp_path / "dump")],
                          capture_output=True, text=True, timeout=300)
    assert tool.returncode == 1, tool.stdout + tool.stderr
    first, *rest = tool.stdout.splitlines()
    assert first.startswith("First overflow: op #2 MatMul_1 (op type MatMul) in layer MLP.fc2"), tool.stdout
    assert "input 1: float16 [16, 16] ND: min 60000  max 60000" in rest[1], tool.stdout
    # fc1 and the first Relu ran before it without overflowing, and were not dumped.
    manifest = json.load(open(tmp_path / "dump" / "manifest.json"))
    assert manifest["ops"][0]["index"] == 2 and all(op["overflow"] for op in manifest["ops"])


def _record_step(model, x, y, path):
    with compare.record(path):
        torch.nn.functional.cross_entropy(model(x), y).backward()


@pytest.fixture
def keep_origin_dtype():
    previous = torch.npu.get_option("ACL_PRECISION_MODE")
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    yield
    torch.npu.set_option({"ACL_PRECISION_MODE": previous})


def test_compare_finds_the_perturbed_op(tmp_path, keep_origin_dtype):
    torch.manual_seed(0)
    cpu_model = MLP()
    npu_model = copy.deepcopy(cpu_model).npu()
    x, y = torch.randn(16, 8), torch.randint(0, 4, (16,))
    _record_step(cpu_model, x, y, tmp_path / "cpu")
    _record_step(npu_model, x.npu(), y.npu(), tmp_path / "npu")
    rows, first = compare.compare(str(tmp_path / "npu"), str(tmp_path / "cpu"), rtol=1e-4)
    assert first is None and len(rows) > 40
    assert any(row["npu_ops"] == ["MatMul"] for row in rows if row["op"] == "aten.addmm.default")

    # The perturbation: fc2 alone runs its MatMul with fp16 operands (precision mode allow_fp32_to_fp16).
    npu_model.fc2.register_forward_pre_hook(
        lambda *_: torch.npu.set_option({"ACL_PRECISION_MODE": "allow_fp32_to_fp16"}))
    npu_model.fc2.register_forward_hook(
        lambda *_: torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"}))
    npu_model.zero_grad()
    _record_step(npu_model, x.npu(), y.npu(), tmp_path / "npu2")
    tool = subprocess.run([sys.executable, "-m", "torch_npu.tools.compare", str(tmp_path / "npu2"),
                           str(tmp_path / "cpu"), "--rtol", "1e-4"], capture_output=True, text=True, timeout=300)
    assert tool.returncode == 1, tool.stdout + tool.stderr
    assert re.search(r"First divergent op: #[0-9]+ aten.addmm.default in layer MLP.fc2:", tool.stdout), tool.stdout
    assert "its NPU tasks: MatMul" in tool.stdout
