// torch_npu's mixture-of-experts ops (csrc/aten/moe/) on the NPU against CPU
// compositions of the same math written here, forward and backward, fp32 and
// fp16; one kernel per op each way (an op record check); their argument errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Opt = c10::optional<at::Tensor>;
using Triple = std::tuple<at::Tensor, at::Tensor, at::Tensor>;
const auto& gating() {
  static const auto op = npuOp<Triple(const at::Tensor&, const Opt&, int64_t)>("npu::npu_moe_gating_top_k_softmax");
  return op;
}
const auto& initRouting() {
  static const auto op =
      npuOp<Triple(const at::Tensor&, const at::Tensor&, const at::Tensor&, int64_t)>("npu::npu_moe_init_routing");
  return op;
}
const auto& expertTokens() {
  static const auto op = npuOp<at::Tensor(const at::Tensor&, int64_t)>("npu::npu_moe_compute_expert_tokens");
  return op;
}
const auto& finalize() {
  static const auto op =
      npuOp<at::Tensor(const at::Tensor&, const Opt&, const Opt&, const Opt&, const Opt&, const at::Tensor&, const Opt&,
                       c10::optional<int64_t>)>("npu::npu_moe_finalize_routing");
  return op;
}
using TensorListOpt = c10::optional<at::TensorList>;
const auto& grouped() {
  static const auto op = npuOp<std::vector<at::Tensor>(
      at::TensorList, at::TensorList, TensorListOpt, TensorListOpt, TensorListOpt, TensorListOpt, TensorListOpt,
      at::OptionalIntArrayRef, c10::optional<int64_t>, c10::optional<at::ScalarType>)>("npu::npu_grouped_matmul");
  return op;
}

bool onNpu(const at::Tensor& t) { return t.device() == npu(); }

// Routing of n tokens to k of e experts: expert_idx [n, k] (distinct per row) and row_idx as the gating op writes it.
struct Routing {
  at::Tensor expert, row;
  Routing(int64_t n, int64_t k, int64_t e) {
    expert = at::rand({n, e}).argsort(int64_t{1}).slice(1, 0, k).to(at::kInt);
    row = (at::arange(k).unsqueeze(0) * n + at::arange(n).unsqueeze(1)).to(at::kInt);
  }
  // The CPU reference's token of every expanded row and its destination per (choice, token).
  std::pair<at::Tensor, at::Tensor> reference() const {
    const int64_t n = expert.size(0);
    const at::Tensor sorted = std::get<1>(expert.reshape(-1).to(at::kLong).sort(/*stable=*/true, 0, false));
    const at::Tensor source = row.reshape(-1).to(at::kLong).index_select(0, sorted);  // k * n + token
    at::Tensor dst = at::empty_like(source);
    dst.index_put_({source}, at::arange(source.numel()));
    return {source.remainder(n), dst};
  }
};

}  // namespace

TEST(MoeOps, GatingIsTheTopKOfTheSoftmaxAndDifferentiable) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    // Logits 0.25 apart: no two probabilities of a row round to one fp16 value, so the
    // top-k order (and where each output's gradient goes) is the same on both sides.
    const at::Tensor x = at::randperm(42).reshape({7, 6}).to(at::kFloat).mul(0.25).sub(5).to(dtype);
    expectSameAutograd(
        [](const std::vector<at::Tensor>& in) {
          if (onNpu(in[0])) return std::get<0>(gating().call(in[0], c10::nullopt, 3));
          return std::get<0>(in[0].softmax(-1).topk(3));
        },
        {x}, rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
    auto [y, experts, rows] = gating().call(x.to(npu()), c10::nullopt, 3);
    EXPECT_TRUE(at::equal(experts.cpu().to(at::kLong), std::get<1>(x.to(at::kFloat).softmax(-1).topk(3))));
    EXPECT_TRUE(at::equal(rows.cpu(), Routing(7, 3, 6).row));
  }
  // A finished row names no expert (6), and its gradient still flows through its probabilities.
  const at::Tensor x = at::randn({3, 6}), finished = at::tensor({0, 1, 0}).to(at::kBool);
  const at::Tensor xd = x.to(npu()).requires_grad_(), xc = x.clone().requires_grad_();
  auto [y, experts, rows] = gating().call(xd, finished.to(npu()), 2);
  EXPECT_TRUE(at::equal(experts.cpu()[1], at::full({2}, 6, at::kInt)));
  y.sum().backward();
  std::get<0>(xc.softmax(-1).topk(2)).sum().backward();
  expectClose(xd.grad().cpu(), xc.grad(), 1e-5, 1e-6);
}

