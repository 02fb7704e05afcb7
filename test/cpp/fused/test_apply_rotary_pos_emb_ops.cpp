// npu_apply_rotary_pos_emb: query and key embedded in place by one
// ApplyRotaryPosEmb kernel, against the CPU composition of the embedding's
// definition (chunk, negate, cat, multiply, add) in every layout and rotary
// mode; its autograd (none: torch_npu defines no backward) and its errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

// The op through the boxed dispatcher (a typed call cannot return references to
// its first arguments in torch 1.13: Note [Returned mutable arguments] in
// codegen/gen_npu.py); returns what the op returned.
std::vector<at::Tensor> ropeCall(const at::Tensor& query, const at::Tensor& key, const at::Tensor& cos,
                                 const at::Tensor& sin, const std::string& layout, const std::string& mode) {
  static const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("npu::npu_apply_rotary_pos_emb", "");
  torch::jit::Stack stack{query, key, cos, sin, layout, mode};
  op.callBoxed(&stack);
  return {stack.at(0).toTensor(), stack.at(1).toTensor()};
}

// rot(x) as the definition composes it from chunks of the last dim.
at::Tensor rotated(const at::Tensor& x, const std::string& mode) {
  if (mode == "interleave") {
    std::vector<int64_t> pairs = x.sizes().vec();
    pairs.back() /= 2;
    pairs.push_back(2);
    const at::Tensor p = x.reshape(pairs);
    return at::stack({-p.select(-1, 1), p.select(-1, 0)}, -1).reshape(x.sizes());
  }
  const auto chunks = x.chunk(mode == "quarter" ? 4 : 2, -1);
  std::vector<at::Tensor> parts;
  for (size_t i = 0; i < chunks.size(); i += 2) {
    parts.push_back(-chunks[i + 1]);
    parts.push_back(chunks[i]);
  }
  return at::cat(parts, -1);
}

at::Tensor embedded(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, const std::string& mode) {
  const at::Tensor xf = x.to(at::kFloat);
  return (xf * cos.to(at::kFloat) + rotated(xf, mode) * sin.to(at::kFloat)).to(x.scalar_type());
}

struct RopeCase {
  std::string layout;
  std::vector<int64_t> q, k, table;
};

const std::vector<RopeCase>& ropeCases() {
  static const std::vector<RopeCase> cases = {{"BSH", {2, 5, 4, 8}, {2, 5, 2, 8}, {2, 5, 1, 8}},  // GQA: 2 key heads
                                              {"BSND", {1, 3, 2, 16}, {1, 3, 2, 16}, {1, 3, 1, 16}},
                                              {"SBND", {5, 2, 4, 8}, {5, 2, 1, 8}, {5, 1, 1, 8}},
                                              {"BNSD", {2, 4, 5, 8}, {2, 2, 5, 8}, {1, 1, 5, 8}},
                                              {"TND", {7, 3, 8}, {7, 1, 8}, {7, 1, 8}}};
  return cases;
}

}  // namespace

TEST(NpuApplyRotaryPosEmb, EmbedsQueryAndKeyInPlaceInEveryLayoutAndMode) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    // fp32 math rounded once against the CPU's fp32 composition rounded once; bf16 has 8 bits.
    const double tol = dtype == at::kBFloat16 ? 8e-3 : rtolFor(dtype);
    for (const std::string mode : {"half", "interleave", "quarter"}) {
      for (const RopeCase& c : ropeCases()) {
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + mode + " " + c.layout);
        const at::Tensor q = at::randn(c.q).to(dtype), k = at::randn(c.k).to(dtype), cos = at::randn(c.table).to(dtype),
                         sin = at::randn(c.table).to(dtype);
        at::Tensor nq = q.to(npu()), nk = k.to(npu());
        const void* q_ptr = nq.data_ptr();
        const auto r = ropeCall(nq, nk, cos.to(npu()), sin.to(npu()), c.layout, mode);
        EXPECT_EQ(r[0].data_ptr(), q_ptr);  // in place: the returned tensors are query and key
        EXPECT_EQ(r[1].data_ptr(), nk.data_ptr());
        expectClose(nq, embedded(q, cos, sin, mode), tol, tol);
        expectClose(nk, embedded(k, cos, sin, mode), tol, tol);
      }
    }
  }
}

