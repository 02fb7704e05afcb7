// ApplyRotaryPosEmb (Note [Apply rotary pos emb]) against the rotary embedding
// computed here in double from its definition, element by element: in every
// layout and rotary mode, with fewer key heads than query heads, in place.
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

// rot(x)[j] as the definition states it: the partner element's index and sign.
std::pair<int64_t, double> rotationOf(const std::string& mode, int64_t j, int64_t d) {
  if (mode == "interleave") return j % 2 == 0 ? std::make_pair(j + 1, -1.0) : std::make_pair(j - 1, 1.0);
  const int64_t part = mode == "quarter" ? d / 4 : d / 2;
  const int64_t base = j / (2 * part) * (2 * part), within = j - base;
  return within < part ? std::make_pair(j + part, -1.0) : std::make_pair(j - part, 1.0);
}

// The embedding of x (shape `xs`) with tables of shape `ts` broadcast to it.
std::vector<double> reference(const std::vector<float>& x, const Shape& xs, const std::vector<float>& c,
                              const std::vector<float>& s, const Shape& ts, const std::string& mode) {
  const int64_t n = numelOf(xs), d = xs.back();
  const Shape bs = broadcastStrides(ts, xs), strides = contiguousStrides(xs);
  std::vector<double> y(n);
  for (int64_t e = 0; e < n; ++e) {
    int64_t t = 0;
    for (size_t k = 0; k < xs.size(); ++k) t += (e / strides[k]) % xs[k] * bs[k];
    const auto [partner, sign] = rotationOf(mode, e % d, d);
    y[e] = double(x[e]) * c[t] + sign * x[e - e % d + partner] * s[t];
  }
  return y;
}

struct RopeCase {
  int64_t layout;
  Shape q, k, table;
};

TEST(KernelApplyRotaryPosEmb, EveryLayoutAndModeMatchesTheDefinitionInPlace) {
  const RopeCase cases[] = {{1, {2, 5, 4, 8}, {2, 5, 2, 8}, {2, 5, 1, 8}},  // BSND, cos per batch and position
                            {1, {1, 3, 2, 12}, {1, 3, 2, 12}, {1, 3, 1, 12}},
                            {2, {5, 2, 4, 8}, {5, 2, 1, 8}, {5, 1, 1, 8}},  // SBND, one key head
                            {3, {2, 4, 5, 8}, {2, 2, 5, 8}, {1, 1, 5, 8}},  // BNSD
                            {4, {7, 3, 8}, {7, 1, 8}, {7, 1, 8}}};          // TND
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const std::string mode : {"half", "interleave", "quarter"}) {
      for (const RopeCase& c : cases) {
        SCOPED_TRACE(std::string(dtypeName(dt)) + " " + mode + " layout " + std::to_string(c.layout) + " q " +
                     shapeToString(c.q));
        const auto qv = stored(dt, randomFloats(numelOf(c.q), -2, 2, 1)),
                   kv = stored(dt, randomFloats(numelOf(c.k), -2, 2, 2)),
                   cv = stored(dt, randomFloats(numelOf(c.table), -1, 1, 3)),
                   sv = stored(dt, randomFloats(numelOf(c.table), -1, 1, 4));
        HostTensor q = HostTensor::floats(dt, c.q, qv), k = HostTensor::floats(dt, c.k, kv),
                   cos = HostTensor::floats(dt, c.table, cv), sin = HostTensor::floats(dt, c.table, sv);
        run(makeCall("ApplyRotaryPosEmb", {&q, &k, &cos, &sin}, {&q, &k},
                     attrs({{"layout", c.layout}, {"rotary_mode", mode}})));
        const auto tol = oneRounding(dt, 1e-6, 1e-6);
        expectNearReference(q.toFloats(), reference(qv, c.q, cv, sv, c.table, mode), tol, "query");
        expectNearReference(k.toFloats(), reference(kv, c.k, cv, sv, c.table, mode), tol, "key");
      }
    }
  }
}

