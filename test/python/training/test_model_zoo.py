"""Models nobody here wrote, trained on the NPU: torchvision classification, segmentation and video
models, torchaudio's models, torchtext's RoBERTa; and PyTorch's program transforms on NPU modules.

Each model takes one training step on the NPU (fp32, precision mode must_keep_origin_dtype), on the
CPU in fp32 and on the CPU in float64, from the same weights (Note [Training parity] in
model_parity.py): the NPU loss matches the CPU's, and the NPU's whole gradient is no further from the
float64 one than `factor` times the CPU's own fp32 gradient is. Batch norms see batches of 4 at
sizes where their last stages still have several values per channel: at 1x1 maps of 2 samples
their gradients are ill-conditioned for every implementation (norms of 1e9 and more), and a
comparison measures only rounding noise. Configurations are the libraries' own classes at
small sizes, so CI stays fast; dropout and stochastic depth are off (their masks differ between
devices by design). No model
may need TORCH_NPU_CPU_FALLBACK: an operator the NPU lacks fails the test.
"""
import importlib.util
import os
import sys
import types

import pytest
import torch
import torchvision

from model_parity import train_parity

torchaudio = pytest.importorskip("torchaudio")


@pytest.fixture(autouse=True)
def _fp32_cube_and_no_fallback(monkeypatch):
    monkeypatch.delenv("TORCH_NPU_CPU_FALLBACK", raising=False)
    saved = torch.npu.get_option("ACL_PRECISION_MODE")
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    yield
    torch.npu.set_option({"ACL_PRECISION_MODE": saved})


def _no_dropout(model):
    for m in model.modules():
        if isinstance(m, (torch.nn.Dropout, torchvision.ops.StochasticDepth)):
            m.p = 0.0
    return model


def _images(n, size, classes, frames=None):
    def batches(step):
        g = torch.Generator().manual_seed(10 + step)
        shape = (n, 3, frames, size, size) if frames else (n, 3, size, size)
        return (torch.randn(*shape, generator=g),), torch.randint(0, classes, (n,), generator=g)
    return batches


def _cross_entropy(out, target):
    return torch.nn.functional.cross_entropy(out, target)


def _segmentation_loss(out, target):
    return torch.nn.functional.cross_entropy(out["out"], target)


def _pixels(n, size, classes):
    def batches(step):
        g = torch.Generator().manual_seed(20 + step)
        return (torch.randn(n, 3, size, size, generator=g),), torch.randint(0, classes, (n, size, size), generator=g)
    return batches


def _signal(shape, seed=30):
    def batches(step):
        g = torch.Generator().manual_seed(seed + step)
        return (torch.randn(*shape, generator=g),), None
    return batches


def _mean_square(out, target):
    out = out[0] if isinstance(out, (tuple, list)) else out
    return out.float().square().mean()


def _torchtext_roberta():
    """torchtext's RoBERTa model code, loaded from Debian's files without torchtext/__init__.py, whose
    C++ extension does not load on this platform (its _torchtext module has no Python entry point)."""
    root = os.path.join(os.path.dirname(torchaudio.__file__), "..", "torchtext", "models", "roberta")
    package = types.ModuleType("torchtext_roberta")
    package.__path__ = [os.path.abspath(root)]
    sys.modules.setdefault("torchtext_roberta", package)
    modules = {}
    for name in ("modules", "model"):
        spec = importlib.util.spec_from_file_location(f"torchtext_roberta.{name}", os.path.join(root, f"{name}.py"))
        modules[name] = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = modules[name]
        spec.loader.exec_module(modules[name])
    model = modules["model"]
    conf = model.RobertaEncoderConf(vocab_size=50, embedding_dim=32, ffn_dimension=64, padding_idx=1,
                                    max_seq_len=40, num_attention_heads=2, num_encoder_layers=2, dropout=0.0)
    head = model.RobertaClassificationHead(num_classes=3, input_dim=32, dropout=0.0)
    return model.RobertaModel(conf, head)


