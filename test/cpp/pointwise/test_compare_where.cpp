// Comparisons (tensor and scalar forms, out=) and where, against the CPU.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

using CompareFn = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;
using CompareScalarFn = std::function<at::Tensor(const at::Tensor&, const at::Scalar&)>;
using CompareOutFn = std::function<at::Tensor&(at::Tensor&, const at::Tensor&, const at::Tensor&)>;

struct CompareOp {
  std::string name;
  CompareFn tensor;
  CompareScalarFn scalar;
  CompareOutFn out;
};

#define COMPARE_OP(op)                                                                      \
  CompareOp {                                                                               \
    #op, [](const at::Tensor& a, const at::Tensor& b) { return at::op(a, b); },             \
        [](const at::Tensor& a, const at::Scalar& s) { return at::op(a, s); },              \
        [](at::Tensor& o, const at::Tensor& a, const at::Tensor& b) -> at::Tensor& {        \
          return at::op##_out(o, a, b);                                                     \
        }                                                                                   \
  }

const std::vector<CompareOp>& compareOps() {
  static const std::vector<CompareOp> ops = {COMPARE_OP(eq), COMPARE_OP(ne), COMPARE_OP(lt),
                                             COMPARE_OP(le), COMPARE_OP(gt), COMPARE_OP(ge)};
  return ops;
}

// Small integers so that equal pairs are frequent.
at::Tensor smallValues(at::IntArrayRef sizes, at::ScalarType dtype) {
  return at::randint(-3, 4, sizes).to(dtype);
}

}  // namespace

TEST(NpuCompare, TensorTensorAllDtypesAndBroadcast) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong, at::kBool}) {
    const at::Tensor a = smallValues({5, 17}, dtype), b = smallValues({5, 17}, dtype);
    const at::Tensor row = smallValues({17}, dtype);
    for (const auto& op : compareOps()) {
      SCOPED_TRACE(op.name + " " + c10::toString(dtype));
      at::Tensor got = op.tensor(a.to(npu()), b.to(npu()));
      EXPECT_EQ(got.scalar_type(), at::kBool);
      expectClose(got, op.tensor(a, b));
      expectClose(op.tensor(a.to(npu()), row.to(npu())), op.tensor(a, row));
      expectClose(op.tensor(row.reshape({17, 1}).to(npu()), row.to(npu())), op.tensor(row.reshape({17, 1}), row));
    }
  }
}

TEST(NpuCompare, ScalarsPromotionAndSpecialValues) {
  const at::Tensor f = at::tensor({-1.5f, 0.f, 2.f, NAN, INFINITY, -INFINITY, 2.5f});
  const at::Tensor i = smallValues({3, 19}, at::kInt);
  for (const auto& op : compareOps()) {
    SCOPED_TRACE(op.name);
    expectClose(op.scalar(f.to(npu()), 2), op.scalar(f, 2));
    expectClose(op.scalar(f.to(npu()), NAN), op.scalar(f, NAN));
    expectClose(op.scalar(i.to(npu()), 1.5), op.scalar(i, 1.5));  // int vs float scalar compares in float
    expectClose(op.scalar(i.to(npu()), 1), op.scalar(i, 1));
    expectClose(op.tensor(i.to(npu()), f.slice(0, 2, 3).to(npu())), op.tensor(i, f.slice(0, 2, 3)));
    expectClose(op.tensor(f.to(npu()), f.to(npu())), op.tensor(f, f));  // NaN != NaN
    expectClose(op.tensor(i.to(npu()), at::scalar_tensor(0)), op.tensor(i, at::scalar_tensor(0)));  // 0-d CPU
  }
}

TEST(NpuCompare, OutVariants) {
  const at::Tensor a = smallValues({4, 17}, at::kFloat), b = smallValues({17}, at::kFloat);
  for (const auto& op : compareOps()) {
    SCOPED_TRACE(op.name);
    at::Tensor out = at::empty({0}, at::TensorOptions().dtype(at::kBool).device(npu()));
    op.out(out, a.to(npu()), b.to(npu()));
    expectClose(out, op.tensor(a, b));
    // A float out receives 0/1, a transposed out is written through its strides.
    at::Tensor out_f = at::empty({0}, at::TensorOptions().device(npu()));
    op.out(out_f, a.to(npu()), b.to(npu()));
    expectClose(out_f, op.tensor(a, b).to(at::kFloat));
    at::Tensor out_t = at::empty({17, 4}, at::TensorOptions().dtype(at::kBool).device(npu())).t();
    op.out(out_t, a.to(npu()), b.to(npu()));
    expectClose(out_t, op.tensor(a, b));
  }
}

TEST(NpuWhere, ForwardBroadcastAndPromotion) {
  const at::Tensor cond = at::randn({5, 1, 17}).gt(0);
  const at::Tensor x = at::randn({3, 17}), y = at::randn({5, 3, 1});
  expectClose(at::where(cond.to(npu()), x.to(npu()), y.to(npu())), at::where(cond, x, y));
  const at::Tensor xi = smallValues({3, 17}, at::kInt), yl = smallValues({3, 17}, at::kLong);
  expectClose(at::where(cond.to(npu()), xi.to(npu()), yl.to(npu())), at::where(cond, xi, yl));
  expectClose(at::where(cond.to(npu()), xi.to(npu()), x.to(npu())), at::where(cond, xi, x));
  expectClose(at::where(cond.to(npu()), x.to(npu()), 0.5), at::where(cond, x, 0.5));
  expectClose(at::where(cond.to(npu()), x.to(npu()).to(at::kHalf), y.to(npu()).to(at::kHalf)),
              at::where(cond, x, y).to(at::kHalf));
  const at::Tensor bx = smallValues({17}, at::kBool);
  expectClose(at::where(cond.to(npu()), bx.to(npu()), bx.logical_not().to(npu())),
              at::where(cond, bx, bx.logical_not()));
}

TEST(NpuWhere, OutAndErrors) {
  const at::Tensor cond = at::randn({6, 17}).gt(0), x = at::randn({6, 17}), y = at::randn({17});
  at::Tensor out = at::empty({17, 6}, at::TensorOptions().device(npu())).t();
  at::where_out(out, cond.to(npu()), x.to(npu()), y.to(npu()));
  expectClose(out, at::where(cond, x, y));
  EXPECT_THROW_WITH(at::where(x.to(npu()), x.to(npu()), y.to(npu())), "condition", "bool");
  EXPECT_THROW(at::where(cond.to(npu()), x.to(npu()), at::randn({5}).to(npu())), c10::Error);
}

TEST(NpuWhere, Backward) {
  const at::Tensor cond = at::randn({4, 19}).gt(0);
  expectSameAutograd([&](const std::vector<at::Tensor>& in) {
    return at::where(cond.to(in[0].device()), in[0], in[1]).mul(in[0]);
  }, {at::randn({4, 19}), at::randn({1, 19})});
}
