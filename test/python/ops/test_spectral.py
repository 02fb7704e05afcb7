"""torch.fft, stft and torchaudio's spectral front ends on the NPU (Note [FFTs on the NPU],
Note [complex64 on the NPU]): forward and backward against the CPU, no CPU fallback."""
import pytest
import torch

torchaudio = pytest.importorskip("torchaudio")


@pytest.fixture(autouse=True)
def _no_fallback(monkeypatch):
    monkeypatch.delenv("TORCH_NPU_CPU_FALLBACK", raising=False)


def _both(module, signal):
    """(npu output, cpu output, npu grad, cpu grad) of module(signal).square().sum()."""
    results = []
    for device in ("npu", "cpu"):
        x = signal.clone().to(device).requires_grad_()
        out = module.to(device)(x)
        out.abs().square().sum().backward() if out.is_complex() else out.square().sum().backward()
        results.append((out.detach().cpu(), x.grad.cpu()))
    return results


@pytest.mark.parametrize("make", [
    lambda: torchaudio.transforms.Spectrogram(n_fft=400, hop_length=160),
    lambda: torchaudio.transforms.Spectrogram(n_fft=64, power=None),
    lambda: torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_fft=400, hop_length=160, n_mels=40),
    lambda: torchaudio.transforms.MFCC(sample_rate=16000, n_mfcc=13, melkwargs={"n_fft": 256, "n_mels": 32}),
], ids=["spectrogram", "complex_spectrogram", "mel_spectrogram", "mfcc"])
def test_torchaudio_front_ends_match_the_cpu(make):
    torch.manual_seed(0)
    signal = torch.randn(2, 1600)
    (npu_out, npu_grad), (cpu_out, cpu_grad) = _both(make(), signal)
    scale = cpu_out.abs().max().item()
    torch.testing.assert_close(npu_out, cpu_out, rtol=1e-4, atol=1e-5 * max(scale, 1.0))
    torch.testing.assert_close(npu_grad, cpu_grad, rtol=1e-3, atol=1e-4 * cpu_grad.abs().max().item())


def test_inverse_spectrogram_reconstructs_the_signal():
    torch.manual_seed(0)
    signal = torch.randn(2, 1600)
    spectrogram = torchaudio.transforms.Spectrogram(n_fft=256, hop_length=64, power=None)
    inverse = torchaudio.transforms.InverseSpectrogram(n_fft=256, hop_length=64)
    spec = spectrogram.to("npu")(signal.npu())
    assert spec.device.type == "npu" and spec.dtype == torch.complex64
    back = inverse.to("npu")(spec, length=1600)
    torch.testing.assert_close(back.cpu(), signal, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(back.cpu(), inverse.cpu()(spec.cpu(), length=1600), rtol=1e-4, atol=1e-4)


def test_torch_fft_functions_match_the_cpu():
    torch.manual_seed(0)
    x, z = torch.randn(4, 50), torch.randn(3, 12, dtype=torch.complex64)
    for fn in (torch.fft.rfft, lambda t: torch.fft.fft(t, norm="ortho"), torch.fft.fftshift, torch.fft.rfftn,
               torch.fft.ihfft, lambda t: torch.fft.fftn(t, s=(6, 64), norm="forward")):
        torch.testing.assert_close(fn(x.npu()).cpu(), fn(x), rtol=1e-4, atol=1e-4)
    for fn in (torch.fft.fft, torch.fft.ifft, torch.fft.fft2, lambda t: torch.fft.irfft(t, 22), torch.fft.hfft,
               torch.fft.ifftn, torch.fft.irfftn, lambda t: torch.fft.ifftshift(t, dim=1)):
        torch.testing.assert_close(fn(z.npu()).cpu(), fn(z), rtol=1e-4, atol=1e-4)
    assert torch.fft.rfft(x.npu()).dtype == torch.complex64
