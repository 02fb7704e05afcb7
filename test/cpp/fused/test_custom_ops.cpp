// The npu:: custom operators, composite (Note [Composite custom ops]) and
// fused (FusedLlmOps.cpp), on the NPU against CPU expressions of the same
// math written here independently, forward and backward, fp32 and fp16, and
// their argument errors.
#include <torch/torch.h>

#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using Unary = at::Tensor(const at::Tensor&);
bool onNpu(const at::Tensor& t) { return t.device() == npu(); }

// fn(in) runs the custom op on NPU inputs and `ref` on CPU inputs.
TensorFn npuOrRef(std::function<at::Tensor(const std::vector<at::Tensor>&)> custom,
                  std::function<at::Tensor(const std::vector<at::Tensor>&)> ref) {
  return [=](const std::vector<at::Tensor>& in) { return onNpu(in[0]) ? custom(in) : ref(in); };
}

}  // namespace

TEST(NpuCustomOps, LayoutOps) {
  const auto transpose = npuOp<at::Tensor(const at::Tensor&, at::IntArrayRef, bool)>("npu::npu_transpose");
  const auto broadcast = npuOp<at::Tensor(const at::Tensor&, at::IntArrayRef)>("npu::npu_broadcast");
  const auto confusion =
      npuOp<at::Tensor(const at::Tensor&, at::IntArrayRef, at::IntArrayRef, bool)>("npu::npu_confusion_transpose");
  const auto cast = npuOp<at::Tensor(const at::Tensor&, at::ScalarType)>("npu::npu_dtype_cast");
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::randn({2, 3, 4}).to(dtype);
    expectSameAutograd(npuOrRef([&](const auto& in) { return transpose.call(in[0], {2, 0, 1}, true); },
                                [](const auto& in) { return in[0].permute({2, 0, 1}).clone(); }),
                       {x});
    EXPECT_TRUE(transpose.call(x.to(npu()), {2, 0, 1}, true).is_contiguous());
    EXPECT_FALSE(transpose.call(x.to(npu()), {2, 0, 1}, false).is_contiguous());
    expectSameAutograd(npuOrRef([&](const auto& in) { return broadcast.call(in[0], {5, 2, 3, 4}); },
                                [](const auto& in) { return in[0].unsqueeze(0).repeat({5, 1, 1, 1}); }),
                       {x});
    // transpose first: [2,3,4] -> [4,2,3] -> [8,3]; reshape first: [2,3,4] -> [6,4] -> [4,6]
    expectSameAutograd(npuOrRef([&](const auto& in) { return confusion.call(in[0], {2, 0, 1}, {8, 3}, true); },
                                [](const auto& in) { return in[0].transpose(1, 2).transpose(0, 1).reshape({8, 3}); }),
                       {x});
    expectSameAutograd(npuOrRef([&](const auto& in) { return confusion.call(in[0], {1, 0}, {6, 4}, false); },
                                [](const auto& in) { return in[0].reshape({6, 4}).t().contiguous(); }),
                       {x});
  }
  const at::Tensor x = at::randn({3, 5});
  expectSameAutograd(npuOrRef([&](const auto& in) { return cast.call(in[0], at::kHalf); },
                              [](const auto& in) { return in[0].to(at::kHalf); }),
                     {x}, kHalfRtol, kHalfAtol);
  EXPECT_THROW_WITH(transpose.call(x.to(npu()), {1}, true), "npu_transpose: perm [1] must name all 2 dims");
}

// npu_slice: one SliceD, the gradient scattered back into zeros; private-format inputs read through their base format.
TEST(NpuCustomOps, SliceTakesABlock) {
  const auto slice = npuOp<at::Tensor(const at::Tensor&, at::IntArrayRef, at::IntArrayRef)>("npu::npu_slice");
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    for (int64_t format : {int64_t{-1}, static_cast<int64_t>(ACL_FORMAT_NC1HWC0)}) {
      AutogradCheck check;
      check.npu_formats = {format};
      expectSameAutogradWith(npuOrRef([&](const auto& in) { return slice.call(in[0], {1, 2, 0, 1}, {1, -1, 3, 2}); },
                                      [](const auto& in) {
                                        return in[0].narrow(0, 1, 1).narrow(1, 2, 17).narrow(2, 0, 3).narrow(3, 1, 2);
                                      }),
                             {at::randn({2, 19, 5, 4}).to(dtype)}, check);
    }
  }
  const at::Tensor x = at::randn({4, 6}).to(npu());
  {
    OpRecorder rec;
    slice.call(x, {1, 2}, {2, 3});
    EXPECT_EQ(rec.opTypes(), std::vector<std::string>{"SliceD"});
  }
  EXPECT_EQ(slice.call(x, {4, 0}, {0, -1}).sizes(), (std::vector<int64_t>{0, 6}));
  EXPECT_THROW_WITH(slice.call(x, {3, 0}, {2, 6}), "npu_slice: dim 0: offset 3 and size 2 do not lie inside its 4 elements");
  EXPECT_THROW_WITH(slice.call(x, {0}, {2, 6}), "must each have one value per dim of self (shape [4, 6])");
}

