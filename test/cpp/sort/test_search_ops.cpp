// searchsorted, bucketize, isin, equal against the CPU.
#include "reduce_family_util.h"

using namespace torch_npu_test;

namespace {

at::Tensor sortedBoundaries(at::IntArrayRef sizes, at::ScalarType dtype) {
  return std::get<0>(at::randint(-10, 10, sizes).to(at::kFloat).sort(-1)).to(dtype);  // with duplicates
}

}  // namespace

TEST(NpuSearch, SearchsortedAndBucketize) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor seq = sortedBoundaries({15}, dtype);
    const at::Tensor values = at::randint(-12, 12, {4, 6}).to(dtype);
    for (bool right : {false, true}) {
      for (bool out_int32 : {false, true}) {
        auto check = [&](const std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>& fn, const at::Tensor& s,
                         const at::Tensor& v) { expectClose(fn(s.to(npu()), v.to(npu())), fn(s, v)); };
        check([&](const at::Tensor& s, const at::Tensor& v) { return at::searchsorted(s, v, out_int32, right); }, seq,
              values);
        check([&](const at::Tensor& s, const at::Tensor& v) { return at::bucketize(v, s, out_int32, right); }, seq,
              values);
        // Batched rows, a non-contiguous input, a 0-d value, a sorter, a side string.
        const at::Tensor rows = sortedBoundaries({4, 9}, dtype);
        check([&](const at::Tensor& s, const at::Tensor& v) { return at::searchsorted(s, v, out_int32, right); }, rows,
              values);
        check([&](const at::Tensor& s, const at::Tensor& v) { return at::searchsorted(s, v.t(), out_int32, right); },
              seq, values);
        check([&](const at::Tensor& s, const at::Tensor& v) { return at::searchsorted(s, v, out_int32, right); }, seq,
              values[0][0]);
        const at::Tensor perm = at::randperm(15);
        check(
            [&](const at::Tensor& s, const at::Tensor& v) {
              return at::searchsorted(s, v, out_int32, false, right ? "right" : "left", perm.argsort().to(s.device()));
            },
            seq.index_select(0, perm), values);
      }
    }
    expectClose(at::searchsorted(seq.to(npu()), 3), at::searchsorted(seq, 3));
    expectClose(at::bucketize(2, seq.to(npu()), false, true), at::bucketize(2, seq, false, true));
    expectClose(at::searchsorted(seq.to(npu()), at::empty({0}, seq.options()).to(npu())),
                at::searchsorted(seq, at::empty({0}, seq.options())));
  }
  // Mixed dtypes promote; NaN values go to the end.
  const at::Tensor seq = at::tensor({1.f, 2.f, 3.f, NAN});
  const at::Tensor values = at::tensor({NAN, 2.f, 5.f, -1.f});
  expectClose(at::searchsorted(seq.to(npu()), values.to(npu())), at::searchsorted(seq, values));
  expectClose(at::searchsorted(seq.to(npu()), values.to(npu()), false, true),
              at::searchsorted(seq, values, false, true));
  const at::Tensor ints = at::tensor({0, 2, 3, 9});
  expectClose(at::searchsorted(seq.to(npu()), ints.to(npu())), at::searchsorted(seq, ints));
  at::Tensor out = at::empty({0}, at::TensorOptions().dtype(at::kLong).device(npu()));
  at::searchsorted_out(out, seq.to(npu()), values.to(npu()));
  expectClose(out, at::searchsorted(seq, values));
  at::bucketize_out(out, values.to(npu()), seq.to(npu()), false, true);
  expectClose(out, at::bucketize(values, seq, false, true));
  // Errors.
  const at::Tensor s2 = sortedBoundaries({2, 3}, at::kFloat).to(npu());
  EXPECT_THROW_WITH(at::searchsorted(s2, at::ones({3, 2}).to(npu())), "first N-1 dimensions");
  EXPECT_THROW_WITH(at::searchsorted(s2, at::ones({}).to(npu())), "input value can be a scalar only");
  EXPECT_THROW_WITH(at::bucketize(at::ones({3}).to(npu()), s2), "boundaries tensor must be 1 dimension");
  EXPECT_THROW_WITH(at::searchsorted(seq.to(npu()), values.to(npu()), false, false, "middle"), "side can only be");
  EXPECT_THROW_WITH(at::searchsorted(seq.to(npu()), values.to(npu()), false, true, "left"),
                    "can't be set to opposites");
}

