"""The examples run end to end (small settings) and print what they promise."""
import os
import re
import subprocess

import pytest

from conftest import REPO_ROOT as ROOT


def _run(script, *args, env=None):
    result = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "examples", script), *args], cwd="/tmp",
                            capture_output=True, text=True, timeout=600, env=dict(os.environ, **(env or {})))
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize("script", ["transformer_lm.py", "lstm_lm.py"])
def test_language_models_learn_and_report_throughput(script):
    out = _run(script, "--steps", "12", "--print-every", "11", "--batch-size", "8", "--bptt", "16")
    losses = [float(v) for v in re.findall(r"loss\s+([0-9.]+)", out)]
    assert len(losses) == 2 and losses[-1] < losses[0], out  # it learns
    assert re.search(r"tokens/s \(host\), [0-9.]+ ms simulated per step", out), out


def test_bert_step_reports_both_presets():
    out = _run("bert_step.py", "--soc", "both", "--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "500",
               "--seq", "32", "--steps", "2")
    for soc in ("Ascend910A", "Ascend910B2"):
        assert re.search(soc + r": simulated training step [0-9.]+ ms = [0-9.]+ sentences/s", out), out


def test_throughput_prediction_runs_both_models_in_o2():
    # Small settings (the full prediction takes minutes): 2 images, a 1-layer encoder.
    out = _run("predict_throughput.py", "--steps", "2", "--batch-size", "2", "--bert-layers", "1", "--breakdown")
    for name, unit in (("resnet50", "images"), ("bert", "sentences")):
        match = re.search(name + r": O2, batch 2: simulated step ([0-9.]+) ms = ([0-9]+) " + unit + "/s", out)
        assert match and float(match.group(1)) > 0, out
    assert "ForeachNonFiniteCheckAndUnscale" in out and "bound by:" in out, out


def test_profile_example_writes_the_e2e_files_and_the_report(tmp_path):
    out = _run("profile_resnet18.py", "--out", str(tmp_path), "--batch-size", "2", "--image-size", "32")
    assert re.search(r"[0-9]+ device tasks, [0-9.]+ ms simulated NPU time", out) and "Self NPU" in out, out
    for name in ("op_summary_0.csv", "op_statistic_0.csv", "trace_0.json", "report_0.html"):
        assert (tmp_path / name).stat().st_size > 0, name


@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp16"])
def test_llama_decoder_on_the_fused_ops_trains_like_plain_pytorch_on_the_cpu(dtype):
    """npu_rms_norm, npu_rotary_mul, npu_fusion_attention and npu_swiglu against the same model in plain PyTorch
    (fp32, CPU): fp32 to 4 digits, mixed precision to one fp16 / bf16 rounding of the loss."""
    compare = ["--compare-unfused"] if dtype == "fp32" else []
    out = _run("llama_decoder.py", "--steps", "3", "--dtype", dtype, *compare)
    pairs = [(float(c), float(n)) for c, n in re.findall(r"loss cpu ([0-9.]+)  npu ([0-9.]+)", out)]
    assert len(pairs) == 3, out
    rtol = {"fp32": 1e-4, "fp16": 1e-3, "bf16": 4e-3}[dtype]
    assert all(abs(c - n) <= rtol * c for c, n in pairs), out
    assert "(Ascend910B2)" in out, out
    assert re.search(r"[0-9]+ tokens/s on this host, [0-9]+ tokens/s on the simulated device", out), out
    for kernel in ("RmsNormGrad", "AddRmsNorm", "RotaryMulGrad", "FlashAttentionScoreGrad", "SwiGluGrad"):
        assert kernel in out, out
    if dtype == "fp32":  # the fused operators cut the simulated step against the plain PyTorch formulation
        times = re.search(r"fused operators ([0-9.]+) ms, the same model in plain PyTorch ops on the NPU ([0-9.]+) ms",
                          out)
        assert times and float(times.group(1)) < float(times.group(2)), out


