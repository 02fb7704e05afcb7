"""Transformers, attention and recurrent networks train on the NPU as on the CPU.

See Note [Training parity] in model_parity.py: 3 SGD steps, loss within 1e-4
of the CPU, whole gradient no further from fp64 than twice the CPU's.
"""
import pytest
import torch
import torch.nn as nn

from model_parity import train_parity


def _tokens(step, batch=3, seq=7, vocab=50):
    g = torch.Generator().manual_seed(100 + step)
    return torch.randint(0, vocab, (batch, seq), generator=g)


class TinyEncoderLM(nn.Module):
    """Embedding, causal TransformerEncoder with padding mask, LayerNorm, tied head."""

    def __init__(self, vocab=50, d=32, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d, padding_idx=0)
        layer = nn.TransformerEncoderLayer(d, heads, 64, dropout=0.0, batch_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        self.head.weight = self.embed.weight

    def forward(self, tokens, padding):
        seq = tokens.size(1)
        causal = torch.triu(torch.full((seq, seq), float("-inf"), device=tokens.device), diagonal=1)
        h = self.encoder(self.embed(tokens), mask=causal, src_key_padding_mask=padding)
        return self.head(self.norm(h))


def _lm_loss(logits, target):
    return nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1))


def test_transformer_encoder_language_model_trains_like_the_cpu():
    torch.manual_seed(0)
    model = TinyEncoderLM()

    def batches(step):
        tokens = _tokens(step)
        padding = torch.zeros(tokens.shape, dtype=torch.bool)
        padding[0, -2:] = True  # the first sequence is two tokens shorter
        return (tokens, padding), torch.roll(tokens, -1, dims=1)

    train_parity(model, batches, _lm_loss)


def test_encoder_decoder_transformer_trains_like_the_cpu():
    torch.manual_seed(1)
    model = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=48,
                           dropout=0.0)
    tgt_mask = model.generate_square_subsequent_mask(5)

    def batches(step):
        g = torch.Generator().manual_seed(step)
        src, tgt = torch.randn(6, 2, 32, generator=g), torch.randn(5, 2, 32, generator=g)
        return {"src": src, "tgt": tgt, "tgt_mask": tgt_mask}, torch.randn(5, 2, 32, generator=g)

    train_parity(model, batches, nn.functional.mse_loss)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_trains_like_the_cpu(need_weights, batch_first):
    torch.manual_seed(2)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(16, 4, batch_first=batch_first, kdim=12, vdim=10)

        def forward(self, q, k, v, key_padding_mask, attn_mask):
            out, weights = self.mha(q, k, v, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
                                    need_weights=need_weights)
            return out.sum() + (weights.square().sum() if weights is not None else 0)

    def batches(step):
        g = torch.Generator().manual_seed(step)
        shape = (lambda n, d: (2, n, d)) if batch_first else (lambda n, d: (n, 2, d))
        q, k, v = torch.randn(*shape(4, 16), generator=g), torch.randn(*shape(6, 12), generator=g), \
            torch.randn(*shape(6, 10), generator=g)
        key_padding_mask = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
        attn_mask = torch.randn(4, 6, generator=g)  # an additive float mask
        return (q, k, v, key_padding_mask, attn_mask), None

    train_parity(Attention(), batches, lambda out, _: out)


@pytest.mark.parametrize("cell", [nn.LSTM, nn.GRU])
def test_two_layer_bidirectional_rnns_train_like_the_cpu(cell):
    torch.manual_seed(3)

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = cell(12, 16, num_layers=2, bidirectional=True, batch_first=True)
            self.out = nn.Linear(32, 5)

        def forward(self, x):
            h, _ = self.rnn(x)
            return self.out(h)

    def batches(step):
        g = torch.Generator().manual_seed(step)
        return (torch.randn(3, 9, 12, generator=g),), torch.randint(0, 5, (3, 9), generator=g)

    train_parity(Tagger(), batches, lambda out, y: nn.functional.cross_entropy(out.reshape(-1, 5), y.reshape(-1)))


