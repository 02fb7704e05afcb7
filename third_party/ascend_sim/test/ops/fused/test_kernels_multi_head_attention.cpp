// MultiHeadAttention / MultiHeadAttentionGrad (Note [MultiHeadAttention])
// against a double reference of nn.MultiheadAttention's math: projections,
// additive mask, softmax, dropout by a bit mask, output projection, and every
// gradient; fp32 / fp16, with and without biases, given or generated masks.
#include <cmath>
#include <string>

#include "kernel_test_util.h"
#include "ops/random/dropout_mask.h"

namespace ascend_sim {
namespace test {
namespace {

struct MhaCase {
  int64_t b = 2, h = 2, d = 16, t = 16, s = 24, ek = 24, ev = 20;
  float keep = 1.0f;
  bool biases = true, use_float = true;
  aclDataType dt = ACL_FLOAT;
  int64_t e() const { return h * d; }
};

using Mat = std::vector<double>;

// c [m][n] = a [m][k] * b (b [k][n], or b [n][k] transposed).
Mat matmul(const Mat& a, const Mat& b, int64_t m, int64_t n, int64_t k, bool b_transposed) {
  Mat c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t x = 0; x < k; ++x) c[i * n + j] += a[i * k + x] * (b_transposed ? b[j * k + x] : b[x * n + j]);
  return c;
}

Mat transpose(const Mat& a, int64_t rows, int64_t cols) {
  Mat t(a.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = a[i * cols + j];
  return t;
}

Mat toDouble(const std::vector<float>& v) { return Mat(v.begin(), v.end()); }

struct MhaInputs {
  std::vector<float> x[3], w[3], wo, bias[4], mask, dy;
  std::vector<uint8_t> bits;
};

struct MhaRef {
  Mat y, res[3], scores, attn, ctx;
  Mat dw[4], dx[3], db[4];
};

// [rows, E] head h of batch b as [len, D].
Mat headOf(const Mat& a, const MhaCase& c, int64_t len, int64_t bi, int64_t hi) {
  Mat m(static_cast<size_t>(len * c.d));
  for (int64_t l = 0; l < len; ++l)
    for (int64_t x = 0; x < c.d; ++x) m[l * c.d + x] = a[(bi * len + l) * c.e() + hi * c.d + x];
  return m;
}

MhaRef reference(const MhaCase& c, const MhaInputs& in) {
  const int64_t e = c.e(), lens[] = {c.t, c.s, c.s}, feats[] = {e, c.ek, c.ev};
  const double qs = 1.0 / std::sqrt(double(c.d));
  MhaRef r;
  Mat proj[3];
  for (int i = 0; i < 3; ++i) {
    proj[i] = matmul(toDouble(in.x[i]), toDouble(in.w[i]), c.b * lens[i], e, feats[i], true);
    for (int64_t row = 0; row < c.b * lens[i]; ++row)
      for (int64_t col = 0; col < e; ++col)
        proj[i][row * e + col] = (proj[i][row * e + col] + (c.biases ? in.bias[i][col] : 0.0)) * (i == 0 ? qs : 1.0);
    r.res[i].assign(static_cast<size_t>(c.b * c.h * lens[i] * c.d), 0.0);
    for (int64_t bi = 0; bi < c.b; ++bi)
      for (int64_t hi = 0; hi < c.h; ++hi) {
        const Mat hm = headOf(proj[i], c, lens[i], bi, hi);
        std::copy(hm.begin(), hm.end(), r.res[i].begin() + (bi * c.h + hi) * lens[i] * c.d);
      }
  }
  const int64_t ss = c.t * c.s;
  r.scores.assign(static_cast<size_t>(c.b * c.h * ss), 0.0);
  r.attn = r.scores;
  r.ctx.assign(static_cast<size_t>(c.b * c.t * e), 0.0);
  Mat dproj[3] = {Mat(proj[0].size(), 0.0), Mat(proj[1].size(), 0.0), Mat(proj[2].size(), 0.0)};
  // y and its gradient through the output projection.
  auto z = [&](int64_t x) { return c.keep >= 1.0f ? 1.0 : dropoutMaskBit(in.bits.data(), x) ? 1.0 / c.keep : 0.0; };
  for (int64_t bi = 0; bi < c.b; ++bi)
    for (int64_t hi = 0; hi < c.h; ++hi) {
      const Mat q = headOf(proj[0], c, c.t, bi, hi), k = headOf(proj[1], c, c.s, bi, hi),
                v = headOf(proj[2], c, c.s, bi, hi);
      Mat s = matmul(q, k, c.t, c.s, c.d, true);
      const int64_t base = (bi * c.h + hi) * ss;
      for (int64_t i = 0; i < c.t; ++i) {
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < c.s; ++j) mx = std::max(mx, s[i * c.s + j] += in.mask[base + i * c.s + j]);
        for (int64_t j = 0; j < c.s; ++j) sum += s[i * c.s + j] = std::exp(s[i * c.s + j] - mx);
        for (int64_t j = 0; j < c.s; ++j) {
          r.scores[base + i * c.s + j] = s[i * c.s + j] /= sum;
          r.attn[base + i * c.s + j] = s[i * c.s + j] * z(base + i * c.s + j);
        }
      }
      const Mat attn(r.attn.begin() + base, r.attn.begin() + base + ss);
      const Mat ctx = matmul(attn, v, c.t, c.d, c.s, false);
      for (int64_t i = 0; i < c.t; ++i)
        for (int64_t x = 0; x < c.d; ++x) r.ctx[(bi * c.t + i) * e + hi * c.d + x] = ctx[i * c.d + x];
    }
  r.y = matmul(r.ctx, toDouble(in.wo), c.b * c.t, e, e, true);
  const Mat dy = toDouble(in.dy);
  r.db[3].assign(static_cast<size_t>(e), 0.0);
  for (int64_t row = 0; row < c.b * c.t; ++row)
    for (int64_t col = 0; col < e; ++col) {
      if (c.biases) r.y[row * e + col] += in.bias[3][col];
      r.db[3][col] += dy[row * e + col];
    }
  r.dw[3] = matmul(transpose(dy, c.b * c.t, e), r.ctx, e, e, c.b * c.t, false);
  const Mat dctx = matmul(dy, toDouble(in.wo), c.b * c.t, e, e, false);
  for (int64_t bi = 0; bi < c.b; ++bi)
    for (int64_t hi = 0; hi < c.h; ++hi) {
      const Mat q = headOf(proj[0], c, c.t, bi, hi), k = headOf(proj[1], c, c.s, bi, hi),
                v = headOf(proj[2], c, c.s, bi, hi);
      const Mat dc = headOf(dctx, c, c.t, bi, hi);
      const int64_t base = (bi * c.h + hi) * ss;
      const Mat attn(r.attn.begin() + base, r.attn.begin() + base + ss),
          p(r.scores.begin() + base, r.scores.begin() + base + ss);
      const Mat dv = matmul(transpose(attn, c.t, c.s), dc, c.s, c.d, c.t, false);
      Mat ds = matmul(dc, v, c.t, c.s, c.d, true);
      for (int64_t i = 0; i < c.t; ++i) {
        double dot = 0;
        for (int64_t j = 0; j < c.s; ++j) dot += p[i * c.s + j] * (ds[i * c.s + j] *= z(base + i * c.s + j));
        for (int64_t j = 0; j < c.s; ++j) ds[i * c.s + j] = p[i * c.s + j] * (ds[i * c.s + j] - dot);
      }
      const Mat dq = matmul(ds, k, c.t, c.d, c.s, false), dk = matmul(transpose(ds, c.t, c.s), q, c.s, c.d, c.t, false);
      const Mat* parts[] = {&dq, &dk, &dv};
      for (int i = 0; i < 3; ++i) {
        const int64_t len = i == 0 ? c.t : c.s;
        for (int64_t l = 0; l < len; ++l)
          for (int64_t x = 0; x < c.d; ++x)
            dproj[i][(bi * len + l) * e + hi * c.d + x] = (*parts[i])[l * c.d + x] * (i == 0 ? qs : 1.0);
      }
    }
  for (int i = 0; i < 3; ++i) {
    const int64_t rows = c.b * lens[i];
    r.dw[i] = matmul(transpose(dproj[i], rows, e), toDouble(in.x[i]), e, feats[i], rows, false);
    r.dx[i] = matmul(dproj[i], toDouble(in.w[i]), rows, feats[i], e, false);
    r.db[i].assign(static_cast<size_t>(e), 0.0);
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t col = 0; col < e; ++col) r.db[i][col] += dproj[i][row * e + col];
  }
  return r;
}

// |got - want| <= frac * max|want| (+ a floor): the chain of products and
// roundings makes an absolute bound at the tensor's scale the fair one.
void expectCloseScaled(const std::vector<float>& got, const Mat& want, double frac, const std::string& what,
                       double scale_floor = 0) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double mx = scale_floor;
  for (double w : want) mx = std::max(mx, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], frac * mx + 1e-6) << what << " element " << i;
}

