// AttentionScore / AttentionScoreGrad (Note [AttentionScore]) against the
// double reference of attention_reference.h, and DropOutGenMaskV3's byte
// mask against DropOutGenMask's bits.
#include <cmath>
#include <string>

#include "aicore/units.h"
#include "attention_test_util.h"
#include "cost/cost_model.h"
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

constexpr float kMasked = -10000.0f;

struct ScoreCase {
  int64_t b = 2, n = 3, sq = 20, skv = 20, d = 16;
  float scale = 0.125f, keep_prob = 1.0f;
  aclDataType dt = ACL_FLOAT;
};

struct ScoreRun {
  std::vector<float> q, k, v, dy, mask;  // logical [B,N,S,D] / [B,1,Sq,Skv], rounded to dt
  std::vector<int64_t> drop;             // [B,N,Sq,Skv] bytes
};

HostTensor byteMask(const ScoreCase& c, float keep, int64_t seed) {
  HostTensor m(ACL_UINT8, {c.b * c.n * c.sq * c.skv});
  run(makeCall("DropOutGenMaskV3", {}, {&m},
               attrs({{"shape", std::vector<int64_t>{c.b, c.n, c.sq, c.skv}},
                      {"keep_prob", keep},
                      {"seed", seed},
                      {"offset", int64_t{4}}})));
  return m;
}

// Softmax probabilities of the reference, [B, N, Sq, Skv], in double.
std::vector<double> referenceProbs(const ScoreCase& c, const ScoreRun& r) {
  std::vector<double> p(static_cast<size_t>(c.b * c.n * c.sq * c.skv));
  for (int64_t bi = 0; bi < c.b; ++bi)
    for (int64_t ni = 0; ni < c.n; ++ni)
      for (int64_t i = 0; i < c.sq; ++i) {
        double* row = p.data() + ((bi * c.n + ni) * c.sq + i) * c.skv;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < c.skv; ++j) {
          double s = 0;
          for (int64_t e = 0; e < c.d; ++e)
            s += double(r.q[((bi * c.n + ni) * c.sq + i) * c.d + e]) * r.k[((bi * c.n + ni) * c.skv + j) * c.d + e];
          row[j] = s * c.scale + r.mask[(bi * c.sq + i) * c.skv + j];
          mx = std::max(mx, row[j]);
        }
        for (int64_t j = 0; j < c.skv; ++j) sum += row[j] = std::exp(row[j] - mx);
        for (int64_t j = 0; j < c.skv; ++j) row[j] /= sum;
      }
  return p;
}

void checkCase(const ScoreCase& c, uint32_t seed) {
  SCOPED_TRACE(std::string(dtypeName(c.dt)) + " Sq " + std::to_string(c.sq) + " Skv " + std::to_string(c.skv) +
               " keep " + std::to_string(c.keep_prob));
  ScoreRun r;
  r.q = rounded(c.dt, randomFloats(c.b * c.n * c.sq * c.d, -1, 1, seed));
  r.k = rounded(c.dt, randomFloats(c.b * c.n * c.skv * c.d, -1, 1, seed + 1));
  r.v = rounded(c.dt, randomFloats(c.b * c.n * c.skv * c.d, -1, 1, seed + 2));
  r.dy = rounded(c.dt, randomFloats(c.b * c.n * c.sq * c.d, -1, 1, seed + 3));
  const std::vector<int64_t> masked = sparseMask(c.b * c.sq * c.skv, seed + 4);
  for (int64_t m : masked) r.mask.push_back(m ? kMasked : 0.0f);
  const HostTensor drop = byteMask(c, c.keep_prob, seed);
  // The reference: scale * (q k^T + mask / scale) is the kernel's scale * q k^T + mask (scale a power of 2).
  AttentionCase ref_case;
  ref_case.b = c.b, ref_case.n = ref_case.n_kv = c.n, ref_case.sq = c.sq, ref_case.skv = c.skv, ref_case.d = c.d;
  ref_case.scale = c.scale, ref_case.keep_prob = c.keep_prob, ref_case.band = false;
  std::vector<float> pse;
  for (float m : r.mask) pse.push_back(m / c.scale);
  ref_case.pse = broadcast4(pse, {c.b, 1, c.sq, c.skv}, ref_case);
  for (int64_t x : drop.toInts()) ref_case.keep.push_back(static_cast<uint8_t>(x));
  const AttentionRef ref = attentionReference(ref_case, r.q, r.k, r.v, r.dy);

  const Heads qh{c.b, c.n, c.sq, c.d}, kh{c.b, c.n, c.skv, c.d};
  const HostTensor q = qh.store("BNSD", c.dt, r.q), k = kh.store("BNSD", c.dt, r.k), v = kh.store("BNSD", c.dt, r.v);
  const HostTensor mask = HostTensor::floats(c.dt, {c.b, 1, c.sq, c.skv}, r.mask);
  HostTensor out(c.dt, {c.b, c.sq, c.n, c.d}), probs(c.dt, {c.b, c.n, c.sq, c.skv});
  const AttrMap a = attrs({{"scale", c.scale}, {"keep_prob", c.keep_prob}});
  run(makeCall("AttentionScore", {&q, &k, &v, &mask, &drop}, {&out, &probs}, a));
  const double rtol = rtolFor(c.dt), atol = atolFor(c.dt);
  expectClose(qh.load("BSND", out), ref.out, rtol, atol, "attention_score ([B, Sq, N, D])");
  expectClose(probs.toFloats(), referenceProbs(c, r), rtol, atol, "softmax_output");

  const HostTensor dy = qh.store("BSND", c.dt, r.dy);
  HostTensor dv(c.dt, {c.b, c.skv, c.n, c.d}), dq(c.dt, {c.b, c.sq, c.n, c.d}), dk = dv;
  run(makeCall("AttentionScoreGrad", {&probs, &dy, &v, &k, &q, &drop}, {&dv, &dq, &dk}, a));
  // The gradient starts from the stored (rounded) probabilities: a looser bound.
  const double gtol = c.dt == ACL_FLOAT ? 1e-4 : 2.5 * atol;
  expectClose(qh.load("BSND", dq), ref.dq, gtol, gtol, "query_dx");
  expectClose(kh.load("BSND", dk), ref.dk, gtol, gtol, "key_dw");
  expectClose(kh.load("BSND", dv), ref.dv, gtol, gtol, "value_dw");
}