TEST(NpuCustomOps, MatrixProducts) {
  const auto linear =
      npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, const c10::optional<at::Tensor>&)>("npu::npu_linear");
  const auto bmm = npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, at::IntArrayRef)>("npu::npu_bmmV2");
  expectSameAutograd(npuOrRef([&](const auto& in) { return linear.call(in[0], in[1], in[2]); },
                              [](const auto& in) { return at::mm(in[0], in[1].t()) + in[2]; }),
                     {at::randn({4, 6}), at::randn({5, 6}), at::randn({5})});
  expectSameAutograd(npuOrRef([&](const auto& in) { return bmm.call(in[0], in[1], {3, 4, 2}); },
                              [](const auto& in) { return at::bmm(in[0], in[1]); }),
                     {at::randn({3, 4, 5}), at::randn({3, 5, 2})});
  EXPECT_THROW_WITH(linear.call(at::randn({2, 3, 4}).to(npu()), at::randn({5, 4}).to(npu()), {}),
                    "npu_linear: expected 2-D input and weight");
  EXPECT_THROW_WITH(bmm.call(at::randn({3, 4, 5}).to(npu()), at::randn({3, 5, 2}).to(npu()), {3, 2, 4}),
                    "npu_bmmV2: output_sizes [3, 2, 4] do not match");
}

// npu_bmm_v2_mat1_backward / _mat2_backward are matmul's gradients, 1-D and broadcast operands included.
TEST(NpuCustomOps, BmmV2BackwardPiecesAreMatmulGradients) {
  using Piece = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, at::IntArrayRef);
  const auto d1 = npuOp<Piece>("npu::npu_bmm_v2_mat1_backward"), d2 = npuOp<Piece>("npu::npu_bmm_v2_mat2_backward");
  for (const auto& shapes : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{{{3, 4, 5}, {3, 5, 2}},
                                                                                               {{2, 3, 4, 5}, {5, 2}},
                                                                                               {{4, 5}, {3, 5, 2}},
                                                                                               {{5}, {3, 5, 2}},
                                                                                               {{3, 4, 5}, {5}},
                                                                                               {{5}, {5}}}) {
    SCOPED_TRACE(c10::str(shapes.first, " @ ", shapes.second));
    const at::Tensor a = at::randn(shapes.first).requires_grad_(), b = at::randn(shapes.second).requires_grad_();
    const at::Tensor out = at::matmul(a, b), grad = at::randn(out.sizes());
    out.backward(grad);
    const at::Tensor na = a.detach().to(npu()), nb = b.detach().to(npu()), ng = grad.to(npu());
    expectClose(d1.call(ng, na, nb, a.sizes()), a.grad());
    expectClose(d2.call(ng, na, nb, b.sizes()), b.grad());
  }
  const at::Tensor a = at::randn({3, 4, 5}).to(npu()), b = at::randn({3, 5, 2}).to(npu()),
                   g = at::randn({3, 4, 2}).to(npu());
  torch_npu::synchronize(0);
  OpRecorder rec;
  d1.call(g, a, b, a.sizes());
  d2.call(g, a, b, b.sizes());
  EXPECT_EQ(rec.opTypes().size(), 2u) << rec.summary();  // one batched product each, the transpose folded in
}

