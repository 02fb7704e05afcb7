// DynamicRNN / DynamicRNNGrad against an LSTM computed here in double from
// the textbook formulas, and their gradient against central differences of
// that double LSTM (so the backward is checked by nothing it shares code or
// algebra with).
#include <cmath>

#include "ops/rnn/rnn_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

struct Lstm {
  int64_t t, b, i, h;
  std::vector<double> x, w, bias, h0, c0;  // w [I + H, 4H]
  std::vector<int64_t> len;                // per row, <= t
  bool reverse = false;
  bool torch_order = true;  // gate_order "ifjo" (else "ijfo")
  double forget_bias = 0.0;
  int col(int gate, int64_t u) const {  // gate: 0 i, 1 j (cell), 2 f, 3 o
    static const int ifjo[4] = {0, 2, 1, 3}, ijfo[4] = {0, 1, 2, 3};
    return static_cast<int>((torch_order ? ifjo : ijfo)[gate] * h + u);
  }
};

struct LstmOut {
  std::vector<double> y, hs, cs, gates[4], tanhc;  // [T, B, H]
  std::vector<double> h_last, c_last;              // the carried state after every step, [B, H]
};

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

LstmOut forward(const Lstm& m) {
  const int64_t bh = m.b * m.h, n = m.t * bh;
  LstmOut r;
  for (auto* v : {&r.y, &r.hs, &r.cs, &r.tanhc, &r.gates[0], &r.gates[1], &r.gates[2], &r.gates[3]}) v->assign(n, 0.0);
  std::vector<double> h = m.h0, c = m.c0;
  for (int64_t s = 0; s < m.t; ++s) {
    const int64_t t = m.reverse ? m.t - 1 - s : s;
    std::vector<double> hn = h, cn = c;
    for (int64_t bi = 0; bi < m.b; ++bi)
      for (int64_t u = 0; u < m.h; ++u) {
        const int64_t e = bi * m.h + u, at = t * bh + e;
        if (t < m.len[bi]) {
          double pre[4];
          for (int g = 0; g < 4; ++g) {
            double acc = m.bias[m.col(g, u)] + (g == 2 ? m.forget_bias : 0.0);
            for (int64_t k = 0; k < m.i; ++k) acc += m.x[(t * m.b + bi) * m.i + k] * m.w[k * 4 * m.h + m.col(g, u)];
            for (int64_t k = 0; k < m.h; ++k) acc += h[bi * m.h + k] * m.w[(m.i + k) * 4 * m.h + m.col(g, u)];
            pre[g] = acc;
          }
          const double gi = sig(pre[0]), gj = std::tanh(pre[1]), gf = sig(pre[2]), go = sig(pre[3]);
          cn[e] = gf * c[e] + gi * gj;
          hn[e] = go * std::tanh(cn[e]);
          r.y[at] = hn[e];
          r.tanhc[at] = std::tanh(cn[e]);
          const double g4[4] = {gi, gj, gf, go};
          for (int g = 0; g < 4; ++g) r.gates[g][at] = g4[g];
        }
        r.hs[at] = hn[e];
        r.cs[at] = cn[e];
      }
    h = hn, c = cn;
  }
  r.h_last = h, r.c_last = c;
  return r;
}

struct Case {
  aclDataType dt;
  bool reverse, torch_order, lengths;
};

// The gate outputs of the kernel, in the reference's gate numbering.
const int kGateOutput[4] = {3, 4, 5, 6};  // outputs i, j, f, o