TEST(NpuApplyRotaryPosEmb, IsOneKernelAndWritesThroughViews) {
  const at::Tensor q = at::randn({2, 4, 3, 8}), k = at::randn({2, 4, 3, 8}), cos = at::randn({1, 4, 1, 8}),
                   sin = at::randn({1, 4, 1, 8});
  at::Tensor nq = q.to(npu()), nk = k.to(npu());
  const at::Tensor ncos = cos.to(npu()), nsin = sin.to(npu());
  torch_npu::synchronize(0);
  {
    OpRecorder rec;
    ropeCall(nq, nk, ncos, nsin, "BSH", "half");
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"ApplyRotaryPosEmb"}) << rec.summary();
  }
  expectClose(nq, embedded(q, cos, sin, "half"));
  // A non-contiguous query (a BNSD tensor seen as BSND) is updated through the view.
  at::Tensor base = q.transpose(1, 2).contiguous().to(npu()), view = base.transpose(1, 2);
  at::Tensor nk2 = k.to(npu());
  ropeCall(view, nk2, ncos, nsin, "BSND", "half");
  expectClose(base.transpose(1, 2), embedded(q, cos, sin, "half"));
  // Empty query and key are left as they are.
  at::Tensor e = at::empty({2, 0, 3, 8}).to(npu()), e2 = at::empty({2, 0, 3, 8}).to(npu());
  ropeCall(e, e2, at::empty({2, 0, 1, 8}).to(npu()), at::empty({2, 0, 1, 8}).to(npu()), "BSH", "half");
  EXPECT_EQ(e.sizes(), at::IntArrayRef({2, 0, 3, 8}));
}

// torch_npu defines no backward: autograd says so instead of a silently missing gradient.
TEST(NpuApplyRotaryPosEmb, HasNoGradientAndBumpsTheVersion) {
  const at::Tensor cos = at::randn({1, 2, 1, 8}).to(npu()), sin = at::randn({1, 2, 1, 8}).to(npu());
  at::Tensor leaf = at::randn({1, 2, 2, 8}).to(npu()).requires_grad_(), key = at::randn({1, 2, 2, 8}).to(npu());
  EXPECT_THROW_WITH(ropeCall(leaf, key, cos, sin, "BSH", "half"), "leaf Variable that requires grad");
  at::Tensor q = leaf * 2;
  ropeCall(q, key, cos, sin, "BSH", "half");
  EXPECT_TRUE(q.requires_grad());
  EXPECT_THROW_WITH(q.sum().backward(), "npu_apply_rotary_pos_emb", "not implemented");
  // A tensor autograd saved, then rotated in place, is caught at backward.
  at::Tensor r = leaf * 1, saved_by_mul = r * r;
  {
    at::NoGradGuard no_grad;
    ropeCall(r, key, cos, sin, "BSH", "half");
  }
  EXPECT_THROW_WITH(saved_by_mul.sum().backward(), "modified by an inplace operation");
}

TEST(NpuApplyRotaryPosEmb, BadArgumentsRaise) {
  const auto n = [](std::vector<int64_t> s, at::ScalarType t = at::kFloat) { return at::randn(s).to(t).to(npu()); };
  at::Tensor q = n({1, 2, 2, 8}), k = n({1, 2, 2, 8}), t = n({1, 2, 1, 8});
  EXPECT_THROW_WITH(ropeCall(q, k, t, t, "BHS", "half"), "layout must be one of", "\"BHS\"");
  EXPECT_THROW_WITH(ropeCall(q, k, t, t, "BSH", "full"), "rotary_mode must be", "\"full\"");
  at::Tensor kh = n({1, 2, 2, 8}, at::kHalf), k3 = n({1, 3, 2, 8}), q3 = n({2, 2, 8}), odd = n({1, 2, 2, 6});
  EXPECT_THROW_WITH(ropeCall(q, kh, t, t, "BSH", "half"), "must have one dtype", "Float and Half");
  EXPECT_THROW_WITH(ropeCall(q, k3, t, t, "BSH", "half"), "key of shape [1, 3, 2, 8] must match query");
  EXPECT_THROW_WITH(ropeCall(q3, q3, t, t, "BSH", "half"), "layout BSH takes 4-d query and key");
  EXPECT_THROW_WITH(ropeCall(q, k, n({1, 2, 2, 8}), n({1, 2, 2, 8}), "BSH", "half"), "must broadcast to [1, 2, 1, 8]");
  EXPECT_THROW_WITH(ropeCall(q, k, t, n({1, 1, 1, 8}), "BSH", "half"), "must have one shape");
  EXPECT_THROW_WITH(ropeCall(odd, odd, n({1, 2, 1, 6}), n({1, 2, 1, 6}), "BSH", "quarter"),
                    "head size 6 must split into 4 equal parts");
  at::Tensor cpu_k = at::randn({1, 2, 2, 8});
  EXPECT_THROW_WITH(ropeCall(q, cpu_k, t, t, "BSH", "half"), "must be on one device");
}