TEST(NpuSearch, Isin) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor elements = at::randint(0, 20, {5, 7}).to(dtype);
    const at::Tensor test = at::randint(0, 20, {9}).to(dtype);
    for (bool invert : {false, true}) {
      expectMatchesCpu(
          [&](const at::Tensor& t) { return at::isin(t, test.to(t.device(), t.scalar_type()), false, invert); },
          elements);
      expectMatchesCpu(
          [&](const at::Tensor& t) { return at::isin(t.t(), test.to(t.device(), t.scalar_type()), true, invert); },
          elements);
      expectMatchesCpu([&](const at::Tensor& t) { return at::isin(t, 3, false, invert); }, elements);
      expectMatchesCpu([&](const at::Tensor& t) { return at::isin(4, t, false, invert); }, test);
      expectMatchesCpu(
          [&](const at::Tensor& t) {
            return at::isin(t, test.reshape({3, 3}).to(t.device(), t.scalar_type()));
          },
          elements[0][0]);
      expectMatchesCpu([&](const at::Tensor& t) { return at::isin(t, at::empty({0}, test.options()).to(t.device())); },
                       elements);
      expectMatchesCpu([&](const at::Tensor& t) { return at::isin(t, test.to(t.device(), t.scalar_type())); },
                       elements.slice(0, 0, 0));
    }
  }
  // Mixed dtypes and NaN (never contained).
  const at::Tensor f = at::tensor({1.f, NAN, 2.5f, 3.f, INFINITY});
  for (const at::Tensor& test : {at::tensor({NAN, 3.f}), at::tensor({NAN, INFINITY, NAN, 1.f}), at::tensor({NAN})}) {
    expectClose(at::isin(f.to(npu()), test.to(npu())), at::isin(f, test));
  }
  expectClose(at::isin(at::tensor({1, 2, 3}).to(npu()), f.to(npu())), at::isin(at::tensor({1, 2, 3}), f));
  at::Tensor out = at::empty({0}, at::TensorOptions().dtype(at::kBool).device(npu()));
  at::isin_out(out, f.to(npu()), at::tensor({1.f}).to(npu()));
  expectClose(out, at::isin(f, at::tensor({1.f})));
}

TEST(NpuSearch, Equal) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kBool}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor a = at::randint(0, 2, {4, 5}).to(dtype);
    at::Tensor b = a.clone();
    EXPECT_TRUE(at::equal(a.to(npu()), b.to(npu())));
    EXPECT_TRUE(at::equal(a.to(npu()).t(), b.t().contiguous().to(npu())));  // non-contiguous
    b[1][2] = b[1][2].logical_not().to(dtype);
    EXPECT_FALSE(at::equal(a.to(npu()), b.to(npu())));
    EXPECT_FALSE(at::equal(a.to(npu()), a.reshape({5, 4}).to(npu())));
    EXPECT_TRUE(at::equal(at::empty({0, 3}, dtype).to(npu()), at::empty({0, 3}, dtype).to(npu())));
    EXPECT_EQ(at::equal(a[0][0].to(npu()), b[0][0].to(npu())), at::equal(a[0][0], b[0][0]));  // 0-d
  }
  const at::Tensor n = at::tensor({1.f, NAN});
  EXPECT_EQ(at::equal(n.to(npu()), n.to(npu())), at::equal(n, n));
  EXPECT_EQ(at::equal(at::tensor({1.f, 2.f}).to(npu()), at::tensor({1, 2}).to(npu())),
            at::equal(at::tensor({1.f, 2.f}), at::tensor({1, 2})));
  EXPECT_THROW_WITH(at::equal(n.to(npu()), n), "different devices");
}