TEST(NpuCustomOps, ActivationsAndNorms) {
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype), atol = atolTwoRoundings(dtype);
    const at::Tensor x = at::randn({4, 8}).mul(3).to(dtype);
    for (const char* name : {"npu::fast_gelu", "npu::npu_fast_gelu"}) {
      expectSameAutograd(npuOrRef([&](const auto& in) { return npuOp<Unary>(name).call(in[0]); },
                                  [](const auto& in) { return in[0] / (1 + at::exp(in[0] * -1.702)); }),
                         {x}, rtol, atol);
    }
    expectSameAutograd(npuOrRef([](const auto& in) { return npuOp<Unary>("npu::npu_silu").call(in[0]); },
                                [](const auto& in) { return in[0] / (1 + at::exp(-in[0])); }),
                       {x}, rtol, atol);
    expectSameAutograd(npuOrRef([](const auto& in) { return npuOp<Unary>("npu::npu_mish").call(in[0]); },
                                [](const auto& in) { return in[0] * at::tanh(at::log1p(at::exp(in[0]))); }),
                       {x}, rtol, atol);
    const auto rms = npuOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double)>(
        "npu::npu_rms_norm");
    // gamma over the last dim, and over the last two (x [2, 3, 8]: rows of 24)
    for (const auto& gamma_shape : std::vector<std::vector<int64_t>>{{8}, {3, 8}}) {
      expectSameAutograd(
          npuOrRef([&](const auto& in) { return std::get<0>(rms.call(in[0], in[1], 1e-6)); },
                   [&](const auto& in) {
                     std::vector<int64_t> dims;
                     for (size_t d = 0; d < gamma_shape.size(); ++d) dims.push_back(-1 - static_cast<int64_t>(d));
                     return in[0] / at::sqrt(in[0].square().mean(dims, true) + 1e-6) * in[1];
                   }),
          {at::randn({2, 3, 8}).to(dtype), at::rand(gamma_shape).add(0.5).to(dtype)}, rtol, atol);
    }
    const auto [y, rstd] = rms.call(x.to(npu()), at::ones({8}, dtype).to(npu()), 1e-6);
    EXPECT_EQ(y.scalar_type(), dtype);
    EXPECT_EQ(rstd.scalar_type(), at::kFloat);
    EXPECT_EQ(rstd.sizes(), (std::vector<int64_t>{4, 1}));
    expectClose(rstd, at::rsqrt(x.to(at::kFloat).square().mean(-1, true) + 1e-6));
  }
  const at::Tensor x = at::randn({4, 8});
  const auto rms = npuOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double)>(
      "npu::npu_rms_norm");
  EXPECT_THROW_WITH(rms.call(x.to(npu()), at::ones({7}).to(npu()), 1e-6), "must match the trailing dims");
  const auto ln = npuOp<at::Tensor(const at::Tensor&, at::IntArrayRef, const c10::optional<at::Tensor>&,
                                   const c10::optional<at::Tensor>&, double)>("npu::npu_layer_norm_eval");
  const at::Tensor g = at::rand({8}), b = at::randn({8});
  const at::Tensor mean = x.mean(-1, true), var = x.var(-1, false, true);
  expectClose(ln.call(x.to(npu()), {8}, g.to(npu()), b.to(npu()), 1e-5), (x - mean) / at::sqrt(var + 1e-5) * g + b);
}

// npu_add_rms_norm: the residual sum x and its RMS norm from one AddRmsNorm
// kernel, y bit for bit npu_rms_norm's of that x, differentiable through both
// y and x (the residual stream a LLaMA block carries on).
TEST(NpuCustomOps, AddRmsNormIsTheResidualSumAndItsNorm) {
  using AddRms =
      std::tuple<at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, const at::Tensor&, double);
  const auto add_rms = npuOp<AddRms>("npu::npu_add_rms_norm");
  const auto rms =
      npuOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double)>("npu::npu_rms_norm");
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype), atol = atolTwoRoundings(dtype);
    expectSameAutograd(
        npuOrRef(
            [&](const auto& in) {
              const auto [y, rstd, x] = add_rms.call(in[0], in[1], in[2], 1e-6);
              return y + 0.5 * x;
            },
            [](const auto& in) {
              const at::Tensor x = in[0] + in[1];
              return x / at::sqrt(x.square().mean(-1, true) + 1e-6) * in[2] + 0.5 * x;
            }),
        {at::randn({2, 3, 16}).to(dtype), at::randn({2, 3, 16}).to(dtype), at::rand({16}).add(0.5).to(dtype)}, rtol,
        atol);
    const at::Tensor x1 = at::randn({4, 32}).to(dtype).to(npu()), x2 = at::randn({4, 32}).to(dtype).to(npu());
    const at::Tensor g = at::rand({32}).to(dtype).to(npu());
    OpRecorder rec;
    const auto [y, rstd, x] = add_rms.call(x1, x2, g, 1e-5);
    EXPECT_EQ(rec.count("AddRmsNorm"), 1) << rec.summary();
    EXPECT_TRUE(x.cpu().equal((x1 + x2).cpu()));
    const auto [y_ref, rstd_ref] = rms.call(x, g, 1e-5);
    EXPECT_TRUE(y.cpu().equal(y_ref.cpu()));
    EXPECT_TRUE(rstd.cpu().equal(rstd_ref.cpu()));
    EXPECT_EQ(rstd.sizes(), (std::vector<int64_t>{4, 1}));
  }
  const at::Tensor x = at::randn({4, 8}).to(npu());
  EXPECT_THROW_WITH(add_rms.call(x, x.to(at::kHalf), at::ones({8}).to(npu()), 1e-6),
                    "npu_add_rms_norm: x1 and x2 must have one shape and dtype");
  EXPECT_THROW_WITH(add_rms.call(x, x, at::ones({7}).to(npu()), 1e-6), "must match the trailing dims");
  const auto [y0, r0, x0] = add_rms.call(x.slice(0, 0, 0), x.slice(0, 0, 0), at::ones({8}).to(npu()), 1e-6);
  EXPECT_EQ(x0.sizes(), (std::vector<int64_t>{0, 8}));
}

