// torch_npu's recurrent custom ops: npu_lstm / npu_lstm_backward, npu_lstm_cell /
// npu_lstm_cell_backward and npu_gru / npu_gru_backward, one DynamicRNN /
// DynamicGRUV2 each way (DynamicRnn.h), with torch_npu's 1.11 signatures,
// defaults and outputs.
//
// Note [torch_npu's npu_lstm and npu_gru]
// Both run ONE layer direction, as torch_npu's (its docs: one layer; not
// bidirectional, not batch_first — rejected here with a clear error; dropout
// has no layer to act between and is ignored). Shapes are the kernels' in ND:
//   npu_lstm(input [T,B,I], weight [I+H,4H], bias [4H], seqMask, h, c [1,B,H] or [B,H], ...,
//            flagSeq, direction) -> (y, h, c, i, j, f, o, tanhc), each [T,B,H]
//   npu_gru(input, hx, weight_input [I,3H], weight_hidden [H,3H], bias_input, bias_hidden [3H],
//           seq_length, ...) -> (y, output_h, update, reset, new, hidden_new), each [T,B,H]
//   npu_lstm_cell(input [B,I], w_ih [4H,I], w_hh [4H,H], h, c [B,H] or [1,B,H], bias [4H] or None)
//            -> (y, h, c, i, j, f, o, tanhc), each [1,B,H]: one step of DynamicRNN on
//            w = cat([w_ih, w_hh], 1).t() (torch's gate order, as nn.LSTMCell's weights);
//            npu_lstm_cell_backward -> (d input, d w_ih, d w_hh, d bias, d h, d c)
// npu_lstm_data(input, batch_sizes, weight, bias, seq_mask, h, c, ...) is npu_lstm on a padded
// [T, B, I] input whose row lengths come from a PackedSequence's batch_sizes [T]
// (torch_npu's packed-sequence LSTM layer; its num_layers / bidirectional flags
// describe the network it belongs to, and only batch_first is refused).
// direction = True runs the steps backwards (REDIRECTIONAL). Row lengths:
// npu_lstm's seqMask when flagSeq (torch_npu's [T,B,H] 0/1 mask, or an
// integer [B] of lengths); npu_gru's seq_length (an integer [B]; empty: all
// T). Differentiable in every float input. Unlike torch_npu, whose backward
// takes only the last step of the h / c gradients, the gradient of every
// step's h and c output counts (Note [State gradients of the recurrent
// kernels] in the simulator), so using intermediate states is never silently
// wrong. npu_lstm_backward / npu_gru_backward have no direction argument
// (torch_npu's schema): they are the UNIDIRECTIONAL gradient.
#include <torch/library.h>

#include "DynamicRnn.h"
#include "NPUCustomFunctions.h"

