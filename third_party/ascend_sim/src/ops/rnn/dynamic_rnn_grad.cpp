// DynamicRNNGrad (OPS.md "Recurrent kernels"): the gradient of one DynamicRNN
// launch in one launch, from the forward's saved outputs (nothing is
// recomputed; Note [DynamicRNN steps] in ops/rnn/rnn_util.h).
//
// Note [DynamicRNN gradient]
// Steps run in the reverse of the forward's order, carrying dh and dc (from
// the inputs dh, dc: the gradient of the final state, [1, B, H], or of every
// step's state, Note [State gradients of the recurrent kernels]):
//   dh_t = dy_t + dh;  dc_t = dc + dh_t * o * (1 - tanhc^2)
//   dg_o = dh_t * tanhc * o (1 - o);   dg_i = dc_t * j * i (1 - i)
//   dg_j = dc_t * i * (1 - j^2);       dg_f = dc_t * c_prev * f (1 - f)
//   dc = dc_t * f;  dh = dg · W_h^T (Cube, one product per step)
// with c_prev / h_prev the state before the step (init_c / init_h first).
// The gate gradients dg [T·B, 4H] are rounded to x's dtype (the kernel keeps
// them in GM for the Cube) and then give, one Cube product each:
//   dx = dg · W_x^T,  dw = [x; h_prev]^T · dg  (both halves of w),
// and db = the column sums of dg (fp32, Note [Pairwise blocks]); dh_prev and
// dc_prev are the carried dh and dc after the first step. A padded step (Note
// [Sequence lengths of DynamicRNN]) has dg = 0 and passes dh, dc through.
#include <cmath>
#include <vector>

#include "ops/linalg/cube_gemm.h"
#include "ops/reduce/reduce_util.h"
#include "ops/rnn/rnn_util.h"