TEST(KernelAttentionScore, MatchesTheReferenceForwardAndBackward) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    ScoreCase c;
    c.dt = dt;
    checkCase(c, 3);
    c.skv = 33, c.keep_prob = 0.75f;  // cross attention with dropout
    checkCase(c, 13);
  }
  ScoreCase odd;  // one head, odd sizes, more than one Cube fractal per dim
  odd.b = 1, odd.n = 1, odd.sq = 37, odd.skv = 5, odd.d = 24, odd.scale = 0.25f, odd.keep_prob = 0.5f;
  checkCase(odd, 23);
}

TEST(KernelAttentionScore, ByteMaskHoldsTheBitMasksDraws) {
  const int64_t n = 1000;
  HostTensor bytes(ACL_UINT8, {n}), bits(ACL_UINT8, {(n + 127) / 128 * 16});
  const AttrMap a =
      attrs({{"shape", std::vector<int64_t>{n}}, {"keep_prob", 0.7f}, {"seed", int64_t{9}}, {"offset", int64_t{8}}});
  run(makeCall("DropOutGenMaskV3", {}, {&bytes}, a));
  run(makeCall("DropOutGenMask", {}, {&bits}, a));
  const std::vector<int64_t> by = bytes.toInts(), bi = bits.toInts();
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(by[i], (bi[i / 8] >> (i % 8)) & 1) << "element " << i;
    kept += by[i];
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.7, 0.05);
}

TEST(KernelAttentionScore, RejectsBadOperandsAndCostsTwoCubeProducts) {
  ScoreCase c;
  const Heads qh{c.b, c.n, c.sq, c.d};
  const HostTensor q = qh.store("BNSD", ACL_FLOAT, std::vector<float>(c.b * c.n * c.sq * c.d, 0.5f));
  const HostTensor mask(ACL_FLOAT, {c.b, 1, c.sq, c.skv}), bad_mask(ACL_FLOAT, {c.b, 2, c.sq, c.skv});
  const HostTensor drop = byteMask(c, 1.0f, 1), short_drop(ACL_UINT8, {7});
  HostTensor out(ACL_FLOAT, {c.b, c.sq, c.n, c.d}), probs(ACL_FLOAT, {c.b, c.n, c.sq, c.skv});
  const AttrMap a = attrs({{"scale", 0.125f}, {"keep_prob", 1.0f}});
  EXPECT_KERNEL_ERROR(makeCall("AttentionScore", {&q, &q, &q, &mask, &short_drop}, {&out, &probs}, a),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "one per [B, N, Sq, Skv] element");
  EXPECT_KERNEL_ERROR(makeCall("AttentionScore", {&q, &q, &q, &bad_mask, &drop}, {&out, &probs}, a),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "does not broadcast");
  const HostTensor flat(ACL_FLOAT, {c.b, c.sq, c.n * c.d});
  EXPECT_KERNEL_ERROR(makeCall("AttentionScore", {&flat, &q, &q, &mask, &drop}, {&out, &probs}, a),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "must be 4-D");
  EXPECT_KERNEL_ERROR(makeCall("AttentionScore", {&q, &q, &q, &mask, &drop}, {&out, &probs},
                               attrs({{"scale", 0.125f}, {"keep_prob", 0.0f}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "keep_prob");
  const HostTensor no_channels(ACL_FLOAT, {c.b, c.n, c.sq, 0});
  HostTensor no_out(ACL_FLOAT, {c.b, c.sq, c.n, 0});
  EXPECT_KERNEL_ERROR(
      makeCall("AttentionScore", {&no_channels, &no_channels, &no_channels, &mask, &drop}, {&no_out, &probs}, a),
      ACL_ERROR_OP_INPUT_NOT_MATCH, "head size D");
  const KernelCost cost =
      kernel("AttentionScore").cost(makeCall("AttentionScore", {&q, &q, &q, &mask, &drop}, {&out, &probs}, a));
  const double heads = static_cast<double>(c.b * c.n);
  EXPECT_DOUBLE_EQ(cost.cube_macs,
                   heads * (cubeUnit().padded_macs(c.sq, c.skv, c.d) + cubeUnit().padded_macs(c.sq, c.d, c.skv)));
  EXPECT_EQ(cost.core, CoreType::kAiCore);
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
