// A naive reference of FlashAttentionScore / FlashAttentionScoreGrad in
// double, on [B, N, S, D] tensors in logical order (the test converts to and
// from the kernels' layouts), for test_kernels_fusion_attention.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ascend_sim {
namespace test {

struct AttentionCase {
  int64_t b = 1, n = 1, n_kv = 1, sq = 1, skv = 1, d = 16;
  double scale = 1.0, keep_prob = 1.0;
  int64_t pre = 2147483647, next = 2147483647;
  bool band = true;  // sparse_mode 0 (false: 1)
  // [B, N, Sq, Skv] logical, already broadcast; empty when absent.
  std::vector<float> pse;
  std::vector<uint8_t> mask;  // nonzero = masked out
  std::vector<uint8_t> keep;  // dropout: nonzero = kept; empty = keep all
  int64_t idx4(int64_t bi, int64_t ni, int64_t i, int64_t j) const { return ((bi * n + ni) * sq + i) * skv + j; }
};

struct AttentionRef {
  std::vector<double> out, max, sum;   // out [B,N,Sq,D]; stats [B,N,Sq]
  std::vector<double> dq, dk, dv, dpse;  // dpse [B,N,Sq,Skv] (not reduced)
};

// q [B,N,Sq,D], k/v [B,N_kv,Skv,D], dy like q (may be empty: no backward).
inline AttentionRef attentionReference(const AttentionCase& c, const std::vector<float>& q, const std::vector<float>& k,
                                       const std::vector<float>& v, const std::vector<float>& dy) {
  const double inf = std::numeric_limits<double>::infinity();
  AttentionRef r;
  r.out.assign(c.b * c.n * c.sq * c.d, 0.0);
  r.max.assign(c.b * c.n * c.sq, 0.0);
  r.sum.assign(c.b * c.n * c.sq, 0.0);
  r.dq.assign(q.size(), 0.0);
  r.dk.assign(k.size(), 0.0);
  r.dv.assign(v.size(), 0.0);
  r.dpse.assign(c.b * c.n * c.sq * c.skv, 0.0);
  std::vector<double> p(c.skv), z(c.skv), pd(c.skv), dp(c.skv);
  for (int64_t bi = 0; bi < c.b; ++bi)
    for (int64_t ni = 0; ni < c.n; ++ni) {
      const int64_t hk = ni / (c.n / c.n_kv);
      auto qv = [&](int64_t i, int64_t e) { return double(q[((bi * c.n + ni) * c.sq + i) * c.d + e]); };
      auto kv = [&](const std::vector<float>& t, int64_t j, int64_t e) {
        return double(t[((bi * c.n_kv + hk) * c.skv + j) * c.d + e]);
      };
      for (int64_t i = 0; i < c.sq; ++i) {
        double m = -inf;
        for (int64_t j = 0; j < c.skv; ++j) {
          double s = 0;
          for (int64_t e = 0; e < c.d; ++e) s += qv(i, e) * kv(k, j, e);
          if (!c.pse.empty()) s += c.pse[c.idx4(bi, ni, i, j)];
          s *= c.scale;
          const bool masked = (!c.mask.empty() && c.mask[c.idx4(bi, ni, i, j)]) ||
                              (c.band && (j - i > c.next || i - j > c.pre));
          p[j] = masked ? -inf : s;
          m = std::max(m, p[j]);
        }
        double l = 0;
        for (int64_t j = 0; j < c.skv; ++j) l += p[j] = m == -inf ? 0.0 : std::exp(p[j] - m);
        const int64_t row = (bi * c.n + ni) * c.sq + i;
        r.max[row] = m;
        r.sum[row] = l;
        for (int64_t j = 0; j < c.skv; ++j) {
          p[j] = l == 0 ? 0.0 : p[j] / l;
          z[j] = c.keep.empty() || c.keep[c.idx4(bi, ni, i, j)] ? 1.0 / c.keep_prob : 0.0;
          pd[j] = p[j] * z[j];
        }
        for (int64_t e = 0; e < c.d; ++e)
          for (int64_t j = 0; j < c.skv; ++j) r.out[row * c.d + e] += pd[j] * kv(v, j, e);
        if (dy.empty()) continue;
        double di = 0;
        for (int64_t j = 0; j < c.skv; ++j) {
          double g = 0;
          for (int64_t e = 0; e < c.d; ++e) g += double(dy[row * c.d + e]) * kv(v, j, e);
          dp[j] = g * z[j];  // the gradient of P through the dropout
          di += p[j] * dp[j];
        }
        for (int64_t j = 0; j < c.skv; ++j) {
          const double ds = p[j] * (dp[j] - di) * c.scale;
          r.dpse[c.idx4(bi, ni, i, j)] = ds;
          for (int64_t e = 0; e < c.d; ++e) {
            r.dq[row * c.d + e] += ds * kv(k, j, e);
            r.dk[((bi * c.n_kv + hk) * c.skv + j) * c.d + e] += ds * qv(i, e);
            r.dv[((bi * c.n_kv + hk) * c.skv + j) * c.d + e] += pd[j] * double(dy[row * c.d + e]);
          }
        }
      }
    }
  return r;
}

}  // namespace test
}  // namespace ascend_sim