def test_llama_generation_with_a_kv_cache_gives_the_tokens_of_plain_pytorch():
    """Prefill on npu_prompt_flash_attention, decode on npu_incre_flash_attention over a KV cache, prompts of
    different lengths: in fp32 every greedy token equals the cache-less CPU model's, and one decode attention
    costs what its filled rows cost."""
    out = _run("llama_generate.py", "--train-steps", "20", "--new-tokens", "6", "--batch-size", "3")
    match = re.search(r"tokens equal to plain PyTorch on the CPU: ([0-9]+) of ([0-9]+); largest logit difference "
                      r"([0-9.e+-]+)", out)
    assert match and match.group(1) == match.group(2) == "18" and float(match.group(3)) < 1e-4, out
    assert re.search(r"prefill [0-9.]+ ms \([0-9]+ prompt tokens/s\), 5 decode steps", out), out
    read = re.search(r"cache of 10 filled positions: ([0-9.]+) us, 256 filled positions: ([0-9.]+) us", out)
    assert read and float(read.group(1)) < float(read.group(2)), out


def test_int8_moe_inference_keeps_the_output_and_cuts_weight_bytes_and_time():
    """npu_grouped_matmul's quantised paths in a served MoE layer: W8A16 (int8 weights, antiquant_scale) and
    W8A8 (npu_quantize'd activations, int8 x int8 at the Cube's int8 rate) stay close to the fp32 CPU layer,
    halve the expert weights' bytes, and their expert products take less simulated time than fp16's."""
    out = _run("int8_moe_inference.py", "--tokens", "256", "--dim", "128", "--ffn", "256")
    rows = {m: (float(e), float(p), int(b)) for m, e, p, b in
            re.findall(r"(fp16|w8a16|w8a8)\s+relative error ([0-9.e+-]+)  simulated forward [0-9.]+ ms  "
                       r"expert products ([0-9.]+) us  expert weights ([0-9]+) KiB", out)}
    assert set(rows) == {"fp16", "w8a16", "w8a8"}, out
    assert rows["fp16"][0] < 2e-3 and rows["w8a16"][0] < 2e-2 and rows["w8a8"][0] < 6e-2, out
    assert rows["w8a16"][2] * 2 <= rows["fp16"][2] + 1 and rows["w8a8"][2] * 2 <= rows["fp16"][2] + 1, out
    assert rows["w8a8"][1] < rows["w8a16"][1] < rows["fp16"][1], out


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_moe_layer_on_torch_npus_moe_operators_trains_like_the_plain_layer_on_the_cpu(dtype):
    """npu_moe_gating_top_k_softmax, npu_moe_init_routing, npu_moe_compute_expert_tokens, npu_grouped_matmul and
    npu_moe_finalize_routing, forward and backward, against Mixtral's per-expert loop in fp32 on the CPU: fp32 to
    5 digits, bf16 to its rounding; and in fp32 the fused step is faster than the loop on the NPU."""
    compare = ["--compare-unfused"] if dtype == "fp32" else []
    out = _run("moe_layer.py", "--steps", "3", "--tokens", "64", "--dtype", dtype, *compare)
    pairs = [(float(c), float(n)) for c, n in re.findall(r"loss cpu ([0-9.]+)  npu ([0-9.]+)", out)]
    assert len(pairs) == 3, out
    rtol = {"fp32": 1e-5, "bf16": 4e-3}[dtype]
    assert all(abs(c - n) <= rtol * c for c, n in pairs), out
    for kernel in ("MoeGatingTopKSoftmax", "MoeInitRouting", "MoeInitRoutingV2Grad", "MoeComputeExpertTokens",
                   "GroupedMatmul", "MoeFinalizeRouting", "MoeFinalizeRoutingV2Grad"):
        assert kernel in out, out
    assert re.search(r"[0-9]+ tokens/s on the simulated device", out), out
    if dtype == "fp32":
        times = re.search(r"MoE operators ([0-9.]+) ms .* plain PyTorch ops on the NPU ([0-9.]+) ms", out)
        assert times and float(times.group(1)) < float(times.group(2)), out