void checkCase(const MhaCase& c, uint32_t seed, bool give_mask) {
  SCOPED_TRACE(std::string(dtypeName(c.dt)) + (c.biases ? " biases" : " no biases") + " keep " +
               std::to_string(c.keep) + (give_mask ? " mask given" : " mask drawn"));
  const int64_t e = c.e(), lens[] = {c.t, c.s, c.s}, feats[] = {e, c.ek, c.ev};
  const int64_t n = c.b * c.h * c.t * c.s;
  MhaInputs in;
  std::vector<HostTensor> x, w, bias;
  for (int i = 0; i < 3; ++i) {
    in.x[i] = stored(c.dt, randomFloats(c.b * lens[i] * feats[i], -1, 1, seed + i));
    in.w[i] = stored(c.dt, randomFloats(e * feats[i], -0.3f, 0.3f, seed + 10 + i));
    x.push_back(HostTensor::floats(c.dt, {c.b * lens[i], feats[i]}, in.x[i]));
    w.push_back(HostTensor::floats(c.dt, {e, feats[i]}, in.w[i]));
  }
  in.wo = stored(c.dt, randomFloats(e * e, -0.3f, 0.3f, seed + 20));
  for (int i = 0; i < 4; ++i) {
    in.bias[i] = stored(c.dt, randomFloats(e, -0.5f, 0.5f, seed + 30 + i));
    bias.push_back(HostTensor::floats(c.dt, {e}, in.bias[i]));
  }
  const std::vector<float> r = randomFloats(n, 0, 1, seed + 40);
  for (float v : r) in.mask.push_back(v < 0.2f ? -10000.0f : 0.0f);
  in.dy = stored(c.dt, randomFloats(c.b * c.t * e, -1, 1, seed + 50));
  HostTensor bits_in(ACL_UINT8, {dropoutMaskBytes(n)});  // DropOutGenMask's draws from (seed 7, offset 12)
  run(makeCall(
      "DropOutGenMask", {}, {&bits_in},
      attrs(
          {{"shape", std::vector<int64_t>{n}}, {"keep_prob", c.keep}, {"seed", int64_t{7}}, {"offset", int64_t{12}}})));
  for (int64_t byte : bits_in.toInts()) in.bits.push_back(static_cast<uint8_t>(byte));
  const HostTensor wo = HostTensor::floats(c.dt, {e, e}, in.wo);
  const HostTensor mask = HostTensor::floats(c.dt, {c.b, c.h, c.t, c.s}, in.mask);
  HostTensor y(c.dt, {c.b * c.t, e}), bits_out(ACL_UINT8, {dropoutMaskBytes(n)}), qr(c.dt, {c.b, c.h, c.t, c.d}),
      kr(c.dt, {c.b, c.h, c.s, c.d}), vr = kr, scores(c.use_float ? ACL_FLOAT : c.dt, {c.b, c.h, c.t, c.s}),
                                      attn(c.dt, {c.b, c.h, c.t, c.s}), ctx(c.dt, {c.b * c.t, e});
  OpCall fwd = makeCall("MultiHeadAttention", {&x[0], &x[1], &x[2], &w[0], &w[1], &w[2], &mask, &wo},
                        {&y, &bits_out, &qr, &kr, &vr, &scores, &attn, &ctx},
                        attrs({{"attn_head_num", c.h},
                               {"attn_dim_per_head", c.d},
                               {"src_len", c.s},
                               {"tgt_len", c.t},
                               {"keep_prob", c.keep},
                               {"softmax_use_float", c.use_float},
                               {"has_query_bias", c.biases},
                               {"has_key_bias", c.biases},
                               {"has_value_bias", c.biases},
                               {"has_out_proj_bias", c.biases},
                               {"has_dropout_mask", give_mask},
                               {"seed", int64_t{7}},
                               {"offset", int64_t{12}}}));
  if (c.biases)
    for (const HostTensor& b : bias) fwd.inputs.push_back(b.arg());
  if (give_mask) fwd.inputs.push_back(bits_in.arg());
  run(fwd);
  EXPECT_EQ(bits_out.toInts(), bits_in.toInts())
      << "the mask given, or the one DropOutGenMask draws from (seed, offset)";
  const MhaRef ref = reference(c, in);
  const double tol = c.dt == ACL_FLOAT ? 2e-5 : 6e-3;
  expectCloseScaled(qr.toFloats(), ref.res[0], tol, "query_res");
  expectCloseScaled(kr.toFloats(), ref.res[1], tol, "key_res");
  expectCloseScaled(vr.toFloats(), ref.res[2], tol, "value_res");
  expectCloseScaled(scores.toFloats(), ref.scores, tol, "attn_scores");
  expectCloseScaled(attn.toFloats(), ref.attn, tol, "attn_res");
  expectCloseScaled(ctx.toFloats(), ref.ctx, 2 * tol, "context");
  expectCloseScaled(y.toFloats(), ref.y, 3 * tol, "y");

  const HostTensor dy = HostTensor::floats(c.dt, {c.b * c.t, e}, in.dy);
  std::vector<HostTensor> grads;
  for (const Shape& s :
       {Shape{e, e}, Shape{e, c.ek}, Shape{e, c.ev}, Shape{e, e}, Shape{c.b * c.t, e}, Shape{c.b * c.s, c.ek},
        Shape{c.b * c.s, c.ev}, Shape{1, e}, Shape{1, e}, Shape{1, e}, Shape{1, e}})
    grads.emplace_back(c.dt, s);
  OpCall bwd = makeCall("MultiHeadAttentionGrad",
                        {&x[0], &x[1], &x[2], &w[0], &w[1], &w[2], &wo, &qr, &kr, &vr, &scores, &attn, &ctx, &dy}, {},
                        fwd.attrs);
  if (c.keep < 1.0f) bwd.inputs.push_back(bits_out.arg());
  for (const HostTensor& g : grads) bwd.outputs.push_back(g.arg());
  run(bwd);
  const double gtol = c.dt == ACL_FLOAT ? 1e-4 : 1.5e-2;
  const char* names[] = {"dWq", "dWk", "dWv", "dWo", "dquery", "dkey", "dvalue", "dbq", "dbk", "dbv", "dbo"};
  const Mat* want[] = {&ref.dw[0], &ref.dw[1], &ref.dw[2], &ref.dw[3], &ref.dx[0], &ref.dx[1],
                       &ref.dx[2], &ref.db[0], &ref.db[1], &ref.db[2], &ref.db[3]};
  // The key bias's gradient is 0 (softmax ignores a shift of its row): the
  // bias gradients are judged at the scale of the largest of them.
  double bias_scale = 0;
  for (size_t g = 7; g < 11; ++g)
    for (double v : *want[g]) bias_scale = std::max(bias_scale, std::fabs(v));
  for (size_t g = 0; g < 11; ++g)
    expectCloseScaled(grads[g].toFloats(), *want[g], gtol, names[g], g >= 7 ? bias_scale : 0);
}