def _tokens(step):
    g = torch.Generator().manual_seed(40 + step)
    return (torch.randint(2, 50, (3, 12), generator=g),), torch.randint(0, 3, (3,), generator=g)


def _wav2vec2():
    return torchaudio.models.wav2vec2_model(
        extractor_mode="group_norm", extractor_conv_layer_config=[(16, 10, 5), (16, 3, 2)], extractor_conv_bias=False,
        encoder_embed_dim=32, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=8, encoder_pos_conv_groups=4,
        encoder_num_layers=2, encoder_num_heads=2, encoder_attention_dropout=0.0, encoder_ff_interm_features=64,
        encoder_ff_interm_dropout=0.0, encoder_dropout=0.0, encoder_layer_norm_first=False, encoder_layer_drop=0.0,
        aux_num_out=5)


tv = torchvision.models
# name: (model factory, batches, loss, factor)
MODELS = {
    "squeezenet1_1": (lambda: tv.squeezenet1_1(num_classes=5), _images(2, 48, 5), _cross_entropy, 2),
    "densenet": (lambda: tv.DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16, num_classes=5),
                 _images(2, 32, 5), _cross_entropy, 2),
    "efficientnet_b0": (lambda: tv.efficientnet_b0(num_classes=5), _images(4, 64, 5), _cross_entropy, 2),
    "regnet_x_400mf": (lambda: tv.regnet_x_400mf(num_classes=5), _images(4, 64, 5), _cross_entropy, 2),
    "mnasnet0_5": (lambda: tv.mnasnet0_5(num_classes=5), _images(4, 64, 5), _cross_entropy, 2),
    "convnext": (lambda: tv.convnext.ConvNeXt([tv.convnext.CNBlockConfig(16, 32, 1),
                                               tv.convnext.CNBlockConfig(32, None, 1)], num_classes=5),
                 _images(2, 32, 5), _cross_entropy, 2),
    "vit": (lambda: tv.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                         mlp_dim=64, num_classes=5), _images(2, 32, 5), _cross_entropy, 2),
    "swin": (lambda: tv.swin_transformer.SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1],
                                                         num_heads=[2, 2], window_size=[4, 4], num_classes=5),
             _images(2, 32, 5), _cross_entropy, 2),
    "googlenet": (lambda: tv.googlenet(num_classes=5, aux_logits=False, init_weights=True),
                  _images(4, 64, 5), _cross_entropy, 2),
    "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(num_classes=5), _images(4, 64, 5), _cross_entropy, 2),
    "lraspp_mobilenet_v3": (lambda: tv.segmentation.lraspp_mobilenet_v3_large(num_classes=3, weights_backbone=None),
                            _pixels(2, 32, 3), _segmentation_loss, 3),
    "deeplabv3_mobilenet_v3": (lambda: tv.segmentation.deeplabv3_mobilenet_v3_large(num_classes=3,
                                                                                    weights_backbone=None),
                               _pixels(2, 32, 3), _segmentation_loss, 3),
    # 4: the CPU reference's own error depends on the host's oneDNN path. Gradient error against fp64 (norm
    # 207): NPU 0.0198 (1e-4 relative); CPU 0.0078 with AVX-512 oneDNN kernels, above 0.0099 with AVX2 ones.
    "r2plus1d": (lambda: tv.video.resnet.VideoResNet(tv.video.resnet.BasicBlock,
                                                     [tv.video.resnet.Conv2Plus1D] * 4, [1, 1, 1, 1],
                                                     tv.video.resnet.R2Plus1dStem, num_classes=4),
                 _images(4, 16, 4, frames=4), _cross_entropy, 4),
    "r3d_18": (lambda: tv.video.r3d_18(num_classes=4), _images(4, 16, 4, frames=4), _cross_entropy, 2),
    "wav2vec2": (_wav2vec2, _signal((2, 400)), _mean_square, 2),
    "conformer": (lambda: torchaudio.models.Conformer(input_dim=16, num_heads=2, ffn_dim=32, num_layers=2,
                                                      depthwise_conv_kernel_size=3),
                  lambda step: ((torch.randn(2, 10, 16, generator=torch.Generator().manual_seed(step)),
                                 torch.tensor([10, 8])), None), _mean_square, 2),
    "wav2letter": (lambda: torchaudio.models.Wav2Letter(num_classes=5, input_type="mfcc", num_features=13),
                   _signal((2, 13, 50)), _mean_square, 2),
    "conv_tasnet": (lambda: torchaudio.models.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=16,
                                                         msk_kernel_size=3, msk_num_feats=8, msk_num_hidden_feats=16,
                                                         msk_num_layers=2, msk_num_stacks=1),
                    _signal((2, 1, 200)), _mean_square, 2),
    "deepspeech": (lambda: torchaudio.models.DeepSpeech(n_feature=16, n_hidden=32, n_class=5),
                   _signal((2, 1, 10, 16)), _mean_square, 2),
    "roberta": (_torchtext_roberta, _tokens, _cross_entropy, 2),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_library_model_trains_on_the_npu_as_on_the_cpu(name):
    make, batches, loss, factor = MODELS[name]

    def model():
        torch.manual_seed(0)
        return _no_dropout(make())

    records = train_parity(model, batches, loss, steps=1, grad_factor=factor)
    assert all(r["loss_npu"] == r["loss_npu"] for r in records)  # finite


