// DynamicGRUV2 and DynamicGRUV2Grad (OPS.md "Recurrent kernels"): a whole GRU
// layer direction in one AI Core launch each way.
//
// Note [DynamicGRUV2 steps]
//   x [T, B, I], weight_input [I, 3H], weight_hidden [H, 3H] (torch's w_ih,
//   w_hh transposed), bias_input, bias_hidden [3H], init_h [1, B, H];
//   outputs y, output_h, update (z), reset (r), new (n), hidden_new, each
//   [T, B, H].
// The 3H columns are in `gate_order`: "zrh" (CANN's default) or "rzh"
// (torch's r, z, n, which torch_npu passes). With reset_after (the only
// form modelled, torch's), one step in fp32:
//   a = x_t · W_i + b_i;  g = h · W_h + b_h
//   r = sigmoid(a_r + g_r);  z = sigmoid(a_z + g_z)
//   hidden_new = g_n;  n = tanh(a_n + r * g_n)
//   h_t = (1 - z) * n + z * h
// x · W_i is one Cube product over all T·B rows, h · W_h one per step; every
// output rounded once to x's dtype and h carried as stored, as DynamicRNN
// (Note [DynamicRNN steps]), as are the direction and seq_length (Note
// [Sequence lengths of DynamicRNN]).
//
// Note [DynamicGRUV2 gradient]
// Steps in reverse order, carrying dh (from the input dh: [1, B, H], or every
// step's, Note [State gradients of the recurrent kernels]):
//   dh_t = dy_t + dh;  dn = dh_t (1 - z) (1 - n^2);  dz = dh_t (h_prev - n) z (1 - z)
//   dr = dn * hidden_new * r (1 - r)
//   da = [dr, dz, dn] (input side),  dg = [dr, dz, dn * r] (hidden side)
//   dh = dh_t * z + dg · W_h^T   (Cube, one product per step)
// da and dg are rounded to x's dtype, then dx = da · W_i^T, dw_input = x^T · da,
// dw_hidden = h_prev^T · dg, db_input = Σ da, db_hidden = Σ dg (pairwise).
#include <cmath>
#include <vector>

#include "ops/linalg/cube_gemm.h"
#include "ops/reduce/reduce_util.h"
#include "ops/rnn/rnn_util.h"