TEST(MoeOps, InitRoutingSortsTokensByExpertAndSumsTheirGradientsBack) {
  const Routing r(6, 2, 4);
  const auto [token, dst] = r.reference();
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    expectSameAutograd(
        [&](const std::vector<at::Tensor>& in) {
          if (onNpu(in[0])) return std::get<0>(initRouting().call(in[0], r.row.to(npu()), r.expert.to(npu()), 6));
          return in[0].index_select(0, token);
        },
        {at::randn({6, 5}).to(dtype)}, rtolFor(dtype), atolFor(dtype));
  }
  auto [ex, expanded_row, expanded_expert] =
      initRouting().call(at::randn({6, 5}, at::kFloat).to(npu()), r.row.to(npu()), r.expert.to(npu()), 4);
  EXPECT_EQ(ex.sizes(), (std::vector<int64_t>{8, 5}));  // min(rows, active_num) * k rows
  EXPECT_TRUE(at::equal(expanded_row.cpu().to(at::kLong), dst));
  EXPECT_TRUE(at::equal(expanded_expert.cpu(), std::get<0>(r.expert.reshape(-1).sort())));
  // Each expert's end row in the sorted list.
  const at::Tensor ends = expertTokens().call(expanded_expert, 4).cpu();
  EXPECT_TRUE(at::equal(ends, r.expert.reshape(-1).to(at::kLong).bincount({}, 4).cumsum(0).to(at::kInt)));
}

TEST(MoeOps, FinalizeRoutingWeighsTheExpertsRowsBackIntoTheTokens) {
  const int64_t n = 5, k = 2, e = 3, h = 4;
  const Routing r(n, k, e);
  const auto [token, dst] = r.reference();
  const at::Tensor d = dst.to(at::kInt);
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    expectSameAutograd(
        [&](const std::vector<at::Tensor>& in) {
          const at::Tensor &rows = in[0], &skip = in[1], &bias = in[2], &scales = in[3];
          if (onNpu(rows)) return finalize().call(rows, skip, skip, bias, scales, d.to(npu()), r.expert.to(npu()), 0);
          at::Tensor out = skip + skip;
          for (int64_t c = 0; c < k; ++c) {
            const at::Tensor picked = rows.index_select(0, dst.slice(0, c * n, (c + 1) * n));
            out = out + scales.select(1, c).unsqueeze(1) *
                            (picked + bias.index_select(0, r.expert.select(1, c).to(at::kLong)));
          }
          return out;
        },
        {at::randn({n * k, h}).to(dtype), at::randn({n, h}).to(dtype), at::randn({e, h}).to(dtype),
         at::rand({n, k}).to(dtype)},
        rtolTwoRoundings(dtype), atolTwoRoundings(dtype));
  }
}

