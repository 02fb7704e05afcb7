// DynamicRNN (OPS.md "Recurrent kernels"): a whole LSTM layer direction in
// one AI Core launch, Note [DynamicRNN steps] and Note [Sequence lengths of
// DynamicRNN] in ops/rnn/rnn_util.h.
#include <cmath>
#include <vector>

#include "ops/linalg/cube_gemm.h"
#include "ops/rnn/rnn_util.h"

namespace ascend_sim {
namespace {

// The outputs, in the op's order.
enum RnnOutput : int { kY = 0, kH, kC, kI, kJ, kF, kO, kTanhC, kOutputs };
const char* const kOutputNames[kOutputs] = {"output y", "output output_h", "output output_c", "output i",
                                            "output j", "output f",        "output o",        "output tanhc"};

// inputs: x, w, b, init_h, init_c [, seq_length]; outputs: kOutputs, each [T, B, H].
void validateDynamicRnn(const OpCall& call) {
  checkArity(call, 5, 6, kOutputs);
  const TensorArg& x = call.inputs[0];
  const RnnDims d = rnnDimsOf(call, x, call.inputs[1], call.inputs[2], call.inputs[3], call.inputs[4]);
  rnnAttrsOf(call);
  checkRnnLengths(call, 5, d);
  for (int k = 0; k < kOutputs; ++k) checkRnnTensor(call, call.outputs[k], kOutputNames[k], x, {d.t, d.b, d.h});
  attrBool(call, "is_training", true);
}

void computeDynamicRnn(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &w = call.inputs[1], &bias_in = call.inputs[2];
  const RnnDims d = rnnDimsOf(call, x, w, bias_in, call.inputs[3], call.inputs[4]);
  const RnnAttrs a = rnnAttrsOf(call);
  const std::vector<int64_t> len = rnnLengthsOf(call, 5, d);
  const int64_t n4 = 4 * d.h, bh = d.b * d.h;
  const CubeRounding rnd = cubeRoundingOf(call);
  UnitCounters cnt;
  // x · W_x for every step at once, then h · W_h per step.
  std::vector<float> xw(static_cast<size_t>(d.t * d.b * n4), 0.0f), hw(static_cast<size_t>(d.b * n4), 0.0f);
  if (d.t * d.b > 0 && d.i > 0)
    cubeGemm(GmMatrix{x.dtype, x.data, 0, d.i, 1}, GmMatrix{w.dtype, w.data, 0, n4, 1}, d.t * d.b, n4, d.i, rnd,
             xw.data(), &cnt);
  std::vector<float> bias(static_cast<size_t>(n4)), h(static_cast<size_t>(bh)), c(static_cast<size_t>(bh));
  loadFloat(bias_in.dtype, bias_in.data, 0, 1, n4, bias.data());
  for (int64_t k = 0; k < d.h; ++k) bias[a.gate_of[kGateF] * d.h + k] += a.forget_bias;
  loadFloat(x.dtype, call.inputs[3].data, 0, 1, bh, h.data());
  loadFloat(x.dtype, call.inputs[4].data, 0, 1, bh, c.data());
  std::vector<std::vector<float>> out(kOutputs, std::vector<float>(static_cast<size_t>(bh)));
  const LoadedCubeB w_h(GmMatrix{w.dtype, w.data, d.i * n4, n4, 1}, d.h, n4, rnd, &cnt);  // once for all steps
  for (int64_t s = 0; s < d.t; ++s) {
    const int64_t t = rnnStepAt(d, a.reverse, s);
    if (d.h > 0) w_h.multiply(GmMatrix{ACL_FLOAT, h.data(), 0, d.h, 1}, d.b, hw.data(), &cnt);
    for (int64_t bi = 0; bi < d.b; ++bi) {
      const bool runs = rnnRowRuns(len, bi, t);
      for (int64_t u = 0; u < d.h; ++u) {
        const int64_t e = bi * d.h + u;
        float pre[4];
        for (int q = 0; q < 4; ++q) {
          const int64_t col = a.gate_of[q] * d.h + u;
          pre[q] = xw[(t * d.b + bi) * n4 + col] + hw[bi * n4 + col] + bias[col];
        }
        if (!runs) {  // the state is carried; y and the gates are 0
          for (int k : {kY, kI, kJ, kF, kO, kTanhC}) out[k][e] = 0.0f;
          out[kH][e] = h[e];
          out[kC][e] = c[e];
          continue;
        }
        const float gi = rnnSigmoid(pre[kGateI]), gj = std::tanh(pre[kGateJ]), gf = rnnSigmoid(pre[kGateF]),
                    go = rnnSigmoid(pre[kGateO]);
        out[kI][e] = gi, out[kJ][e] = gj, out[kF][e] = gf, out[kO][e] = go;
        out[kC][e] = gf * c[e] + gi * gj;
      }
    }
    // c as stored, then tanh(c) and h from it; h and c carry on as stored.
    const TensorArg& c_out = call.outputs[kC];
    storeFloat(c_out.dtype, c_out.data, t * bh, bh, out[kC].data());
    loadFloat(c_out.dtype, c_out.data, t * bh, 1, bh, c.data());
    for (int64_t bi = 0; bi < d.b; ++bi) {
      if (!rnnRowRuns(len, bi, t)) continue;
      for (int64_t e = bi * d.h; e < (bi + 1) * d.h; ++e) {
        out[kTanhC][e] = std::tanh(c[e]);
        out[kH][e] = out[kY][e] = out[kO][e] * out[kTanhC][e];
      }
    }
    for (int k = 0; k < kOutputs; ++k)
      if (k != kC) storeFloat(call.outputs[k].dtype, call.outputs[k].data, t * bh, bh, out[k].data());
    loadFloat(x.dtype, call.outputs[kH].data, t * bh, 1, bh, h.data());
  }
  if (cnt.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costDynamicRnn(const OpCall& call) {
  const RnnDims d = rnnDimsOf(call, call.inputs[0], call.inputs[1], call.inputs[2], call.inputs[3], call.inputs[4]);
  // x · W_x once, h · W_h per step; the step's gates, c, tanh(c) and h: 12 passes over B x H.
  return rnnCost(call, d, {{d.t * d.b, 4 * d.h, d.i, 1}, {d.b, 4 * d.h, d.h, d.t}}, 12);
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"DynamicRNN", &validateDynamicRnn, &computeDynamicRnn, &costDynamicRnn});

}  // namespace
}  // namespace ascend_sim