def test_packed_sequences_and_cells_train_like_the_cpu():
    """LSTM over a packed batch, then GRUCell, LSTMCell and a ReLU RNN."""
    torch.manual_seed(4)

    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 10)
            self.cell = nn.GRUCell(10, 6)
            self.lstm_cell = nn.LSTMCell(6, 6)
            self.rnn = nn.RNN(6, 4, nonlinearity="relu")

        def forward(self, x, lengths):
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu())  # lengths live on the CPU
            out, _ = self.lstm(packed)
            padded, _ = nn.utils.rnn.pad_packed_sequence(out)
            h = self.cell(padded[-1])
            h, _ = self.lstm_cell(h, (h, h))
            y, _ = self.rnn(h.unsqueeze(0))
            return y.sum() + padded.square().mean()

    def batches(step):
        g = torch.Generator().manual_seed(step)
        return (torch.randn(6, 3, 8, generator=g), torch.tensor([6, 4, 2])), None

    train_parity(Packed(), batches, lambda out, _: out)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_speech_recognizer_with_ctc_loss_trains_like_the_cpu(zero_infinity):
    """Conv1d front end, bidirectional GRU, log-softmax and nn.CTCLoss with
    per-utterance input lengths (DeepSpeech-style)."""
    torch.manual_seed(5)

    class Recognizer(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(8, 12, kernel_size=3, padding=1)
            self.rnn = nn.GRU(12, 10, bidirectional=True)
            self.out = nn.Linear(20, 6)  # 5 labels + blank 0

        def forward(self, features):  # [N, 8, T]
            h = torch.relu(self.conv(features)).permute(2, 0, 1)  # [T, N, 12]
            h, _ = self.rnn(h)
            return self.out(h).log_softmax(-1)  # [T, N, C]

    ctc = nn.CTCLoss(blank=0, zero_infinity=zero_infinity)
    input_lengths = torch.tensor([14, 11, 9])
    target_lengths = torch.tensor([5, 3, 4])

    def batches(step):
        g = torch.Generator().manual_seed(step)
        targets = torch.randint(1, 6, (3, 5), generator=g)
        return (torch.randn(3, 8, 14, generator=g),), targets

    def loss(log_probs, targets):
        lengths = (input_lengths.to(log_probs.device), target_lengths.to(log_probs.device))
        return ctc(log_probs, targets, *lengths)

    train_parity(Recognizer(), batches, loss)


@pytest.mark.parametrize("mode", ["mean", "sum", "max"])
def test_embedding_bag_text_classifier_trains_like_the_cpu(mode):
    """PyTorch's text-classification tutorial model: nn.EmbeddingBag over
    variable-length token lists given as one flat tensor plus offsets."""
    torch.manual_seed(6)

    class TextClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.EmbeddingBag(40, 16, mode=mode, padding_idx=0)
            self.fc = nn.Linear(16, 4)

        def forward(self, text, offsets):
            return self.fc(self.embedding(text, offsets))

    def batches(step):
        g = torch.Generator().manual_seed(step)
        lengths = torch.randint(1, 9, (5,), generator=g)
        text = torch.randint(0, 40, (int(lengths.sum()),), generator=g)  # some padding tokens (0)
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
        return (text, offsets), torch.randint(0, 4, (5,), generator=g)

    train_parity(TextClassifier(), batches, nn.functional.cross_entropy)


def test_eval_mode_transformer_with_padding_matches_the_cpu(npu):
    """Eval with a padding mask asks for the nested-tensor fast path, which the NPU declines."""
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
    model = nn.TransformerEncoder(layer, 2).eval()
    x = torch.randn(2, 5, 16)
    padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    with torch.no_grad():
        expected = model(x, src_key_padding_mask=padding)
        actual = model.to(npu)(x.to(npu), src_key_padding_mask=padding.to(npu))
    keep = ~padding  # the CPU fast path writes zeros at padded positions; compare the real tokens
    torch.testing.assert_close(actual.cpu()[keep], expected[keep], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("cell,kernel", [(nn.LSTM, "DynamicRNN"), (nn.GRU, "DynamicGRUV2")])
def test_nn_lstm_and_gru_are_one_fused_kernel_per_layer_and_direction(npu, cell, kernel, packed):
    """Note [nn.LSTM on DynamicRNN]: a 2-layer bidirectional nn.LSTM / nn.GRU over 10 steps launches 4
    DynamicRNNs / DynamicGRUV2s forward and 4 of their gradient kernels backward (PyTorch's
    decomposition: ~970 launches forward), and its output, final state and every gradient equal the
    CPU's."""
    torch.manual_seed(5)
    cpu_rnn = cell(8, 16, num_layers=2, bidirectional=True)
    npu_rnn = cell(8, 16, num_layers=2, bidirectional=True).to(npu)
    npu_rnn.load_state_dict(cpu_rnn.state_dict())
    x = torch.randn(10, 4, 8)
    lengths = torch.tensor([10, 7, 7, 2])

    def run(rnn, inp):
        if packed:
            inp = nn.utils.rnn.pack_padded_sequence(inp, lengths)
        out, state = rnn(inp)
        if packed:
            out, _ = nn.utils.rnn.pad_packed_sequence(out)
        return (out,) + (state if isinstance(state, tuple) else (state,))

    want = run(cpu_rnn, x)
    sum(t.square().sum() for t in want).backward()
    with torch.npu.op_records() as forward:
        got = run(npu_rnn, x.to(npu))
    loss = sum(t.square().sum() for t in got)
    with torch.npu.op_records() as backward:
        loss.backward()
    launched = [r.op_type for r in forward.records]
    assert launched.count(kernel) == 4 and "MatMul" not in launched and "Sigmoid" not in launched, launched
    assert [r.op_type for r in backward.records].count(kernel + "Grad") == 4
    for g, w in zip(got, want):
        torch.testing.assert_close(g.cpu(), w, rtol=1e-4, atol=1e-5)
    for (name, p), q in zip(npu_rnn.named_parameters(), cpu_rnn.parameters()):
        torch.testing.assert_close(p.grad.cpu(), q.grad, rtol=1e-4, atol=1e-5, msg=name)
