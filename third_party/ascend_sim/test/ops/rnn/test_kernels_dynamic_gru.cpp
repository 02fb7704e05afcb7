// DynamicGRUV2 / DynamicGRUV2Grad against a GRU computed here in double from
// torch's formulas, and the gradient against central differences of it.
#include "ops/rnn/rnn_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

struct Gru {
  int64_t t, b, i, h;
  std::vector<double> x, wi, wh, bi, bh, h0;  // wi [I, 3H], wh [H, 3H]
  std::vector<int64_t> len;
  bool reverse = false;
  bool torch_order = true;                  // gate_order "rzh" (else "zrh")
  int64_t col(int gate, int64_t u) const {  // gate: 0 r, 1 z, 2 n
    static const int rzh[3] = {0, 1, 2}, zrh[3] = {1, 0, 2};
    return (torch_order ? rzh : zrh)[gate] * h + u;
  }
};

struct GruOut {
  std::vector<double> y, hs, gates[3], hidden_new;  // gates: r, z, n
  std::vector<double> h_last;
};

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

GruOut forward(const Gru& m) {
  const int64_t bh = m.b * m.h, n3 = 3 * m.h;
  GruOut r;
  for (auto* v : {&r.y, &r.hs, &r.gates[0], &r.gates[1], &r.gates[2], &r.hidden_new}) v->assign(m.t * bh, 0.0);
  std::vector<double> h = m.h0;
  for (int64_t s = 0; s < m.t; ++s) {
    const int64_t t = m.reverse ? m.t - 1 - s : s;
    std::vector<double> hn = h;
    for (int64_t bi = 0; bi < m.b; ++bi)
      for (int64_t u = 0; u < m.h; ++u) {
        const int64_t e = bi * m.h + u, at = t * bh + e;
        if (t < m.len[bi]) {
          double a[3], g[3];
          for (int q = 0; q < 3; ++q) {
            a[q] = m.bi[m.col(q, u)];
            g[q] = m.bh[m.col(q, u)];
            for (int64_t k = 0; k < m.i; ++k) a[q] += m.x[(t * m.b + bi) * m.i + k] * m.wi[k * n3 + m.col(q, u)];
            for (int64_t k = 0; k < m.h; ++k) g[q] += h[bi * m.h + k] * m.wh[k * n3 + m.col(q, u)];
          }
          const double rr = sig(a[0] + g[0]), z = sig(a[1] + g[1]), n = std::tanh(a[2] + rr * g[2]);
          hn[e] = (1 - z) * n + z * h[e];
          r.y[at] = hn[e];
          r.gates[0][at] = rr, r.gates[1][at] = z, r.gates[2][at] = n, r.hidden_new[at] = g[2];
        }
        r.hs[at] = hn[e];
      }
    h = hn;
  }
  r.h_last = h;
  return r;
}

struct Case {
  aclDataType dt;
  bool reverse, torch_order, lengths;
};