namespace at_npu {
namespace native {
namespace {

void checkOneLayer(const char* op, int64_t num_layers, bool bidirectional, bool batch_first) {
  TORCH_CHECK(num_layers == 1 && !bidirectional && !batch_first, op,
              ": runs one time-major layer direction, as torch_npu's (num_layers=1, bidirectional=False, "
              "batch_first=False); got num_layers=",
              num_layers, ", bidirectional=", bidirectional, ", batch_first=", batch_first,
              " (nn.LSTM / nn.GRU on the NPU run any of them on the same kernels)");
}

// A [1, B, H] view of an initial state given as [1, B, H] or [B, H].
at::Tensor stateOf(const char* op, const char* name, const at::Tensor& s, const at::Tensor& x, int64_t hidden) {
  TORCH_CHECK(x.dim() == 3, op, ": input must be [T, B, I], got shape ", x.sizes());
  const std::vector<int64_t> want = {1, x.size(1), hidden};
  TORCH_CHECK(s.numel() == x.size(1) * hidden && (s.dim() == 2 || s.dim() == 3) && s.size(-1) == hidden, op, ": ", name,
              " must be [1, B, H] or [B, H] = ", at::IntArrayRef(want), ", got ", s.sizes());
  TORCH_CHECK(s.scalar_type() == x.scalar_type() && s.device() == x.device(), op, ": ", name, " must be a ",
              x.scalar_type(), " tensor on ", x.device(), ", got ", s.scalar_type(), " on ", s.device());
  return s.reshape(want);
}

// Row lengths as the kernels take them (int32 [B] on x's device), from an
// integer [B] tensor or a [T, B, ...] 0/1 mask; undefined when absent.
at::Tensor lengthsOf(const char* op, const at::Tensor& given, const at::Tensor& x) {
  if (!given.defined() || given.numel() == 0) return at::Tensor();
  at::Tensor lengths = given;
  if (at::isFloatingType(given.scalar_type())) {
    TORCH_CHECK(given.dim() >= 2 && given.size(0) == x.size(0) && given.size(1) == x.size(1), op,
                ": a float sequence mask must be [T, B, ...] = [", x.size(0), ", ", x.size(1), ", ...], got ",
                given.sizes());
    lengths = given.reshape({x.size(0), x.size(1), -1}).select(2, 0).ne(0).sum(0);
  }
  TORCH_CHECK(lengths.dim() == 1 && lengths.size(0) == x.size(1), op, ": sequence lengths must be [B] = [", x.size(1),
              "], got ", lengths.sizes());
  return lengths.to(x.device(), at::kInt);
}

// Row lengths (int32 [B] on x's device) from a PackedSequence's batch sizes
// [T] (non-increasing counts, on any device): row b runs the steps t with
// batch_sizes[t] > b.
at::Tensor lengthsFromBatchSizes(const char* op, const at::Tensor& batch_sizes, const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 3, op, ": input must be [T, B, I], got shape ", x.sizes());
  TORCH_CHECK(batch_sizes.dim() == 1 && batch_sizes.size(0) == x.size(0) &&
                  !at::isFloatingType(batch_sizes.scalar_type()) && batch_sizes.scalar_type() != at::kBool,
              op, ": batch_sizes must be an integer [T] = [", x.size(0), "] tensor (a PackedSequence's), got ",
              batch_sizes.scalar_type(), " of shape ", batch_sizes.sizes());
  const at::Tensor counts = batch_sizes.to(at::kCPU, at::kLong).contiguous();
  const int64_t* v = counts.data_ptr<int64_t>();
  std::vector<int32_t> lengths(static_cast<size_t>(x.size(1)), 0);
  for (int64_t t = 0; t < counts.numel(); ++t) {
    TORCH_CHECK(v[t] >= 0 && v[t] <= x.size(1) && (t == 0 || v[t] <= v[t - 1]), op,
                ": batch_sizes must be non-increasing counts in [0, B = ", x.size(1), "] (sequences sorted by length, ",
                "as pack_padded_sequence makes them), got ", counts);
    for (int64_t b = 0; b < v[t]; ++b) ++lengths[static_cast<size_t>(b)];
  }
  return at::tensor(lengths, at::kInt).to(x.device());
}

// The checked initial states and row lengths of one npu_lstm / npu_gru call.
struct LayerArgs {
  at::Tensor h0, c0, lengths;
};

LayerArgs lstmArgs(const char* op, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& seqMask,
                   const at::Tensor& h, const at::Tensor& c, int64_t num_layers, bool bidirectional, bool batch_first,
                   bool flagSeq) {
  checkOneLayer(op, num_layers, bidirectional, batch_first);
  TORCH_CHECK(weight.dim() == 2 && weight.size(1) % 4 == 0, op, ": weight must be [I + H, 4H], got ", weight.sizes());
  const int64_t hidden = weight.size(1) / 4;
  return {stateOf(op, "h", h, input, hidden), stateOf(op, "c", c, input, hidden),
          flagSeq ? lengthsOf(op, seqMask, input) : at::Tensor()};
}

LayerArgs gruArgs(const at::Tensor& input, const at::Tensor& hx, const at::Tensor& weight_hidden,
                  const at::Tensor& seq_length, int64_t num_layers, bool bidirectional, bool batch_first) {
  constexpr const char* op = "npu_gru";
  checkOneLayer(op, num_layers, bidirectional, batch_first);
  TORCH_CHECK(weight_hidden.dim() == 2, op, ": weight_hidden must be [H, 3H], got ", weight_hidden.sizes());
  return {stateOf(op, "hx", hx, input, weight_hidden.size(0)), at::Tensor(), lengthsOf(op, seq_length, input)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
lstmWithAutograd(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& seqMask,
                 const at::Tensor& h, const at::Tensor& c, bool has_biases, int64_t num_layers, double dropout,
                 bool train, bool bidirectional, bool batch_first, bool flagSeq, bool direction) {
  (void)has_biases, (void)dropout, (void)train;
  const LayerArgs a =
      lstmArgs("npu_lstm", input, weight, seqMask, h, c, num_layers, bidirectional, batch_first, flagSeq);
  const std::vector<at::Tensor> o = lstmLayerSteps(input, weight, bias, a.h0, a.c0, a.lengths, direction);
  return {o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]};
}

// npu_lstm_data: npu_lstm's layer with the row lengths of batch_sizes (seq_mask and flag_seq are what torch_npu
// derives from them; the lengths here come from batch_sizes alone). num_layers and bidirectional describe the
// whole network torch_npu's packed LSTM runs layer by layer (it passes 2 and True): one layer direction runs,
// chosen by `direction`; only batch_first is refused.
LayerArgs lstmDataArgs(const at::Tensor& input, const at::Tensor& batch_sizes, const at::Tensor& weight,
                       const at::Tensor& h, const at::Tensor& c, bool batch_first) {
  constexpr const char* op = "npu_lstm_data";
  LayerArgs a = lstmArgs(op, input, weight, at::Tensor(), h, c, 1, false, batch_first, false);
  a.lengths = lengthsFromBatchSizes(op, batch_sizes, input);
  return a;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
lstmDataWithAutograd(const at::Tensor& input, const at::Tensor& batch_sizes, const at::Tensor& weight,
                     const at::Tensor& bias, const at::Tensor& seq_mask, const at::Tensor& h, const at::Tensor& c,
                     bool has_biases, int64_t num_layers, double dropout, bool train, bool bidirectional,
                     bool batch_first, bool flag_seq, bool direction) {
  (void)seq_mask, (void)has_biases, (void)dropout, (void)train, (void)flag_seq, (void)num_layers, (void)bidirectional;
  const LayerArgs a = lstmDataArgs(input, batch_sizes, weight, h, c, batch_first);
  const std::vector<at::Tensor> o = lstmLayerSteps(input, weight, bias, a.h0, a.c0, a.lengths, direction);
  return {o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> gruWithAutograd(
    const at::Tensor& input, const at::Tensor& hx, const at::Tensor& weight_input, const at::Tensor& weight_hidden,
    const at::Tensor& bias_input, const at::Tensor& bias_hidden, const at::Tensor& seq_length, bool has_biases,
    int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
  (void)has_biases, (void)dropout, (void)train;
  const LayerArgs a = gruArgs(input, hx, weight_hidden, seq_length, num_layers, bidirectional, batch_first);
  const std::vector<at::Tensor> o =
      gruLayerSteps(input, weight_input, weight_hidden, bias_input, bias_hidden, a.h0, a.lengths, false);
  return {o[0], o[1], o[2], o[3], o[4], o[5]};
}

// npu_lstm_cell's operands as one DynamicRNN step: x [1, B, I], w = cat([w_ih, w_hh], 1).t(),
// b (zeros without a bias), h0 / c0 [1, B, H].
struct CellArgs {
  at::Tensor x, w, b, h0, c0;
};

CellArgs cellArgs(const char* op, const at::Tensor& input, const at::Tensor& w_ih, const at::Tensor& w_hh,
                  const at::Tensor& h, const at::Tensor& c, const c10::optional<at::Tensor>& bias) {
  TORCH_CHECK(input.dim() == 2, op, ": input must be [B, I], got ", input.sizes());
  TORCH_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2 && w_hh.size(0) == 4 * w_hh.size(1) && w_ih.size(0) == w_hh.size(0) &&
                  w_ih.size(1) == input.size(1),
              op, ": w_ih must be [4H, I] = [4H, ", input.size(1), "] and w_hh [4H, H], got ", w_ih.sizes(), " and ",
              w_hh.sizes());
  for (const at::Tensor* t : {&w_ih, &w_hh})
    TORCH_CHECK(t->scalar_type() == input.scalar_type() && t->device() == input.device(), op, ": the weights must be ",
                input.scalar_type(), " tensors on ", input.device(), ", got ", t->scalar_type(), " on ", t->device());
  const int64_t hidden = w_hh.size(1);
  CellArgs a;
  a.x = input.unsqueeze(0);
  a.h0 = stateOf(op, "h", h, a.x, hidden);
  a.c0 = stateOf(op, "c", c, a.x, hidden);
  a.w = at::cat({w_ih, w_hh}, 1).t();
  if (bias.has_value() && bias->defined()) {
    TORCH_CHECK(bias->sizes() == at::IntArrayRef({4 * hidden}), op, ": bias must be [4H] = [", 4 * hidden, "], got ",
                bias->sizes());
    a.b = *bias;
  } else {
    a.b = at::zeros({4 * hidden}, input.options());
  }
  return a;
}

using Lstm8 =
    std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

Lstm8 lstmCellWithAutograd(const at::Tensor& input, const at::Tensor& w_ih, const at::Tensor& w_hh, const at::Tensor& h,
                           const at::Tensor& c, const c10::optional<at::Tensor>& bias) {
  const CellArgs a = cellArgs("npu_lstm_cell", input, w_ih, w_hh, h, c, bias);
  const std::vector<at::Tensor> o = lstmLayerSteps(a.x, a.w, a.b, a.h0, a.c0, at::Tensor(), false);
  return {o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]};
}

// A missing gradient of outputs shaped like `like`: zeros.
at::Tensor gradOr(const c10::optional<at::Tensor>& g, const at::Tensor& like) {
  return g.has_value() && g->defined() ? *g : at::zeros_like(like);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
NPUCustomFunctions::npu_lstm(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                             const at::Tensor& seqMask, const at::Tensor& h, const at::Tensor& c, bool has_biases,
                             int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first,
                             bool flagSeq, bool direction) {
  (void)has_biases, (void)dropout, (void)train;  // the bias is always an input; one layer: nothing to drop between
  const LayerArgs a =
      lstmArgs("npu_lstm", input, weight, seqMask, h, c, num_layers, bidirectional, batch_first, flagSeq);
  const DynamicRnnOutputs o = dynamicRnn(input, weight, bias, a.h0, a.c0, a.lengths, direction);
  return {o.y, o.h, o.c, o.i, o.j, o.f, o.o, o.tanhc};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
NPUCustomFunctions::npu_lstm_data(const at::Tensor& input, const at::Tensor& batch_sizes, const at::Tensor& weight,
                                  const at::Tensor& bias, const at::Tensor& seq_mask, const at::Tensor& h,
                                  const at::Tensor& c, bool has_biases, int64_t num_layers, double dropout, bool train,
                                  bool bidirectional, bool batch_first, bool flag_seq, bool direction) {
  (void)seq_mask, (void)has_biases, (void)dropout, (void)train, (void)flag_seq, (void)num_layers, (void)bidirectional;
  const LayerArgs a = lstmDataArgs(input, batch_sizes, weight, h, c, batch_first);
  const DynamicRnnOutputs o = dynamicRnn(input, weight, bias, a.h0, a.c0, a.lengths, direction);
  return {o.y, o.h, o.c, o.i, o.j, o.f, o.o, o.tanhc};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_lstm_backward(
    const c10::optional<at::Tensor>& grady, const c10::optional<at::Tensor>& gradh,
    const c10::optional<at::Tensor>& gradc, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
    const at::Tensor& hx, const at::Tensor& cx, const at::Tensor& y_output, const at::Tensor& h_output,
    const at::Tensor& c_output, const at::Tensor& i, const at::Tensor& j, const at::Tensor& f, const at::Tensor& o,
    const at::Tensor& tanhc) {
  constexpr const char* op = "npu_lstm_backward";
  const int64_t hidden = h_output.size(-1);
  const at::Tensor h0 = stateOf(op, "hx", hx, input, hidden), c0 = stateOf(op, "cx", cx, input, hidden);
  const DynamicRnnOutputs fwd{y_output, h_output, c_output, i, j, f, o, tanhc};
  auto [dx, dw, db, dh, dc] = dynamicRnnGrad(input, weight, bias, h0, c0, at::Tensor(), false, fwd,
                                             gradOr(grady, y_output), gradOr(gradh, h_output), gradOr(gradc, c_output));
  return {dx, dw, db, dh.reshape(hx.sizes()), dc.reshape(cx.sizes())};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
NPUCustomFunctions::npu_lstm_cell(const at::Tensor& input, const at::Tensor& w_ih, const at::Tensor& w_hh,
                                  const at::Tensor& h, const at::Tensor& c, const c10::optional<at::Tensor>& bias) {
  const CellArgs a = cellArgs("npu_lstm_cell", input, w_ih, w_hh, h, c, bias);
  const DynamicRnnOutputs o = dynamicRnn(a.x, a.w, a.b, a.h0, a.c0, at::Tensor(), false);
  return {o.y, o.h, o.c, o.i, o.j, o.f, o.o, o.tanhc};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>
NPUCustomFunctions::npu_lstm_cell_backward(const c10::optional<at::Tensor>& grady,
                                           const c10::optional<at::Tensor>& gradh,
                                           const c10::optional<at::Tensor>& gradc, const at::Tensor& input,
                                           const at::Tensor& w_ih, const at::Tensor& w_hh, const at::Tensor& h,
                                           const at::Tensor& c, const at::Tensor& y_output, const at::Tensor& h_output,
                                           const at::Tensor& c_output, const at::Tensor& i, const at::Tensor& j,
                                           const at::Tensor& f, const at::Tensor& o, const at::Tensor& tanhc) {
  const CellArgs a = cellArgs("npu_lstm_cell_backward", input, w_ih, w_hh, h, c, c10::nullopt);
  const DynamicRnnOutputs fwd{y_output, h_output, c_output, i, j, f, o, tanhc};
  auto [dx, dw, db, dh, dc] = dynamicRnnGrad(a.x, a.w, a.b, a.h0, a.c0, at::Tensor(), false, fwd,
                                             gradOr(grady, y_output), gradOr(gradh, h_output), gradOr(gradc, c_output));
  const at::Tensor dw_t = dw.t();  // [4H, I + H]: d w_ih, then d w_hh
  return {dx.squeeze(0),
          dw_t.narrow(1, 0, input.size(1)),
          dw_t.narrow(1, input.size(1), w_hh.size(1)),
          db,
          dh.reshape(h.sizes()),
          dc.reshape(c.sizes())};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_gru(
    const at::Tensor& input, const at::Tensor& hx, const at::Tensor& weight_input, const at::Tensor& weight_hidden,
    const at::Tensor& bias_input, const at::Tensor& bias_hidden, const at::Tensor& seq_length, bool has_biases,
    int64_t num_layers, double dropout, bool train, bool bidirectional, bool batch_first) {
  (void)has_biases, (void)dropout, (void)train;
  const LayerArgs a = gruArgs(input, hx, weight_hidden, seq_length, num_layers, bidirectional, batch_first);
  const DynamicGruOutputs o =
      dynamicGru(input, weight_input, weight_hidden, bias_input, bias_hidden, a.h0, a.lengths, false);
  return {o.y, o.h, o.update, o.reset, o.new_gate, o.hidden_new};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_gru_backward(
    const c10::optional<at::Tensor>& grady, const c10::optional<at::Tensor>& gradh, const at::Tensor& input,
    const at::Tensor& weight_input, const at::Tensor& weight_hidden, const at::Tensor& bias_input,
    const at::Tensor& bias_hidden, const at::Tensor& seq_length, const at::Tensor& hx, const at::Tensor& y_output,
    const at::Tensor& h_output, const at::Tensor& output_updata, const at::Tensor& output_reset,
    const at::Tensor& output_new, const at::Tensor& hidden_new) {
  constexpr const char* op = "npu_gru_backward";
  (void)bias_input, (void)bias_hidden;  // the gradient does not read the biases
  const at::Tensor h0 = stateOf(op, "hx", hx, input, weight_hidden.size(0));
  const DynamicGruOutputs fwd{y_output, h_output, output_updata, output_reset, output_new, hidden_new};
  auto [dx, dw_i, dw_h, db_i, db_h, dh] =
      dynamicGruGrad(input, weight_input, weight_hidden, h0, lengthsOf(op, seq_length, input), false, fwd,
                     gradOr(grady, y_output), gradOr(gradh, h_output));
  return {dw_i, dw_h, dx, db_i, db_h, dh.reshape(hx.sizes())};
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_lstm", TORCH_FN(lstmWithAutograd));
  m.impl("npu_lstm_data", TORCH_FN(lstmDataWithAutograd));
  m.impl("npu_lstm_cell", TORCH_FN(lstmCellWithAutograd));
  m.impl("npu_gru", TORCH_FN(gruWithAutograd));
}

}  // namespace native
}  // namespace at_npu