TEST(KernelDynamicRnn, ForwardAndGradientMatchTheDoubleLstm) {
  const int64_t T = 5, B = 3, I = 7, H = 5;
  for (const Case& k :
       {Case{ACL_FLOAT, false, true, false}, Case{ACL_FLOAT, true, true, true}, Case{ACL_FLOAT, false, false, true},
        Case{ACL_FLOAT16, false, true, false}, Case{ACL_FLOAT16, true, true, true}}) {
    SCOPED_TRACE(std::string(dtypeName(k.dt)) + (k.reverse ? " REDIRECTIONAL" : " UNIDIRECTIONAL") +
                 (k.torch_order ? " ifjo" : " ijfo") + (k.lengths ? " with seq_length" : ""));
    const std::vector<float> xv = storedFloats(k.dt, T * B * I, -1, 1, 1),
                             wv = storedFloats(k.dt, (I + H) * 4 * H, -0.5, 0.5, 2),
                             bv = storedFloats(k.dt, 4 * H, -0.5, 0.5, 3), h0v = storedFloats(k.dt, B * H, -1, 1, 4),
                             c0v = storedFloats(k.dt, B * H, -1, 1, 5), dyv = storedFloats(k.dt, T * B * H, -1, 1, 6),
                             dhv = storedFloats(k.dt, B * H, -1, 1, 7), dcv = storedFloats(k.dt, B * H, -1, 1, 8);
    Lstm m{T, B, I, H, widen(xv), widen(wv), widen(bv), widen(h0v), widen(c0v), {T, T, T}};
    if (k.lengths) m.len = {T, 3, 0};  // a packed batch: one full row, one short, one empty
    m.reverse = k.reverse, m.torch_order = k.torch_order, m.forget_bias = k.torch_order ? 0.0 : 1.0;
    const LstmOut want = forward(m);

    HostTensor x = HostTensor::floats(k.dt, {T, B, I}, xv), w = HostTensor::floats(k.dt, {I + H, 4 * H}, wv),
               b = HostTensor::floats(k.dt, {4 * H}, bv), h0 = HostTensor::floats(k.dt, {1, B, H}, h0v),
               c0 = HostTensor::floats(k.dt, {1, B, H}, c0v), seq = HostTensor::ints(ACL_INT32, {B}, m.len);
    std::vector<HostTensor> out(8, HostTensor(k.dt, {T, B, H}));
    const AttrMap at = attrs({{"direction", std::string(k.reverse ? "REDIRECTIONAL" : "UNIDIRECTIONAL")},
                              {"gate_order", std::string(k.torch_order ? "ifjo" : "ijfo")},
                              {"forget_bias", static_cast<float>(m.forget_bias)}});
    OpCall fwd = makeCall("DynamicRNN", {&x, &w, &b, &h0, &c0},
                          {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5], &out[6], &out[7]}, at);
    if (k.lengths) fwd.inputs.push_back(seq.arg());
    run(fwd);
    expectNearReference(out[0].toFloats(), want.y, rnnTol(k.dt, 1), "y");
    expectNearReference(out[1].toFloats(), want.hs, rnnTol(k.dt, 1), "output_h");
    expectNearReference(out[2].toFloats(), want.cs, rnnTol(k.dt, 1), "output_c");
    for (int g = 0; g < 4; ++g)
      expectNearReference(out[kGateOutput[g]].toFloats(), want.gates[g], rnnTol(k.dt, 1), "gate");
    expectNearReference(out[7].toFloats(), want.tanhc, rnnTol(k.dt, 1), "tanhc");

    // The gradient of L = sum(dy * y) + sum(dh * h_last) + sum(dc * c_last).
    HostTensor dy = HostTensor::floats(k.dt, {T, B, H}, dyv), dh = HostTensor::floats(k.dt, {1, B, H}, dhv),
               dc = HostTensor::floats(k.dt, {1, B, H}, dcv);
    HostTensor dw(k.dt, {I + H, 4 * H}), db(k.dt, {4 * H}), dx(k.dt, {T, B, I}), dh_prev(k.dt, {1, B, H}),
        dc_prev(k.dt, {1, B, H});
    OpCall bwd = makeCall(
        "DynamicRNNGrad",
        {&x, &w, &b, &out[0], &h0, &c0, &out[1], &out[2], &dy, &dh, &dc, &out[3], &out[4], &out[5], &out[6], &out[7]},
        {&dw, &db, &dx, &dh_prev, &dc_prev}, at);
    if (k.lengths) bwd.inputs.push_back(seq.arg());
    run(bwd);
    auto loss = [&](const Lstm& p) {
      const LstmOut r = forward(p);
      double l = 0;
      for (size_t e = 0; e < r.y.size(); ++e) l += dyv[e] * r.y[e];
      for (size_t e = 0; e < r.h_last.size(); ++e) l += dhv[e] * r.h_last[e] + dcv[e] * r.c_last[e];
      return l;
    };
    const std::function<double(const Lstm&)> loss_of = loss;
    auto numeric = [&](std::vector<double> Lstm::*field) { return centralDifferences(m, field, loss_of); };
    const double scale = k.dt == ACL_FLOAT16 ? 2.0 : 10.0;  // sums over the steps
    expectNearReference(dx.toFloats(), numeric(&Lstm::x), rnnTol(k.dt, scale), "dx");
    expectNearReference(dw.toFloats(), numeric(&Lstm::w), rnnTol(k.dt, scale), "dw");
    expectNearReference(db.toFloats(), numeric(&Lstm::bias), rnnTol(k.dt, scale), "db");
    expectNearReference(dh_prev.toFloats(), numeric(&Lstm::h0), rnnTol(k.dt, scale), "dh_prev");
    expectNearReference(dc_prev.toFloats(), numeric(&Lstm::c0), rnnTol(k.dt, scale), "dc_prev");
  }
}