TEST(MoeOps, GroupedMatmulSplitsOneXByTheGroupList) {
  const std::vector<int64_t> ends = {3, 3, 8};  // the middle expert has no tokens
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    expectSameAutograd(
        [&](const std::vector<at::Tensor>& in) {
          const std::vector<at::Tensor> w(in.begin() + 1, in.begin() + 4), b(in.begin() + 4, in.end());
          if (onNpu(in[0])) return grouped().call({in[0]}, w, b, {}, {}, {}, {}, ends, 3, c10::nullopt)[0];
          std::vector<at::Tensor> parts;
          for (size_t g = 0, start = 0; g < 3; start = ends[g++])
            parts.push_back(at::addmm(b[g], in[0].slice(0, start, ends[g]), w[g]));
          return at::cat(parts);
        },
        {at::randn({8, 5}).to(dtype), at::randn({5, 4}).to(dtype), at::randn({5, 4}).to(dtype),
         at::randn({5, 4}).to(dtype), at::randn({4}), at::randn({4}), at::randn({4})},
        rtolTwoRoundings(dtype), 2 * atolTwoRoundings(dtype));
  }
}

TEST(MoeOps, GroupedMatmulOfSeparateTensorsKeepsTheirLeadingDims) {
  expectSameAutograd(
      [&](const std::vector<at::Tensor>& in) {
        if (onNpu(in[0])) {
          const auto y = grouped().call({in[0], in[1]}, {in[2], in[3]}, c10::nullopt, {}, {}, {}, {}, c10::nullopt, 0,
                                        c10::nullopt);
          return at::cat({y[0].reshape(-1), y[1].reshape(-1)});
        }
        return at::cat({in[0].matmul(in[2]).reshape(-1), in[1].matmul(in[3]).reshape(-1)});
      },
      {at::randn({2, 3, 4}), at::randn({5, 2}), at::randn({4, 6}), at::randn({2, 3})});
}

TEST(MoeOps, OneKernelPerOpEachWay) {
  const int64_t n = 6, k = 2, e = 3, h = 8, f = 4;
  const at::Tensor x = at::randn({n, h}).to(npu()).requires_grad_();
  const at::Tensor logits = at::randn({n, e}).to(npu()).requires_grad_();
  const at::Tensor w = at::randn({e, h, f}).to(npu()).requires_grad_();
  OpRecorder rec;
  auto [y, experts, rows] = gating().call(logits, c10::nullopt, k);
  auto [ex, expanded_row, expanded_expert] = initRouting().call(x, rows, experts, n);
  const at::Tensor ends = expertTokens().call(expanded_expert, e).cpu();
  const std::vector<int64_t> group_list(ends.data_ptr<int>(), ends.data_ptr<int>() + e);
  const std::vector<at::Tensor> ws = {w[0], w[1], w[2]};
  const at::Tensor hidden = grouped().call({ex}, ws, {}, {}, {}, {}, {}, group_list, 2, c10::nullopt)[0];
  const at::Tensor back =
      grouped().call({hidden}, {w[0].t(), w[1].t(), w[2].t()}, {}, {}, {}, {}, {}, group_list, 2, c10::nullopt)[0];
  const at::Tensor out = finalize().call(back, c10::nullopt, c10::nullopt, c10::nullopt, y, expanded_row, experts, 0);
  for (const char* op : {"MoeGatingTopKSoftmax", "MoeInitRouting", "MoeComputeExpertTokens", "MoeFinalizeRouting"})
    EXPECT_EQ(rec.count(op), 1) << op << ": " << rec.summary();
  EXPECT_EQ(rec.count("GroupedMatmul"), 2) << rec.summary();
  out.sum().backward();
  EXPECT_EQ(rec.count("MoeFinalizeRoutingV2Grad"), 1) << rec.summary();
  EXPECT_EQ(rec.count("MoeInitRoutingV2Grad"), 1) << rec.summary();
  EXPECT_EQ(rec.count("GroupedMatmul"), 2 + 2 * 2) << rec.summary();  // dx and every dweight, per grouped product
  EXPECT_EQ(rec.count("MatMul"), 0) << rec.summary();
  EXPECT_TRUE(x.grad().defined() && logits.grad().defined() && w.grad().defined());
}