namespace ascend_sim {
namespace {

enum GruGate : int { kGateR = 0, kGateZ = 1, kGateN = 2 };

struct GruAttrs {
  bool reverse = false;
  int64_t gate_of[3] = {1, 0, 2};  // column block of r, z, n ("zrh")
};

GruAttrs gruAttrsOf(const OpCall& call) {
  if (!attrBool(call, "reset_after", true)) rejectAttr(call, "reset_after", "false", "true: torch's GRU");
  GruAttrs a;
  a.reverse = rnnReverseOf(call);
  rnnGateOrder(call, "zrh", "rzh", "rzh", a.gate_of);
  return a;
}

// The dimensions both directions read from x [T, B, I], weight_input [I, 3H],
// weight_hidden [H, 3H] and init_h [1, B, H], checked.
RnnDims gruWeightsOf(const OpCall& call, const TensorArg& x, const TensorArg& wi, const TensorArg& wh,
                     const TensorArg& init_h) {
  checkRnnInput(call, x);
  if (wh.shape.size() != 2 || wh.shape[1] != 3 * wh.shape[0])
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input weight_hidden must be [H, 3H], got " + shapeToString(wh.shape));
  const RnnDims d{x.shape[0], x.shape[1], x.shape[2], wh.shape[0]};
  checkRnnTensor(call, wi, "input weight_input", x, {d.i, 3 * d.h});
  checkRnnTensor(call, wh, "input weight_hidden", x, {d.h, 3 * d.h});
  checkRnnTensor(call, init_h, "input init_h", x, {1, d.b, d.h});
  return d;
}

// x, weight_input, weight_hidden, bias_input, bias_hidden, init_h at `in[0..5]`.
RnnDims gruDimsOf(const OpCall& call, const TensorArg* in) {
  const RnnDims d = gruWeightsOf(call, in[0], in[1], in[2], in[5]);
  checkRnnTensor(call, in[3], "input bias_input", in[0], {3 * d.h});
  checkRnnTensor(call, in[4], "input bias_hidden", in[0], {3 * d.h});
  return d;
}

// --- forward -----------------------------------------------------------------

enum GruOutput : int { kY = 0, kH, kUpdate, kReset, kNew, kHiddenNew, kGruOutputs };
const char* const kGruOutputNames[kGruOutputs] = {"output y",     "output output_h", "output update",
                                                  "output reset", "output new",      "output hidden_new"};

// inputs: x, weight_input, weight_hidden, bias_input, bias_hidden, init_h [, seq_length].
void validateDynamicGru(const OpCall& call) {
  checkArity(call, 6, 7, kGruOutputs);
  const RnnDims d = gruDimsOf(call, call.inputs.data());
  gruAttrsOf(call);
  checkRnnLengths(call, 6, d);
  for (int k = 0; k < kGruOutputs; ++k)
    checkRnnTensor(call, call.outputs[k], kGruOutputNames[k], call.inputs[0], {d.t, d.b, d.h});
  attrBool(call, "is_training", true);
}

void computeDynamicGru(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &wi = call.inputs[1], &wh = call.inputs[2];
  const RnnDims d = gruDimsOf(call, call.inputs.data());
  const GruAttrs a = gruAttrsOf(call);
  const std::vector<int64_t> len = rnnLengthsOf(call, 6, d);
  const int64_t n3 = 3 * d.h, bh = d.b * d.h;
  const CubeRounding rnd = cubeRoundingOf(call);
  UnitCounters cnt;
  std::vector<float> xw(static_cast<size_t>(d.t * d.b * n3), 0.0f), hw(static_cast<size_t>(d.b * n3), 0.0f);
  if (d.i > 0)
    LoadedCubeB(GmMatrix{wi.dtype, wi.data, 0, n3, 1}, d.i, n3, rnd, &cnt)
        .multiply(GmMatrix{x.dtype, x.data, 0, d.i, 1}, d.t * d.b, xw.data(), &cnt);
  const std::vector<float> bi = rnnLoad(call.inputs[3]), bhid = rnnLoad(call.inputs[4]);
  std::vector<float> h = rnnLoad(call.inputs[5]);
  std::vector<std::vector<float>> out(kGruOutputs, std::vector<float>(static_cast<size_t>(bh)));
  const LoadedCubeB w_h(GmMatrix{wh.dtype, wh.data, 0, n3, 1}, d.h, n3, rnd, &cnt);
  for (int64_t s = 0; s < d.t; ++s) {
    const int64_t t = rnnStepAt(d, a.reverse, s);
    if (d.h > 0) w_h.multiply(GmMatrix{ACL_FLOAT, h.data(), 0, d.h, 1}, d.b, hw.data(), &cnt);
    for (int64_t b = 0; b < d.b; ++b)
      for (int64_t u = 0; u < d.h; ++u) {
        const int64_t e = b * d.h + u;
        if (!rnnRowRuns(len, b, t)) {  // the state is carried; y and the gates are 0
          for (int k : {kY, kUpdate, kReset, kNew, kHiddenNew}) out[k][e] = 0.0f;
          out[kH][e] = h[e];
          continue;
        }
        const auto in = [&](int g) {
          const int64_t col = a.gate_of[g] * d.h + u;
          return xw[(t * d.b + b) * n3 + col] + bi[col];
        };
        const auto hid = [&](int g) {
          const int64_t col = a.gate_of[g] * d.h + u;
          return hw[b * n3 + col] + bhid[col];
        };
        const float r = rnnSigmoid(in(kGateR) + hid(kGateR)), z = rnnSigmoid(in(kGateZ) + hid(kGateZ));
        const float hn = hid(kGateN), n = std::tanh(in(kGateN) + r * hn);
        out[kReset][e] = r, out[kUpdate][e] = z, out[kHiddenNew][e] = hn, out[kNew][e] = n;
        out[kH][e] = out[kY][e] = (1.0f - z) * n + z * h[e];
      }
    for (int k = 0; k < kGruOutputs; ++k)
      storeFloat(call.outputs[k].dtype, call.outputs[k].data, t * bh, bh, out[k].data());
    loadFloat(x.dtype, call.outputs[kH].data, t * bh, 1, bh, h.data());
  }
  if (cnt.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costDynamicGru(const OpCall& call) {
  const RnnDims d = gruDimsOf(call, call.inputs.data());
  // x · W_i once, h · W_h per step; the gates, n and h: 10 passes over B x H.
  return rnnCost(call, d, {{d.t * d.b, 3 * d.h, d.i, 1}, {d.b, 3 * d.h, d.h, d.t}}, 10);
}

// --- gradient ------------------------------------------------------------------

// Inputs after the first six (x, weight_input, weight_hidden, y, init_h, h: see
// gradDimsOf), in CANN's order; seq_length (optional) last.
enum GruGradInput : int {
  kGX = 0,
  kGWi,
  kGWh,
  kGY,
  kGInitH,
  kGH,
  kGDy,
  kGDh,
  kGUpdate,
  kGReset,
  kGNew,
  kGHiddenNew,
  kGSeqLen
};
enum GruGradOutput : int { kDwi = 0, kDwh, kDbi, kDbh, kDx, kDhPrev, kGruGradOutputs };

RnnDims gruGradDimsOf(const OpCall& call) {
  return gruWeightsOf(call, call.inputs[kGX], call.inputs[kGWi], call.inputs[kGWh], call.inputs[kGInitH]);
}

void validateDynamicGruGrad(const OpCall& call) {
  checkArity(call, kGSeqLen, kGSeqLen + 1, kGruGradOutputs);
  const RnnDims d = gruGradDimsOf(call);
  gruAttrsOf(call);
  checkRnnLengths(call, kGSeqLen, d);
  const TensorArg& x = call.inputs[kGX];
  const Shape seq = {d.t, d.b, d.h};
  const std::pair<int, const char*> seq_inputs[] = {{kGY, "input y"},
                                                    {kGH, "input h"},
                                                    {kGDy, "input dy"},
                                                    {kGUpdate, "input update"},
                                                    {kGReset, "input reset"},
                                                    {kGNew, "input new"},
                                                    {kGHiddenNew, "input hidden_new"}};
  for (const auto& [k, name] : seq_inputs) checkRnnTensor(call, call.inputs[k], name, x, seq);
  checkStateGradient(call, call.inputs[kGDh], "input dh", x, d);
  checkRnnTensor(call, call.outputs[kDwi], "output dw_input", x, {d.i, 3 * d.h});
  checkRnnTensor(call, call.outputs[kDwh], "output dw_hidden", x, {d.h, 3 * d.h});
  checkRnnTensor(call, call.outputs[kDbi], "output db_input", x, {3 * d.h});
  checkRnnTensor(call, call.outputs[kDbh], "output db_hidden", x, {3 * d.h});
  checkRnnTensor(call, call.outputs[kDx], "output dx", x, x.shape);
  checkRnnTensor(call, call.outputs[kDhPrev], "output dh_prev", x, {1, d.b, d.h});
}

void computeDynamicGruGrad(const OpCall& call) {
  const std::vector<TensorArg>& in = call.inputs;
  const TensorArg &x = in[kGX], &wi = in[kGWi], &wh = in[kGWh];
  const RnnDims d = gruGradDimsOf(call);
  const GruAttrs a = gruAttrsOf(call);
  const std::vector<int64_t> len = rnnLengthsOf(call, kGSeqLen, d);
  const int64_t n3 = 3 * d.h, bh = d.b * d.h, rows = d.t * d.b;
  const CubeRounding rnd = cubeRoundingOf(call);
  UnitCounters cnt;
  const std::vector<float> hs = rnnLoad(in[kGH]), dy = rnnLoad(in[kGDy]), z = rnnLoad(in[kGUpdate]),
                           r = rnnLoad(in[kGReset]), n = rnnLoad(in[kGNew]), hn = rnnLoad(in[kGHiddenNew]),
                           init_h = rnnLoad(in[kGInitH]);
  std::vector<float> dh = initialStateGradient(in[kGDh], d), rec(static_cast<size_t>(bh));
  std::vector<float> da(static_cast<size_t>(rows * n3), 0.0f), dg(static_cast<size_t>(rows * n3), 0.0f),
      h_prev(static_cast<size_t>(rows * d.h), 0.0f);
  const LoadedCubeB w_h_t(GmMatrix{wh.dtype, wh.data, 0, 1, n3}, n3, d.h, rnd, &cnt);  // W_h^T, once
  for (int64_t s = d.t - 1; s >= 0; --s) {
    const int64_t t = rnnStepAt(d, a.reverse, s), prev = a.reverse ? t + 1 : t - 1;
    addStepGradient(in[kGDh], d, t, dh);
    for (int64_t b = 0; b < d.b; ++b) {
      if (!rnnRowRuns(len, b, t)) continue;  // padded: da, dg stay 0, dh passes through
      for (int64_t u = 0; u < d.h; ++u) {
        const int64_t e = b * d.h + u, at = t * bh + e, row = (t * d.b + b) * n3;
        const float hp = s == 0 ? init_h[e] : hs[prev * bh + e];
        h_prev[(t * d.b + b) * d.h + u] = hp;
        const float dh_t = dy[at] + dh[e];
        const float dn = dh_t * (1.0f - z[at]) * (1.0f - n[at] * n[at]);
        const float dz = dh_t * (hp - n[at]) * z[at] * (1.0f - z[at]);
        const float dr = dn * hn[at] * r[at] * (1.0f - r[at]);
        da[row + a.gate_of[kGateR] * d.h + u] = dg[row + a.gate_of[kGateR] * d.h + u] = dr;
        da[row + a.gate_of[kGateZ] * d.h + u] = dg[row + a.gate_of[kGateZ] * d.h + u] = dz;
        da[row + a.gate_of[kGateN] * d.h + u] = dn;
        dg[row + a.gate_of[kGateN] * d.h + u] = dn * r[at];
        dh[e] = dh_t * z[at];  // the direct path; the product's part is added below
      }
    }
    rnnRoundTo(x.dtype, da.data() + t * d.b * n3, d.b * n3);
    rnnRoundTo(x.dtype, dg.data() + t * d.b * n3, d.b * n3);
    if (bh == 0) continue;
    w_h_t.multiply(GmMatrix{ACL_FLOAT, dg.data(), t * d.b * n3, n3, 1}, d.b, rec.data(), &cnt);
    for (int64_t b = 0; b < d.b; ++b)
      if (rnnRowRuns(len, b, t))
        for (int64_t e = b * d.h; e < (b + 1) * d.h; ++e) dh[e] += rec[e];
  }
  storeFloat(x.dtype, call.outputs[kDhPrev].data, 0, bh, dh.data());
  std::vector<float> dx(static_cast<size_t>(rows * d.i), 0.0f), dwi(static_cast<size_t>(d.i * n3), 0.0f),
      dwh(static_cast<size_t>(d.h * n3), 0.0f), dbi(static_cast<size_t>(n3), 0.0f), dbh(static_cast<size_t>(n3), 0.0f);
  const GmMatrix da_m{ACL_FLOAT, da.data(), 0, n3, 1}, dg_m{ACL_FLOAT, dg.data(), 0, n3, 1};
  if (rows > 0 && d.i > 0 && n3 > 0) {
    LoadedCubeB(GmMatrix{wi.dtype, wi.data, 0, 1, n3}, n3, d.i, rnd, &cnt).multiply(da_m, rows, dx.data(), &cnt);
    LoadedCubeB(da_m, rows, n3, rnd, &cnt).multiply(GmMatrix{x.dtype, x.data, 0, 1, d.i}, d.i, dwi.data(), &cnt);
  }
  if (rows > 0 && n3 > 0) {
    LoadedCubeB(dg_m, rows, n3, rnd, &cnt)
        .multiply(GmMatrix{ACL_FLOAT, h_prev.data(), 0, 1, d.h}, d.h, dwh.data(), &cnt);
    const int64_t block = reduceBlockElems(x.dtype);
    reduceColumnsFloat(da.data(), rows, n3, block, ReduceKind::kSum, dbi.data());
    reduceColumnsFloat(dg.data(), rows, n3, block, ReduceKind::kSum, dbh.data());
  }
  storeFloat(x.dtype, call.outputs[kDx].data, 0, rows * d.i, dx.data());
  storeFloat(x.dtype, call.outputs[kDwi].data, 0, d.i * n3, dwi.data());
  storeFloat(x.dtype, call.outputs[kDwh].data, 0, d.h * n3, dwh.data());
  storeFloat(x.dtype, call.outputs[kDbi].data, 0, n3, dbi.data());
  storeFloat(x.dtype, call.outputs[kDbh].data, 0, n3, dbh.data());
  if (cnt.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costDynamicGruGrad(const OpCall& call) {
  const RnnDims d = gruGradDimsOf(call);
  const int64_t n3 = 3 * d.h, rows = d.t * d.b;
  // dh per step; dx; dw_input and dw_hidden. The gate gradients and dh: 12 passes over B x H.
  return rnnCost(call, d, {{d.b, d.h, n3, d.t}, {rows, d.i, n3, 1}, {d.i + d.h, n3, rows, 1}}, 12);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DynamicGRUV2", &validateDynamicGru, &computeDynamicGru, &costDynamicGru});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DynamicGRUV2Grad", &validateDynamicGruGrad, &computeDynamicGruGrad,
                                     &costDynamicGruGrad});

}  // namespace
}  // namespace ascend_sim
