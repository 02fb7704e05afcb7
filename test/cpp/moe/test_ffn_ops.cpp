// npu_ffn: one FFN kernel against the CPU composition of its definition
// (matmul, bias, activation, matmul, bias), with and without experts, every
// activation; its autograd (none, as in torch_npu) and its errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Opt = c10::optional<at::Tensor>;
using Ffn = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, c10::string_view,
                       at::OptionalIntArrayRef, at::OptionalIntArrayRef, const Opt&, const Opt&, const Opt&, const Opt&,
                       const Opt&, const Opt&, const Opt&, const Opt&, const Opt&, const Opt&, c10::optional<int64_t>,
                       c10::optional<at::ScalarType>);
const auto& ffn() {
  static const auto op = npuOp<Ffn>("npu::npu_ffn");
  return op;
}

at::Tensor callFfn(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2, const std::string& act,
                   at::OptionalIntArrayRef tokens = c10::nullopt, const Opt& b1 = {}, const Opt& b2 = {},
                   at::OptionalIntArrayRef index = c10::nullopt, const Opt& scale = {}) {
  return ffn().call(x, w1, w2, act, tokens, index, b1, b2, scale, {}, {}, {}, {}, {}, {}, {}, c10::nullopt,
                    c10::nullopt);
}

at::Tensor activation(const std::string& act, const at::Tensor& c) {
  const bool gated = act == "geglu" || act == "swiglu" || act == "reglu";
  const at::Tensor a = gated ? c.chunk(2, -1)[0] : c;
  at::Tensor h;
  if (act == "fastgelu") h = a * at::sigmoid(1.702 * a);
  if (act == "gelu" || act == "geglu") h = at::gelu(a, "tanh");
  if (act == "silu" || act == "swiglu") h = at::silu(a);
  if (act == "relu" || act == "reglu") h = at::relu(a);
  return gated ? h * c.chunk(2, -1)[1] : h;
}

// The CPU composition in fp32; h rounded to x's dtype between the products, as the kernel's workspace holds it.
at::Tensor reference(const at::Tensor& x, const at::Tensor& w1, const at::Tensor& w2, const std::string& act,
                     std::vector<int64_t> tokens, const Opt& b1, const Opt& b2) {
  const at::Tensor xf = x.to(at::kFloat).reshape({-1, x.size(-1)});
  if (tokens.empty()) tokens = {xf.size(0)};
  std::vector<at::Tensor> rows;
  int64_t start = 0;
  for (size_t e = 0; e < tokens.size(); ++e) {
    const at::Tensor w1e = w1.dim() == 3 ? w1[e] : w1, w2e = w2.dim() == 3 ? w2[e] : w2;
    at::Tensor c = xf.narrow(0, start, tokens[e]).matmul(w1e.to(at::kFloat));
    if (b1) c = c + (b1->dim() == 2 ? (*b1)[e] : *b1).to(at::kFloat);
    at::Tensor y = activation(act, c).to(x.scalar_type()).to(at::kFloat).matmul(w2e.to(at::kFloat));
    if (b2) y = y + (b2->dim() == 2 ? (*b2)[e] : *b2).to(at::kFloat);
    rows.push_back(y);
    start += tokens[e];
  }
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = w2.size(-1);
  return at::cat(rows).reshape(shape).to(x.scalar_type());
}

}  // namespace

TEST(NpuFfn, EveryActivationMatchesTheComposition) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    // h may round one unit apart from the CPU's (fp32 sums in another order): that unit times the weights.
    const double tol = dtype == at::kBFloat16 ? 3e-2 : (dtype == at::kHalf ? 4e-3 : 1e-4);
    for (const std::string act : {"fastgelu", "gelu", "relu", "silu", "geglu", "swiglu", "reglu"}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + act);
      const bool gated = act == "geglu" || act == "swiglu" || act == "reglu";
      const at::Tensor x = at::randn({2, 3, 16}).to(dtype), w1 = (at::randn({16, 24}) * 0.25).to(dtype),
                       w2 = (at::randn({gated ? 12 : 24, 8}) * 0.25).to(dtype), b1 = at::randn({24}) * 0.1,
                       b2 = (at::randn({8}) * 0.1).to(dtype);
      const at::Tensor y =
          callFfn(x.to(npu()), w1.to(npu()), w2.to(npu()), act, c10::nullopt, b1.to(npu()), b2.to(npu()));
      expectClose(y, reference(x, w1, w2, act, {}, b1, b2), tol, tol);
    }
  }
}

