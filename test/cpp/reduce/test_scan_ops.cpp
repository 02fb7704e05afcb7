// cumsum, cumprod, logcumsumexp, cummax, cummin against the CPU.
#include "reduce_family_util.h"

using namespace torch_npu_test;

namespace {

struct ScanCase {
  const char* name;
  std::function<at::Tensor(const at::Tensor&, int64_t)> fn;
  bool backward_needs_flip;  // PyTorch's backward reverses with flip (see NpuScan.Backward)
};

const std::vector<ScanCase>& scanCases() {
  static const std::vector<ScanCase> cases = {
      {"cumsum", [](const at::Tensor& t, int64_t d) { return t.cumsum(d); }, true},
      {"cumprod", [](const at::Tensor& t, int64_t d) { return t.cumprod(d); }, true},
      {"logcumsumexp", [](const at::Tensor& t, int64_t d) { return t.logcumsumexp(d); }, true},
      {"cummax.values", [](const at::Tensor& t, int64_t d) { return std::get<0>(t.cummax(d)); }, false},
      {"cummax.indices", [](const at::Tensor& t, int64_t d) { return std::get<1>(t.cummax(d)); }, false},
      {"cummin.values", [](const at::Tensor& t, int64_t d) { return std::get<0>(t.cummin(d)); }, false},
      {"cummin.indices", [](const at::Tensor& t, int64_t d) { return std::get<1>(t.cummin(d)); }, false},
  };
  return cases;
}

// Values near 1 keep long products finite; a few repeats make ties.
at::Tensor scanInput(at::IntArrayRef sizes, at::ScalarType dtype) {
  return at::randint(0, 8, sizes).mul(0.05).add(0.8).to(dtype);
}

}  // namespace

TEST(NpuScan, MatchCpuOnEveryDimAndDtype) {
  for (const auto& c : scanCases()) {
    for (auto dtype : floatAndHalf()) {
      const at::Tensor x = scanInput({4, 37, 6}, dtype);
      for (int64_t dim : {0, 1, 2, -1}) {
        SCOPED_TRACE(::testing::Message() << c.name << " " << dtype << " dim " << dim);
        expectMatchesCpu([&](const at::Tensor& t) { return c.fn(t, dim); }, x, 8);
      }
      SCOPED_TRACE(::testing::Message() << c.name << " " << dtype);
      expectMatchesCpu([&](const at::Tensor& t) { return c.fn(t.transpose(0, 2), 1); }, x, 8);  // non-contiguous
      expectMatchesCpu([&](const at::Tensor& t) { return c.fn(t, 0); }, at::randn({}).to(dtype));
      expectMatchesCpu([&](const at::Tensor& t) { return c.fn(t, -1); }, at::randn({}).to(dtype));
      expectMatchesCpu([&](const at::Tensor& t) { return c.fn(t, 1); }, at::randn({3, 0}).to(dtype));
      expectMatchesCpu([&](const at::Tensor& t) { return c.fn(t, 0); }, at::randn({0}).to(dtype));
    }
  }
}

TEST(NpuScan, DtypesIntegersAndSpecialValues) {
  const at::Tensor i = at::randint(-4, 5, {5, 8}, at::kInt);
  for (const auto& c : scanCases()) {
    if (std::string(c.name) == "logcumsumexp") continue;
    SCOPED_TRACE(c.name);
    const at::Tensor got = c.fn(i.to(npu()), 1);
    EXPECT_EQ(got.scalar_type(), c.fn(i, 1).scalar_type());
    expectClose(got, c.fn(i, 1));
    expectClose(c.fn(i.gt(0).to(npu()), 0), c.fn(i.gt(0), 0));  // bool
  }
  expectClose(i.to(npu()).cumsum(1, at::kFloat), i.cumsum(1, at::kFloat));
  const at::Tensor h = at::rand({4, 5}).add(0.5);
  expectClose(h.to(npu()).cumprod(0, at::kHalf), h.to(at::kHalf).to(at::kFloat).cumprod(0).to(at::kHalf), kHalfRtol,
              kHalfAtol);
  const at::Tensor special = at::tensor({1.f, NAN, 3.f, -INFINITY, INFINITY, 2.f, NAN, 0.f});
  for (const auto& c : scanCases()) {
    SCOPED_TRACE(c.name);
    expectClose(c.fn(special.to(npu()), 0), c.fn(special, 0));
  }
  EXPECT_THROW_WITH(i.to(npu()).logcumsumexp(0), "logcumsumexp");
  EXPECT_THROW(i.to(npu()).cumsum(2), c10::Error);
}

TEST(NpuScan, OutAndInPlaceVariants) {
  const at::Tensor x = scanInput({6, 9}, at::kFloat);
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::cumsum_out(out, x.to(npu()), 1);
  expectClose(out, x.cumsum(1));
  at::cumprod_out(out, x.to(npu()), 0);
  expectClose(out, x.cumprod(0), 1e-4, 1e-4);
  at::logcumsumexp_out(out, x.to(npu()), 1);
  expectClose(out, x.logcumsumexp(1));
  at::Tensor y = x.to(npu());
  y.cumsum_(0);
  expectClose(y, x.cumsum(0));
  at::Tensor values = at::empty({0}, at::TensorOptions().device(npu()));
  at::Tensor indices = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::cummax_out(values, indices, x.to(npu()), 1);
  expectClose(values, std::get<0>(x.cummax(1)));
  expectClose(indices, std::get<1>(x.cummax(1)));
  // Non-contiguous outs.
  at::Tensor wide = at::zeros({9, 6}, at::TensorOptions().device(npu())).t();
  at::cumsum_out(wide, x.to(npu()), 0);
  expectClose(wide, x.cumsum(0));
  at::Tensor wide_i = at::zeros({9, 6}, at::TensorOptions().dtype(at::kLong).device(npu())).t();
  at::Tensor wide_v = at::zeros({9, 6}, at::TensorOptions().device(npu())).t();
  at::cummin_out(wide_v, wide_i, x.to(npu()), 0);
  expectClose(wide_v, std::get<0>(x.cummin(0)));
  expectClose(wide_i, std::get<1>(x.cummin(0)));
}

TEST(NpuScan, Backward) {
  // cumsum/cumprod/logcumsumexp backward reverse the gradient with aten::flip,
  // which belongs to the layout family; they are checked once flip runs on the NPU.
  const bool have_flip = npuImplements("aten::flip");
  if (!have_flip)
    std::cout << "[  NOTE    ] aten::flip is not implemented for the NPU yet: backward of "
                 "cumsum/cumprod/logcumsumexp not checked\n";
  for (const auto& c : scanCases()) {
    if (std::string(c.name).find("indices") != std::string::npos) continue;
    if (c.backward_needs_flip && !have_flip) continue;
    for (auto dtype : floatAndHalf()) {
      // PyTorch 1.13's logcumsumexp_backward has no float16 kernel (on any device).
      if (dtype == at::kHalf && std::string(c.name) == "logcumsumexp") continue;
      SCOPED_TRACE(::testing::Message() << c.name << " " << dtype);
      const double rtol = 4 * rtolTwoRoundings(dtype), atol = 4 * atolTwoRoundings(dtype);
      expectSameAutograd([&](const std::vector<at::Tensor>& in) { return c.fn(in[0], 1); }, {scanInput({5, 11}, dtype)},
                         rtol, atol);
    }
  }
}