# ---- PyTorch's program transforms on NPU modules ----------------------------------------------------
def _small_resnet():
    torch.manual_seed(0)
    return tv.ResNet(tv.resnet.BasicBlock, [1, 1, 1, 1], num_classes=5).npu().eval()


def test_torch_jit_script_and_trace_of_a_library_model():
    model = _small_resnet()
    x = torch.randn(2, 3, 32, 32).npu()
    eager = model(x)
    torch.testing.assert_close(torch.jit.script(model)(x).cpu(), eager.cpu(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(torch.jit.trace(model, x)(x).cpu(), eager.cpu(), rtol=1e-5, atol=1e-6)


def test_torch_fx_symbolic_trace_of_a_library_model():
    model = _small_resnet()
    traced = torch.fx.symbolic_trace(model)
    x = torch.randn(2, 3, 32, 32).npu()
    assert any(node.op == "call_module" for node in traced.graph.nodes)
    torch.testing.assert_close(traced(x).cpu(), model(x).cpu(), rtol=1e-5, atol=1e-6)


def test_functorch_per_sample_gradients_with_vmap_and_grad():
    functorch = pytest.importorskip("functorch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3)).npu()
    apply, params = functorch.make_functional(model)
    x, y = torch.randn(5, 6).npu(), torch.randint(0, 3, (5,)).npu()

    def sample_loss(p, xi, yi):
        return torch.nn.functional.cross_entropy(apply(p, xi.unsqueeze(0)), yi.unsqueeze(0))

    per_sample = functorch.vmap(functorch.grad(sample_loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(5):
        expected = torch.autograd.grad(sample_loss(params, x[i], y[i]), params)
        for got, want in zip(per_sample, expected):
            assert got.device.type == "npu"
            torch.testing.assert_close(got[i].cpu(), want.cpu(), rtol=1e-5, atol=1e-6)


def test_checkpoint_sequential_over_a_library_models_features():
    torch.manual_seed(0)
    model = tv.mobilenet_v3_small(num_classes=5).npu()
    x = torch.randn(2, 3, 32, 32).npu().requires_grad_()  # reentrant checkpoints need an input that does

    def grads(run):
        model.zero_grad(set_to_none=True)
        torch.npu.manual_seed_all(3)
        run(x).sum().backward()
        return [p.grad.cpu() for p in model.features.parameters()]

    plain = grads(lambda inp: model.features(inp))
    checkpointed = grads(lambda inp: torch.utils.checkpoint.checkpoint_sequential(model.features, 3, inp))
    assert all(torch.equal(a, b) for a, b in zip(plain, checkpointed))