// The quantised groups (Note [Quantised groups] in the simulator) against integer references:
// int8 x and weights with int32 bias, requantised to int8 by npu_trans_quant_param's int64
// params (scale and offset) or dequantised to fp16 by an fp32 scale; and fp16 x with int8
// weights dequantised by antiquant_scale / antiquant_offset. One GroupedMatmul each; no backward.
TEST(MoeOps, QuantisedGroupsMatchTheirIntegerReferences) {
  const int64_t M = 6, K = 32, N = 8;
  const std::vector<int64_t> ends = {2, 6};
  const at::Tensor x = at::randint(-128, 128, {M, K}).to(at::kChar);
  std::vector<at::Tensor> w, bias, scale, offset;
  for (int g = 0; g < 2; ++g) {
    w.push_back(at::randint(-128, 128, {K, N}).to(at::kChar));
    bias.push_back(at::randint(-1000, 1000, {N}).to(at::kInt));
    scale.push_back(at::randint(1, 16, {N}).to(at::kFloat) / 65536.0);  // exact in the quant params' 10-bit mantissa
    offset.push_back(at::randint(-5, 5, {N}).to(at::kFloat));
  }
  std::vector<at::Tensor> dev_w, dev_b, dev_q, dev_s;
  static const auto trans = c10::Dispatcher::singleton()
                                .findSchemaOrThrow("npu::npu_trans_quant_param", "")
                                .typed<at::Tensor(const at::Tensor&, const c10::optional<at::Tensor>&)>();
  for (int g = 0; g < 2; ++g) {
    dev_w.push_back(w[g].to(npu()));
    dev_b.push_back(bias[g].to(npu()));
    dev_q.push_back(trans.call(scale[g].to(npu()), offset[g].to(npu())));
    dev_s.push_back(scale[g].to(npu()));
  }
  auto acc = [&](int g) {
    const at::Tensor rows = x.narrow(0, g ? ends[0] : 0, g ? ends[1] - ends[0] : ends[0]).to(at::kDouble);
    return at::mm(rows, w[g].to(at::kDouble)) + bias[g].to(at::kDouble);
  };
  const at::Tensor dev_x = x.to(npu());
  OpRecorder rec;
  const at::Tensor y8 = grouped().call({dev_x}, dev_w, dev_b, dev_q, {}, {}, {}, ends, 3, c10::nullopt)[0];
  EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"GroupedMatmul"}) << rec.summary();
  ASSERT_EQ(y8.scalar_type(), at::kChar);
  std::vector<at::Tensor> want8, want16;
  for (int g = 0; g < 2; ++g) {
    want8.push_back(at::clamp(at::round(acc(g) * scale[g].to(at::kDouble) + offset[g].to(at::kDouble)), -128, 127));
    want16.push_back(acc(g) * scale[g].to(at::kDouble));
  }
  EXPECT_TRUE(at::equal(y8.cpu().to(at::kDouble), at::cat(want8)));
  const at::Tensor y16 = grouped().call({x.to(npu())}, dev_w, dev_b, dev_s, {}, {}, {}, ends, 3, at::kHalf)[0];
  ASSERT_EQ(y16.scalar_type(), at::kHalf);
  expectClose(y16.cpu().to(at::kFloat), at::cat(want16).to(at::kFloat), 2e-3, 1e-3);
  // Weight-only: fp16 x, int8 weights, per-column antiquant scale and offset, fp16 bias.
  const at::Tensor xh = at::randn({M, K}).to(at::kHalf);
  std::vector<at::Tensor> as, ao, bh, want;
  for (int g = 0; g < 2; ++g) {
    as.push_back((at::rand({N}) * 0.01 + 0.001).to(at::kHalf));
    ao.push_back(at::randint(-3, 3, {N}).to(at::kHalf));
    bh.push_back(at::randn({N}).to(at::kHalf));
    const at::Tensor wd = ((w[g].to(at::kFloat) + ao[g].to(at::kFloat)) * as[g].to(at::kFloat)).to(at::kHalf);
    const at::Tensor rows = xh.narrow(0, g ? ends[0] : 0, g ? ends[1] - ends[0] : ends[0]).to(at::kFloat);
    want.push_back(at::mm(rows, wd.to(at::kFloat)) + bh[g].to(at::kFloat));
  }
  auto toNpu = [](const std::vector<at::Tensor>& l) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : l) out.push_back(t.to(npu()));
    return out;
  };
  const at::Tensor yh =
      grouped().call({xh.to(npu())}, dev_w, toNpu(bh), {}, {}, toNpu(as), toNpu(ao), ends, 3, c10::nullopt)[0];
  expectClose(yh.cpu().to(at::kFloat), at::cat(want), 4e-3, 4e-3);
  // No backward, as in torch_npu: an input that wants a gradient is refused.
  EXPECT_THROW_WITH(
      grouped().call({xh.to(npu()).requires_grad_()}, dev_w, {}, {}, {}, toNpu(as), {}, ends, 3, c10::nullopt),
      "have no backward");
  EXPECT_THROW_WITH(grouped().call({x.to(npu())}, dev_w, dev_b, dev_s, toNpu(offset), {}, {}, ends, 3, at::kHalf),
                    "offset requantises to an int8 y");
  EXPECT_THROW_WITH(grouped().call({x.to(npu())}, dev_w, dev_b, toNpu({scale[0].requires_grad_(), scale[1]}), {}, {},
                                   {}, ends, 3, at::kHalf),
                    "have no backward");
  const at::Tensor one = at::ones({1}).to(at::kHalf).to(npu());
  EXPECT_THROW_WITH(grouped().call({xh.to(npu())}, dev_w, {}, {}, {}, toNpu(as), std::vector<at::Tensor>{one, one},
                                   ends, 3, c10::nullopt),
                    "must have antiquant_scale[0]'s shape");
}