namespace ascend_sim {
namespace {

// Inputs, in CANN's order; seq_length (optional) last.
enum GradInput : int { kX = 0, kW, kB, kYIn, kInitH, kInitC, kH, kC, kDy, kDh, kDc, kI, kJ, kF, kO, kTanhC, kSeqLen };
// Outputs.
enum GradOutput : int { kDw = 0, kDb, kDx, kDhPrev, kDcPrev, kGradOutputs };

RnnDims gradDimsOf(const OpCall& call) {
  const std::vector<TensorArg>& in = call.inputs;
  return rnnDimsOf(call, in[kX], in[kW], in[kB], in[kInitH], in[kInitC]);
}

void validateDynamicRnnGrad(const OpCall& call) {
  checkArity(call, kSeqLen, kSeqLen + 1, kGradOutputs);
  const RnnDims d = gradDimsOf(call);
  rnnAttrsOf(call);
  checkRnnLengths(call, kSeqLen, d);
  const TensorArg& x = call.inputs[kX];
  const Shape seq = {d.t, d.b, d.h}, state = {1, d.b, d.h};
  const std::pair<int, const char*> seq_inputs[] = {{kYIn, "input y"}, {kH, "input h"}, {kC, "input c"},
                                                    {kDy, "input dy"}, {kI, "input i"}, {kJ, "input j"},
                                                    {kF, "input f"},   {kO, "input o"}, {kTanhC, "input tanhct"}};
  for (const auto& [k, name] : seq_inputs) checkRnnTensor(call, call.inputs[k], name, x, seq);
  checkStateGradient(call, call.inputs[kDh], "input dh", x, d);
  checkStateGradient(call, call.inputs[kDc], "input dc", x, d);
  checkRnnTensor(call, call.outputs[kDw], "output dw", x, call.inputs[kW].shape);
  checkRnnTensor(call, call.outputs[kDb], "output db", x, {4 * d.h});
  checkRnnTensor(call, call.outputs[kDx], "output dx", x, x.shape);
  checkRnnTensor(call, call.outputs[kDhPrev], "output dh_prev", x, state);
  checkRnnTensor(call, call.outputs[kDcPrev], "output dc_prev", x, state);
}

void computeDynamicRnnGrad(const OpCall& call) {
  const std::vector<TensorArg>& in = call.inputs;
  const TensorArg &x = in[kX], &w = in[kW];
  const RnnDims d = gradDimsOf(call);
  const RnnAttrs a = rnnAttrsOf(call);
  const std::vector<int64_t> len = rnnLengthsOf(call, kSeqLen, d);
  const int64_t n4 = 4 * d.h, bh = d.b * d.h, rows = d.t * d.b;
  const CubeRounding rnd = cubeRoundingOf(call);
  UnitCounters cnt;
  const std::vector<float> hs = rnnLoad(in[kH]), cs = rnnLoad(in[kC]), dy = rnnLoad(in[kDy]), gi = rnnLoad(in[kI]),
                           gj = rnnLoad(in[kJ]), gf = rnnLoad(in[kF]), go = rnnLoad(in[kO]),
                           tanhc = rnnLoad(in[kTanhC]), init_h = rnnLoad(in[kInitH]), init_c = rnnLoad(in[kInitC]);
  std::vector<float> dh = initialStateGradient(in[kDh], d), dc = initialStateGradient(in[kDc], d),
                     rec(static_cast<size_t>(bh));
  std::vector<float> dg(static_cast<size_t>(rows * n4), 0.0f), h_prev(static_cast<size_t>(rows * d.h), 0.0f);
  // W_h^T: element (k, n) = w[(I + n) * 4H + k], loaded once for all steps.
  const LoadedCubeB w_h_t(GmMatrix{w.dtype, w.data, d.i * n4, 1, n4}, n4, d.h, rnd, &cnt);
  for (int64_t s = d.t - 1; s >= 0; --s) {
    const int64_t t = rnnStepAt(d, a.reverse, s);
    addStepGradient(in[kDh], d, t, dh);
    addStepGradient(in[kDc], d, t, dc);
    const bool first = s == 0;
    const int64_t prev = a.reverse ? t + 1 : t - 1;
    for (int64_t bi = 0; bi < d.b; ++bi) {
      if (!rnnRowRuns(len, bi, t)) continue;  // padded: dg stays 0, dh and dc pass through
      for (int64_t u = 0; u < d.h; ++u) {
        const int64_t e = bi * d.h + u, at = t * bh + e;
        const float c_prev = first ? init_c[e] : cs[prev * bh + e];
        h_prev[(t * d.b + bi) * d.h + u] = first ? init_h[e] : hs[prev * bh + e];
        const float dh_t = dy[at] + dh[e];
        const float dc_t = dc[e] + dh_t * go[at] * (1.0f - tanhc[at] * tanhc[at]);
        float* row = dg.data() + (t * d.b + bi) * n4;
        row[a.gate_of[kGateO] * d.h + u] = dh_t * tanhc[at] * go[at] * (1.0f - go[at]);
        row[a.gate_of[kGateI] * d.h + u] = dc_t * gj[at] * gi[at] * (1.0f - gi[at]);
        row[a.gate_of[kGateJ] * d.h + u] = dc_t * gi[at] * (1.0f - gj[at] * gj[at]);
        row[a.gate_of[kGateF] * d.h + u] = dc_t * c_prev * gf[at] * (1.0f - gf[at]);
        dc[e] = dc_t * gf[at];
      }
    }
    rnnRoundTo(x.dtype, dg.data() + t * d.b * n4, d.b * n4);
    if (bh == 0) continue;
    w_h_t.multiply(GmMatrix{ACL_FLOAT, dg.data(), t * d.b * n4, n4, 1}, d.b, rec.data(), &cnt);
    for (int64_t bi = 0; bi < d.b; ++bi)
      if (rnnRowRuns(len, bi, t))
        for (int64_t e = bi * d.h; e < (bi + 1) * d.h; ++e) dh[e] = rec[e];
  }
  storeFloat(x.dtype, call.outputs[kDhPrev].data, 0, bh, dh.data());
  storeFloat(x.dtype, call.outputs[kDcPrev].data, 0, bh, dc.data());
  // dx = dg · W_x^T; dw = [x; h_prev]^T · dg; db = column sums of dg.
  std::vector<float> dx(static_cast<size_t>(rows * d.i), 0.0f), dw_x(static_cast<size_t>(d.i * n4), 0.0f),
      dw_h(static_cast<size_t>(d.h * n4), 0.0f), db(static_cast<size_t>(n4), 0.0f);
  const GmMatrix dg_m{ACL_FLOAT, dg.data(), 0, n4, 1};
  if (rows > 0 && d.i > 0 && n4 > 0) {
    cubeGemm(dg_m, GmMatrix{w.dtype, w.data, 0, 1, n4}, rows, d.i, n4, rnd, dx.data(), &cnt);
    cubeGemm(GmMatrix{x.dtype, x.data, 0, 1, d.i}, dg_m, d.i, n4, rows, rnd, dw_x.data(), &cnt);
  }
  if (rows > 0 && n4 > 0) {
    cubeGemm(GmMatrix{ACL_FLOAT, h_prev.data(), 0, 1, d.h}, dg_m, d.h, n4, rows, rnd, dw_h.data(), &cnt);
    reduceColumnsFloat(dg.data(), rows, n4, reduceBlockElems(x.dtype), ReduceKind::kSum, db.data());
  }
  storeFloat(x.dtype, call.outputs[kDx].data, 0, rows * d.i, dx.data());
  storeFloat(x.dtype, call.outputs[kDw].data, 0, d.i * n4, dw_x.data());
  storeFloat(x.dtype, call.outputs[kDw].data, d.i * n4, d.h * n4, dw_h.data());
  storeFloat(x.dtype, call.outputs[kDb].data, 0, n4, db.data());
  if (cnt.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costDynamicRnnGrad(const OpCall& call) {
  const RnnDims d = gradDimsOf(call);
  const int64_t n4 = 4 * d.h, rows = d.t * d.b;
  // dh per step; dx; both halves of dw. The gate gradients and the carried dh, dc: 14 passes over B x H.
  return rnnCost(call, d, {{d.b, d.h, n4, d.t}, {rows, d.i, n4, 1}, {d.i + d.h, n4, rows, 1}}, 14);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DynamicRNNGrad", &validateDynamicRnnGrad, &computeDynamicRnnGrad,
                                     &costDynamicRnnGrad});

}  // namespace
}  // namespace ascend_sim