TEST(KernelDynamicGru, ForwardAndGradientMatchTheDoubleGru) {
  const int64_t T = 5, B = 3, I = 6, H = 4;
  for (const Case& k : {Case{ACL_FLOAT, false, true, false}, Case{ACL_FLOAT, true, true, true},
                        Case{ACL_FLOAT, false, false, true}, Case{ACL_FLOAT16, true, true, true}}) {
    SCOPED_TRACE(std::string(dtypeName(k.dt)) + (k.reverse ? " REDIRECTIONAL" : " UNIDIRECTIONAL") +
                 (k.torch_order ? " rzh" : " zrh") + (k.lengths ? " with seq_length" : ""));
    const std::vector<float> xv = storedFloats(k.dt, T * B * I, -1, 1, 11),
                             wiv = storedFloats(k.dt, I * 3 * H, -0.6, 0.6, 12),
                             whv = storedFloats(k.dt, H * 3 * H, -0.6, 0.6, 13),
                             biv = storedFloats(k.dt, 3 * H, -0.5, 0.5, 14),
                             bhv = storedFloats(k.dt, 3 * H, -0.5, 0.5, 15), h0v = storedFloats(k.dt, B * H, -1, 1, 16),
                             dyv = storedFloats(k.dt, T * B * H, -1, 1, 17), dhv = storedFloats(k.dt, B * H, -1, 1, 18);
    Gru m{T, B, I, H, widen(xv), widen(wiv), widen(whv), widen(biv), widen(bhv), widen(h0v), {T, T, T}};
    if (k.lengths) m.len = {T, 2, 0};
    m.reverse = k.reverse, m.torch_order = k.torch_order;
    const GruOut want = forward(m);

    HostTensor x = HostTensor::floats(k.dt, {T, B, I}, xv), wi = HostTensor::floats(k.dt, {I, 3 * H}, wiv),
               wh = HostTensor::floats(k.dt, {H, 3 * H}, whv), bi = HostTensor::floats(k.dt, {3 * H}, biv),
               bh = HostTensor::floats(k.dt, {3 * H}, bhv), h0 = HostTensor::floats(k.dt, {1, B, H}, h0v),
               seq = HostTensor::ints(ACL_INT32, {B}, m.len);
    std::vector<HostTensor> out(6, HostTensor(k.dt, {T, B, H}));
    const AttrMap at = attrs({{"direction", std::string(k.reverse ? "REDIRECTIONAL" : "UNIDIRECTIONAL")},
                              {"gate_order", std::string(k.torch_order ? "rzh" : "zrh")}});
    OpCall fwd = makeCall("DynamicGRUV2", {&x, &wi, &wh, &bi, &bh, &h0},
                          {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5]}, at);
    if (k.lengths) fwd.inputs.push_back(seq.arg());
    run(fwd);
    expectNearReference(out[0].toFloats(), want.y, rnnTol(k.dt, 1), "y");
    expectNearReference(out[1].toFloats(), want.hs, rnnTol(k.dt, 1), "output_h");
    expectNearReference(out[2].toFloats(), want.gates[1], rnnTol(k.dt, 1), "update");
    expectNearReference(out[3].toFloats(), want.gates[0], rnnTol(k.dt, 1), "reset");
    expectNearReference(out[4].toFloats(), want.gates[2], rnnTol(k.dt, 1), "new");
    expectNearReference(out[5].toFloats(), want.hidden_new, rnnTol(k.dt, 1), "hidden_new");

    // The gradient of L = sum(dy * y) + sum(dh * h_last).
    HostTensor dy = HostTensor::floats(k.dt, {T, B, H}, dyv), dh = HostTensor::floats(k.dt, {1, B, H}, dhv);
    HostTensor dwi(k.dt, {I, 3 * H}), dwh(k.dt, {H, 3 * H}), dbi(k.dt, {3 * H}), dbh(k.dt, {3 * H}),
        dx(k.dt, {T, B, I}), dh_prev(k.dt, {1, B, H});
    OpCall bwd = makeCall("DynamicGRUV2Grad",
                          {&x, &wi, &wh, &out[0], &h0, &out[1], &dy, &dh, &out[2], &out[3], &out[4], &out[5]},
                          {&dwi, &dwh, &dbi, &dbh, &dx, &dh_prev}, at);
    if (k.lengths) bwd.inputs.push_back(seq.arg());
    run(bwd);
    const std::function<double(const Gru&)> loss = [&](const Gru& p) {
      const GruOut r = forward(p);
      double l = 0;
      for (size_t e = 0; e < r.y.size(); ++e) l += dyv[e] * r.y[e];
      for (size_t e = 0; e < r.h_last.size(); ++e) l += dhv[e] * r.h_last[e];
      return l;
    };
    const double scale = k.dt == ACL_FLOAT16 ? 2.0 : 10.0;
    expectNearReference(dx.toFloats(), centralDifferences(m, &Gru::x, loss), rnnTol(k.dt, scale), "dx");
    expectNearReference(dwi.toFloats(), centralDifferences(m, &Gru::wi, loss), rnnTol(k.dt, scale), "dw_input");
    expectNearReference(dwh.toFloats(), centralDifferences(m, &Gru::wh, loss), rnnTol(k.dt, scale), "dw_hidden");
    expectNearReference(dbi.toFloats(), centralDifferences(m, &Gru::bi, loss), rnnTol(k.dt, scale), "db_input");
    expectNearReference(dbh.toFloats(), centralDifferences(m, &Gru::bh, loss), rnnTol(k.dt, scale), "db_hidden");
    expectNearReference(dh_prev.toFloats(), centralDifferences(m, &Gru::h0, loss), rnnTol(k.dt, scale), "dh_prev");
  }
}