namespace {

at::Tensor rotaryRef(const std::vector<at::Tensor>& in) {
  const auto halves = in[0].chunk(2, -1);
  return in[0] * in[1] + at::cat({-halves[1], halves[0]}, -1) * in[2];
}

}  // namespace

TEST(NpuCustomOps, RotaryMulAndSoftmaxCrossEntropy) {
  const auto rotary =
      npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>("npu::npu_rotary_mul");
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype), atol = atolTwoRoundings(dtype);
    // cos/sin per position (broadcast over batch and heads), per batch, and tables of different shapes
    for (const auto& shapes : std::vector<std::vector<std::vector<int64_t>>>{
             {{2, 3, 5, 8}, {1, 1, 5, 8}, {1, 1, 5, 8}},
             {{2, 3, 5, 8}, {2, 1, 5, 8}, {2, 1, 5, 8}},
             {{2, 3, 5, 8}, {5, 8}, {1, 5, 1}}}) {
      // A broadcast table's gradient sums up to 48 fp16 products: their roundings add up
      // (about the square root of the count: 4x for fp16; fp32 keeps its tolerance).
      const double summed = dtype == at::kHalf && shapes[2].size() == 3 && shapes[2][2] == 1 ? 4 : 1;
      expectSameAutograd(
          npuOrRef([&](const auto& in) { return rotary.call(in[0], in[1], in[2]); }, rotaryRef),
          {at::randn(shapes[0]).to(dtype), at::randn(shapes[1]).to(dtype), at::randn(shapes[2]).to(dtype)},
          rtol * summed, atol * summed);
    }
  }
  // An fp16 query with fp32 tables computes in fp32, as the expression would.
  const at::Tensor q = at::randn({2, 4, 8}).to(at::kHalf), cos = at::randn({4, 8}), sin = at::randn({4, 8});
  const at::Tensor mixed = rotary.call(q.to(npu()), cos.to(npu()), sin.to(npu()));
  EXPECT_EQ(mixed.scalar_type(), at::kFloat);
  expectClose(mixed, rotaryRef({q.to(at::kFloat), cos, sin}));
  EXPECT_THROW_WITH(rotary.call(at::randn({2, 5}).to(npu()), at::randn({2, 5}).to(npu()), at::randn({2, 5}).to(npu())),
                    "must be even");
  EXPECT_THROW_WITH(rotary.call(at::randn({2, 4}).to(npu()), at::randn({3, 4}).to(npu()), at::randn({3, 4}).to(npu())),
                    "must broadcast to x of shape [2, 4]");

  const auto ce = npuOp<at::Tensor(const at::Tensor&, const at::Tensor&)>("npu::npu_softmax_cross_entropy_with_logits");
  const auto ceRef = [](const std::vector<at::Tensor>& in) {
    const at::Tensor shifted = in[0] - std::get<0>(in[0].max(-1, true));
    return -(in[1] * (shifted - shifted.exp().sum(-1, true).log())).sum(-1);
  };
  for (auto dtype : floatAndHalf()) {
    SCOPED_TRACE(c10::toString(dtype));
    const double rtol = rtolTwoRoundings(dtype), atol = atolTwoRoundings(dtype);
    // labels are an input too: their gradient is -grad * log_softmax(logits)
    expectSameAutograd(npuOrRef([&](const auto& in) { return ce.call(in[0], in[1]); }, ceRef),
                       {at::randn({6, 10}).to(dtype), at::softmax(at::randn({6, 10}), -1).to(dtype)}, rtol, atol);
    expectSameAutograd(npuOrRef([&](const auto& in) { return ce.call(in[0], in[1]); }, ceRef),
                       {at::randn({2, 3, 10}).to(dtype), at::softmax(at::randn({2, 3, 10}), -1).to(dtype)}, rtol,
                       atol);
  }
  EXPECT_THROW_WITH(ce.call(at::randn({6, 10}).to(npu()), at::randn({6, 9}).to(npu())), "must have the same shape");
  const at::Tensor no_classes = ce.call(at::randn({3, 0}).to(npu()), at::randn({3, 0}).to(npu()));
  expectClose(no_classes, at::zeros({3}));
}