TEST(KernelDynamicRnn, GradientOfEveryStepsStateMatchesTheDoubleLstm) {
  // Note [State gradients of the recurrent kernels]: dh, dc as [T, B, H].
  const int64_t T = 4, B = 3, I = 3, H = 4;
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "REDIRECTIONAL" : "UNIDIRECTIONAL");
    const std::vector<float> xv = storedFloats(ACL_FLOAT, T * B * I, -1, 1, 21),
                             wv = storedFloats(ACL_FLOAT, (I + H) * 4 * H, -0.5, 0.5, 22),
                             bv = storedFloats(ACL_FLOAT, 4 * H, -0.5, 0.5, 23),
                             h0v = storedFloats(ACL_FLOAT, B * H, -1, 1, 24),
                             c0v = storedFloats(ACL_FLOAT, B * H, -1, 1, 25),
                             dyv = storedFloats(ACL_FLOAT, T * B * H, -1, 1, 26),
                             dhv = storedFloats(ACL_FLOAT, T * B * H, -1, 1, 27),
                             dcv = storedFloats(ACL_FLOAT, T * B * H, -1, 1, 28);
    Lstm m{T, B, I, H, widen(xv), widen(wv), widen(bv), widen(h0v), widen(c0v), {T, 2, 0}};
    m.reverse = reverse;
    HostTensor x = HostTensor::floats(ACL_FLOAT, {T, B, I}, xv), w = HostTensor::floats(ACL_FLOAT, {I + H, 4 * H}, wv),
               b = HostTensor::floats(ACL_FLOAT, {4 * H}, bv), h0 = HostTensor::floats(ACL_FLOAT, {1, B, H}, h0v),
               c0 = HostTensor::floats(ACL_FLOAT, {1, B, H}, c0v), seq = HostTensor::ints(ACL_INT32, {B}, m.len),
               dy = HostTensor::floats(ACL_FLOAT, {T, B, H}, dyv), dh = HostTensor::floats(ACL_FLOAT, {T, B, H}, dhv),
               dc = HostTensor::floats(ACL_FLOAT, {T, B, H}, dcv);
    std::vector<HostTensor> out(8, HostTensor(ACL_FLOAT, {T, B, H}));
    const AttrMap at = attrs({{"direction", std::string(reverse ? "REDIRECTIONAL" : "UNIDIRECTIONAL")},
                              {"gate_order", std::string("ifjo")}});
    OpCall fwd = makeCall("DynamicRNN", {&x, &w, &b, &h0, &c0},
                          {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5], &out[6], &out[7]}, at);
    fwd.inputs.push_back(seq.arg());
    run(fwd);
    HostTensor dw(ACL_FLOAT, {I + H, 4 * H}), db(ACL_FLOAT, {4 * H}), dx(ACL_FLOAT, {T, B, I}),
        dh_prev(ACL_FLOAT, {1, B, H}), dc_prev(ACL_FLOAT, {1, B, H});
    OpCall bwd = makeCall(
        "DynamicRNNGrad",
        {&x, &w, &b, &out[0], &h0, &c0, &out[1], &out[2], &dy, &dh, &dc, &out[3], &out[4], &out[5], &out[6], &out[7]},
        {&dw, &db, &dx, &dh_prev, &dc_prev}, at);
    bwd.inputs.push_back(seq.arg());
    run(bwd);
    const std::function<double(const Lstm&)> loss = [&](const Lstm& p) {
      const LstmOut r = forward(p);
      double l = 0;
      for (size_t e = 0; e < r.y.size(); ++e) l += dyv[e] * r.y[e] + dhv[e] * r.hs[e] + dcv[e] * r.cs[e];
      return l;
    };
    expectNearReference(dx.toFloats(), centralDifferences(m, &Lstm::x, loss), rnnTol(ACL_FLOAT, 10), "dx");
    expectNearReference(dw.toFloats(), centralDifferences(m, &Lstm::w, loss), rnnTol(ACL_FLOAT, 10), "dw");
    expectNearReference(dh_prev.toFloats(), centralDifferences(m, &Lstm::h0, loss), rnnTol(ACL_FLOAT, 10), "dh_prev");
    expectNearReference(dc_prev.toFloats(), centralDifferences(m, &Lstm::c0, loss), rnnTol(ACL_FLOAT, 10), "dc_prev");
  }
}