TEST(KernelDynamicGru, GradientOfEveryStepsStateMatchesTheDoubleGru) {
  // Note [State gradients of the recurrent kernels]: dh as [T, B, H].
  const int64_t T = 4, B = 3, I = 3, H = 4;
  const std::vector<float> xv = storedFloats(ACL_FLOAT, T * B * I, -1, 1, 31),
                           wiv = storedFloats(ACL_FLOAT, I * 3 * H, -0.6, 0.6, 32),
                           whv = storedFloats(ACL_FLOAT, H * 3 * H, -0.6, 0.6, 33),
                           biv = storedFloats(ACL_FLOAT, 3 * H, -0.5, 0.5, 34),
                           bhv = storedFloats(ACL_FLOAT, 3 * H, -0.5, 0.5, 35),
                           h0v = storedFloats(ACL_FLOAT, B * H, -1, 1, 36),
                           dyv = storedFloats(ACL_FLOAT, T * B * H, -1, 1, 37),
                           dhv = storedFloats(ACL_FLOAT, T * B * H, -1, 1, 38);
  Gru m{T, B, I, H, widen(xv), widen(wiv), widen(whv), widen(biv), widen(bhv), widen(h0v), {T, 2, 0}};
  m.reverse = true;
  HostTensor x = HostTensor::floats(ACL_FLOAT, {T, B, I}, xv), wi = HostTensor::floats(ACL_FLOAT, {I, 3 * H}, wiv),
             wh = HostTensor::floats(ACL_FLOAT, {H, 3 * H}, whv), bi = HostTensor::floats(ACL_FLOAT, {3 * H}, biv),
             bh = HostTensor::floats(ACL_FLOAT, {3 * H}, bhv), h0 = HostTensor::floats(ACL_FLOAT, {1, B, H}, h0v),
             seq = HostTensor::ints(ACL_INT32, {B}, m.len), dy = HostTensor::floats(ACL_FLOAT, {T, B, H}, dyv),
             dh = HostTensor::floats(ACL_FLOAT, {T, B, H}, dhv);
  std::vector<HostTensor> out(6, HostTensor(ACL_FLOAT, {T, B, H}));
  const AttrMap at = attrs({{"direction", std::string("REDIRECTIONAL")}, {"gate_order", std::string("rzh")}});
  OpCall fwd = makeCall("DynamicGRUV2", {&x, &wi, &wh, &bi, &bh, &h0},
                        {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5]}, at);
  fwd.inputs.push_back(seq.arg());
  run(fwd);
  HostTensor dwi(ACL_FLOAT, {I, 3 * H}), dwh(ACL_FLOAT, {H, 3 * H}), dbi(ACL_FLOAT, {3 * H}), dbh(ACL_FLOAT, {3 * H}),
      dx(ACL_FLOAT, {T, B, I}), dh_prev(ACL_FLOAT, {1, B, H});
  OpCall bwd =
      makeCall("DynamicGRUV2Grad", {&x, &wi, &wh, &out[0], &h0, &out[1], &dy, &dh, &out[2], &out[3], &out[4], &out[5]},
               {&dwi, &dwh, &dbi, &dbh, &dx, &dh_prev}, at);
  bwd.inputs.push_back(seq.arg());
  run(bwd);
  const std::function<double(const Gru&)> loss = [&](const Gru& p) {
    const GruOut r = forward(p);
    double l = 0;
    for (size_t e = 0; e < r.y.size(); ++e) l += dyv[e] * r.y[e] + dhv[e] * r.hs[e];
    return l;
  };
  expectNearReference(dx.toFloats(), centralDifferences(m, &Gru::x, loss), rnnTol(ACL_FLOAT, 10), "dx");
  expectNearReference(dwh.toFloats(), centralDifferences(m, &Gru::wh, loss), rnnTol(ACL_FLOAT, 10), "dw_hidden");
  expectNearReference(dh_prev.toFloats(), centralDifferences(m, &Gru::h0, loss), rnnTol(ACL_FLOAT, 10), "dh_prev");
}

TEST(KernelDynamicGru, EmptyAndBadInputs) {
  const int64_t H = 2;
  HostTensor x(ACL_FLOAT, {0, 2, 3}), wi(ACL_FLOAT, {3, 3 * H}), wh(ACL_FLOAT, {H, 3 * H}), b(ACL_FLOAT, {3 * H}),
      h0(ACL_FLOAT, {1, 2, H});
  std::vector<HostTensor> out(6, HostTensor(ACL_FLOAT, {0, 2, H}));
  run(makeCall("DynamicGRUV2", {&x, &wi, &wh, &b, &b, &h0}, {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5]}));
  HostTensor wh_bad(ACL_FLOAT, {H, 4 * H});
  EXPECT_KERNEL_ERROR(
      makeCall("DynamicGRUV2", {&x, &wi, &wh_bad, &b, &b, &h0}, {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5]}),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "[H, 3H]");
  EXPECT_KERNEL_ERROR(makeCall("DynamicGRUV2", {&x, &wi, &wh, &b, &b, &h0},
                               {&out[0], &out[1], &out[2], &out[3], &out[4], &out[5]}, attrs({{"reset_after", false}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "reset_after");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