TEST(NpuFfn, ExpertsTakeTheirTokensAndIsOneKernel) {
  const std::vector<int64_t> tokens = {3, 0, 7};
  const at::Tensor x = at::randn({10, 8}).to(at::kHalf), w1 = (at::randn({3, 8, 12}) * 0.3).to(at::kHalf),
                   w2 = (at::randn({3, 6, 4}) * 0.3).to(at::kHalf), b2 = at::randn({3, 4}) * 0.1;
  const at::Tensor nx = x.to(npu()), nw1 = w1.to(npu()), nw2 = w2.to(npu()), nb2 = b2.to(npu());
  torch_npu::synchronize(0);
  at::Tensor y;
  {
    OpRecorder rec;
    y = callFfn(nx, nw1, nw2, "swiglu", tokens, {}, nb2);
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"FFN"}) << rec.summary();
  }
  const at::Tensor want = reference(x, w1, w2, "swiglu", tokens, {}, b2);
  expectClose(y, want, 4e-3, 4e-3);
  // expert_tokens_index: the same experts as cumulative ends.
  expectClose(callFfn(nx, nw1, nw2, "swiglu", c10::nullopt, {}, nb2, std::vector<int64_t>{3, 3, 10}), want, 4e-3, 4e-3);
  const at::Tensor empty = callFfn(at::empty({0, 8}, at::kHalf).to(npu()), nw1[0], nw2[0], "swiglu");
  EXPECT_EQ(empty.sizes(), at::IntArrayRef({0, 4}));
  // K1 = 0: the first product is empty, every row's y is act(b1)·W2 + b2.
  const at::Tensor kb1 = at::randn({6}), kb2 = at::randn({3}), kw2 = at::randn({6, 3});
  const at::Tensor no_k = callFfn(at::empty({5, 0}).to(npu()), at::empty({0, 6}).to(npu()), kw2.to(npu()), "relu",
                                  c10::nullopt, kb1.to(npu()), kb2.to(npu()));
  expectClose(no_k, (at::relu(kb1).matmul(kw2) + kb2).expand({5, 3}), 1e-3, 1e-3);
}

// torch_npu defines no backward: autograd says so instead of a silently missing gradient.
TEST(NpuFfn, HasNoGradientAndBadArgumentsRaise) {
  const at::Tensor x = at::randn({4, 8}).to(npu()).requires_grad_(), w1 = at::randn({8, 12}).to(npu()),
                   w2 = at::randn({12, 4}).to(npu());
  const at::Tensor y = callFfn(x, w1, w2, "relu");
  EXPECT_TRUE(y.requires_grad());
  EXPECT_THROW_WITH(y.sum().backward(), "npu_ffn", "not implemented");
  const at::Tensor xd = x.detach();
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "tanh"), "activation must be one of", "\"tanh\"");
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "swiglu"), "weight2 of shape [12, 4] must take the activation's 6 columns");
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "relu", std::vector<int64_t>{2, 3}), "add up to 5, x has 4 token rows");
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "relu", std::vector<int64_t>{4}), "must be [E, K, N] for E = 1 experts");
  EXPECT_THROW_WITH(callFfn(xd, w1.to(at::kHalf), w2, "relu"), "must have one dtype");
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "relu", c10::nullopt, at::randn({11}).to(npu())),
                    "bias1 of shape [11] must be [12]");
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "relu", c10::nullopt, {}, {}, c10::nullopt, at::ones({4}).to(npu())),
                    "quantised FFN", "not supported by the NPU backend");
  EXPECT_THROW_WITH(callFfn(xd, w1, w2, "relu", std::vector<int64_t>{4}, {}, {}, std::vector<int64_t>{4}), "not both");
}