TEST(KernelDynamicRnn, EmptySequencesAndBatches) {
  for (const Shape& xs : {Shape{0, 2, 3}, Shape{4, 0, 3}}) {
    const int64_t H = 2;
    HostTensor x(ACL_FLOAT, xs), w(ACL_FLOAT, {3 + H, 4 * H}), b(ACL_FLOAT, {4 * H}), h0(ACL_FLOAT, {1, xs[1], H}),
        c0(ACL_FLOAT, {1, xs[1], H});
    std::vector<HostTensor> out(8, HostTensor(ACL_FLOAT, {xs[0], xs[1], H}));
    run(makeCall("DynamicRNN", {&x, &w, &b, &h0, &c0},
                 {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5], &out[6], &out[7]}));
  }
}

TEST(KernelDynamicRnn, BadInputsAndUnsupportedAttributesAreRejected) {
  const int64_t T = 2, B = 2, I = 3, H = 2;
  HostTensor x(ACL_FLOAT, {T, B, I}), w(ACL_FLOAT, {I + H, 4 * H}), b(ACL_FLOAT, {4 * H}), h0(ACL_FLOAT, {1, B, H}),
      c0(ACL_FLOAT, {1, B, H});
  std::vector<HostTensor> out(8, HostTensor(ACL_FLOAT, {T, B, H}));
  auto call = [&](const HostTensor& xx, const HostTensor& ww, AttrMap a = {}) {
    return makeCall("DynamicRNN", {&xx, &ww, &b, &h0, &c0},
                    {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5], &out[6], &out[7]}, a);
  };
  HostTensor w_bad(ACL_FLOAT, {I + H + 1, 4 * H});
  EXPECT_KERNEL_ERROR(call(x, w_bad), ACL_ERROR_OP_INPUT_NOT_MATCH, "[I + H, 4H]");
  HostTensor x16(ACL_FLOAT16, {T, B, I});
  EXPECT_KERNEL_ERROR(call(x16, w), ACL_ERROR_OP_INPUT_NOT_MATCH, "dtype");
  HostTensor xbf(ACL_BF16, {T, B, I});
  EXPECT_KERNEL_ERROR(call(xbf, w), ACL_ERROR_OP_UNSUPPORTED_DTYPE, "x");
  EXPECT_KERNEL_ERROR(call(x, w, attrs({{"use_peephole", true}})), ACL_ERROR_OP_ATTR_NOT_MATCH, "use_peephole");
  EXPECT_KERNEL_ERROR(call(x, w, attrs({{"direction", std::string("BIDIRECTIONAL")}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "direction");
  EXPECT_KERNEL_ERROR(call(x, w, attrs({{"gate_order", std::string("fijo")}})), ACL_ERROR_OP_ATTR_NOT_MATCH,
                      "gate_order");
  HostTensor seq = HostTensor::ints(ACL_INT32, {B}, {2, 3});  // 3 > T: known only when the kernel runs
  OpCall with_len = call(x, w);
  with_len.inputs.push_back(seq.arg());
  EXPECT_KERNEL_ERROR(with_len, ACL_ERROR_RT_AICORE_EXCEPTION, "seq_length[1] = 3");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