TEST(KernelApplyRotaryPosEmb, OutOfPlaceEmptyAndBadInputs) {
  // Out of place: the inputs stay, the outputs get the embedding.
  const auto qv = randomFloats(16, -1, 1, 5);
  HostTensor q = HostTensor::floats(ACL_FLOAT, {1, 2, 1, 8}, qv),
             cos = HostTensor::floats(ACL_FLOAT, {1, 2, 1, 8}, randomFloats(16, -1, 1, 6));
  HostTensor q_out(ACL_FLOAT, {1, 2, 1, 8}), k_out(ACL_FLOAT, {1, 2, 1, 8});
  run(makeCall("ApplyRotaryPosEmb", {&q, &q, &cos, &cos}, {&q_out, &k_out}, attrs({{"layout", int64_t{1}}})));
  EXPECT_EQ(q.toFloats(), qv);
  expectNearReference(q_out.toFloats(),
                      reference(qv, {1, 2, 1, 8}, cos.toFloats(), cos.toFloats(), {1, 2, 1, 8}, "half"),
                      oneRounding(ACL_FLOAT, 1e-6, 1e-6), "query");
  EXPECT_EQ(k_out.toFloats(), q_out.toFloats());

  HostTensor e(ACL_FLOAT, {2, 0, 3, 8}), e_table(ACL_FLOAT, {2, 0, 1, 8});
  run(makeCall("ApplyRotaryPosEmb", {&e, &e, &e_table, &e_table}, {&e, &e}));

  const auto bad = [](const OpCall& call, const char* what) {
    EXPECT_KERNEL_ERROR(call, ACL_ERROR_OP_INPUT_NOT_MATCH, what);
  };
  HostTensor k3(ACL_FLOAT, {1, 3, 1, 8}), t2(ACL_FLOAT, {1, 2, 2, 8}), odd(ACL_FLOAT, {1, 2, 1, 6}),
      odd_t(ACL_FLOAT, {1, 2, 1, 6}), h(ACL_FLOAT16, {1, 2, 1, 8}), q3(ACL_FLOAT, {2, 1, 8});
  bad(makeCall("ApplyRotaryPosEmb", {&q, &k3, &cos, &cos}, {&q, &k3}),
      "input key shape [1,3,1,8] must match query shape [1,2,1,8]");
  bad(makeCall("ApplyRotaryPosEmb", {&q, &q, &t2, &t2}, {&q, &q}),
      "input cos shape [1,2,2,8] must broadcast to [1,2,1,8]");
  bad(makeCall("ApplyRotaryPosEmb", {&q, &q, &cos, &q3}, {&q, &q}), "must have one shape");
  bad(makeCall("ApplyRotaryPosEmb", {&q3, &q3, &q3, &q3}, {&q3, &q3}), "must have 4 dims for layout BSND");
  bad(makeCall("ApplyRotaryPosEmb", {&odd, &odd, &odd_t, &odd_t}, {&odd, &odd},
               attrs({{"rotary_mode", std::string("quarter")}})),
      "must split into 4 equal parts");
  EXPECT_KERNEL_ERROR(makeCall("ApplyRotaryPosEmb", {&q, &h, &cos, &cos}, {&q, &h}), ACL_ERROR_OP_INPUT_NOT_MATCH,
                      "input key dtype float16 does not match query dtype float32");
  EXPECT_KERNEL_ERROR(makeCall("ApplyRotaryPosEmb", {&q, &q, &cos, &cos}, {&q, &q}, attrs({{"layout", int64_t{5}}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "attr layout 5 is not 1 (BSND)");
  EXPECT_KERNEL_ERROR(
      makeCall("ApplyRotaryPosEmb", {&q, &q, &cos, &cos}, {&q, &q}, attrs({{"rotary_mode", std::string("full")}})),
      ACL_ERROR_OP_ATTR_NOT_MATCH, "attr rotary_mode \"full\" is not one of");
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