TEST(MoeOps, ArgumentErrorsSayWhatIsWrong) {
  const at::Tensor x = at::randn({4, 3}).to(npu()), w = at::randn({3, 2}).to(npu());
  EXPECT_THROW_WITH(gating().call(x, c10::nullopt, 4),
                    "npu_moe_gating_top_k_softmax: k = 4 must be in [1, min(experts = 3");
  EXPECT_THROW_WITH(
      initRouting().call(x, at::zeros({4, 2}, at::kLong).to(npu()), at::zeros({4, 2}, at::kInt).to(npu()), 4),
      "npu_moe_init_routing: row_idx must be int32");
  EXPECT_THROW_WITH(grouped().call({x}, {w, w}, {}, {}, {}, {}, {}, std::vector<int64_t>{1, 3}, 3, c10::nullopt),
                    "group_list's last row end 3 must equal x's rows 4");
  EXPECT_THROW_WITH(grouped().call({x}, {w}, {}, std::vector<at::Tensor>{w}, {}, {}, {}, c10::nullopt, 0, c10::nullopt),
                    "npu_grouped_matmul: scale quantises int8 x and weights; x is Float");
  EXPECT_THROW_WITH(grouped().call({x.to(at::kHalf)}, {w}, {}, {}, {}, {}, {}, c10::nullopt, 0, c10::nullopt),
                    "must have x[0]'s dtype Half");
  EXPECT_THROW_WITH(finalize().call(x, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt,
                                    at::zeros({4}, at::kInt).to(npu()), c10::nullopt, 0),
                    "needs skip1, skip2, scales or export_for_source_row");
  // A routing index outside the expanded rows is a device fault, reported at the next synchronisation.
  EXPECT_THROW_WITH(
      {
        finalize().call(x, x, c10::nullopt, c10::nullopt, c10::nullopt, at::full({4}, 9, at::kInt).to(npu()),
                        c10::nullopt, 0);
        torch_npu::synchronize(0);
      },
      "expanded_src_to_dst_row holds 9");
}