TEST(KernelMultiHeadAttention, MatchesTheReferenceForwardAndBackward) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
    MhaCase c;
    c.dt = dt;
    checkCase(c, 1, false);
    c.biases = false, c.keep = 0.75f, c.use_float = dt == ACL_FLOAT;
    checkCase(c, 2, true);
    checkCase(c, 3, false);
  }
}

TEST(KernelMultiHeadAttention, RejectsBadOperands) {
  MhaCase c;
  const int64_t e = c.e();
  const HostTensor q(ACL_FLOAT, {c.b * c.t, e}), kv(ACL_FLOAT, {c.b * c.s, e}), w(ACL_FLOAT, {e, e}),
      mask(ACL_FLOAT, {c.b, 1, c.t, c.s}), odd_rows(ACL_FLOAT, {c.b * c.s + 1, e}), wide_w(ACL_FLOAT, {e, e + 1});
  HostTensor y(ACL_FLOAT, {c.b * c.t, e}), bits(ACL_UINT8, {dropoutMaskBytes(c.b * c.h * c.t * c.s)}),
      qr(ACL_FLOAT, {c.b, c.h, c.t, c.d}), kr(ACL_FLOAT, {c.b, c.h, c.s, c.d}), sc(ACL_FLOAT, {c.b, c.h, c.t, c.s});
  const AttrMap a = attrs(
      {{"attn_head_num", c.h}, {"attn_dim_per_head", c.d}, {"src_len", c.s}, {"tgt_len", c.t}, {"keep_prob", 1.0f}});
  auto fwd = [&](const HostTensor& key, const HostTensor& kw, AttrMap at) {
    return makeCall("MultiHeadAttention", {&q, &key, &kv, &w, &kw, &w, &mask, &w},
                    {&y, &bits, &qr, &kr, &kr, &sc, &sc, &y}, std::move(at));
  };
  run(fwd(kv, w, a));  // the well-formed call runs
  EXPECT_KERNEL_ERROR(fwd(odd_rows, w, a), ACL_ERROR_OP_INPUT_NOT_MATCH, "src_len");
  EXPECT_KERNEL_ERROR(fwd(kv, wide_w, a), ACL_ERROR_OP_INPUT_NOT_MATCH, "key_weight");
  EXPECT_KERNEL_ERROR(fwd(kv, w,
                          attrs({{"attn_head_num", c.h},
                                 {"attn_dim_per_head", c.d},
                                 {"src_len", c.s},
                                 {"tgt_len", c.t},
                                 {"has_query_bias", true}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "announce");
  EXPECT_KERNEL_ERROR(
      fwd(kv, w,
          attrs({{"attn_head_num", int64_t{0}}, {"attn_dim_per_head", c.d}, {"src_len", c.s}, {"tgt_len", c.t}})),
      ACL_ERROR_OP_ATTR_NOT_MATCH, "must be positive");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