// Each fused op is one kernel forward and one backward (npu_softmax_cross_entropy_with_logits's
// backward is a Mul of the gradient its forward kernel already wrote).
TEST(NpuCustomOps, FusedOpsAreOneKernelEachWay) {
  struct Case {
    std::string name;
    std::function<at::Tensor(const std::vector<at::Tensor>&)> fn;
    std::vector<at::Tensor> inputs;
    std::vector<std::string> forward, backward;
  };
  const auto rms = npuOp<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double)>(
      "npu::npu_rms_norm");
  const auto rotary =
      npuOp<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>("npu::npu_rotary_mul");
  const auto ce = npuOp<at::Tensor(const at::Tensor&, const at::Tensor&)>("npu::npu_softmax_cross_entropy_with_logits");
  const std::vector<Case> cases = {
      {"fast_gelu", [](const auto& in) { return npuOp<Unary>("npu::fast_gelu").call(in[0]); }, {at::randn({4, 8})},
       {"FastGelu"}, {"FastGeluGrad"}},
      {"npu_rms_norm", [&](const auto& in) { return std::get<0>(rms.call(in[0], in[1], 1e-6)); },
       {at::randn({4, 8}), at::rand({8})}, {"RmsNorm"}, {"RmsNormGrad"}},
      {"npu_rotary_mul", [&](const auto& in) { return rotary.call(in[0], in[1], in[2]); },
       {at::randn({2, 4, 8}), at::randn({4, 8}), at::randn({4, 8})}, {"RotaryMul"}, {"RotaryMulGrad"}},
      {"npu_softmax_cross_entropy_with_logits", [&](const auto& in) { return ce.call(in[0], in[1]); },
       {at::randn({4, 8}), at::softmax(at::randn({4, 8}), -1)}, {"SoftmaxCrossEntropyWithLogits"}, {"Mul"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<at::Tensor> in;
    for (const at::Tensor& t : c.inputs) in.push_back(t.to(npu()).requires_grad_(&t == &c.inputs[0]));
    const at::Tensor grad = at::ones(c.fn(in).sizes()).to(npu());
    torch_npu::synchronize(0);
    at::Tensor out;
    {
      OpRecorder rec;
      out = c.fn(in);
      EXPECT_EQ(rec.opTypes(), c.forward) << rec.summary();
    }
    OpRecorder rec;
    out.backward(grad);
    EXPECT_EQ(rec.opTypes(), c.backward) << rec.summary();
  }
}

TEST(NpuCustomOps, OneFillsInPlace) {
  at::Tensor t = at::zeros({2, 3}, at::kHalf).to(npu());
  at::Tensor& same = npuOp<at::Tensor&(at::Tensor&)>("npu::one_").call(t);
  EXPECT_EQ(same.data_ptr(), t.data_ptr());
  expectClose(t, at::ones({2, 3}, at::kHalf));
}

// npu_format_cast is differentiable: the gradient of the logical tensor passes through.
TEST(NpuCustomOps, FormatCastIsDifferentiable) {
  for (int64_t format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_NZ}) {
    SCOPED_TRACE(format);
    expectSameAutograd(npuOrRef([&](const auto& in) { return npuFormatCast(in[0], format).mul(in[0]); },
                                [](const auto& in) { return in[0].mul(in[0]); }),
                       {at::randn({2, 19, 5, 3})});
  }
}
