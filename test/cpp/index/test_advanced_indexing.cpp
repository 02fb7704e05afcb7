// Advanced indexing (index.Tensor, index_put_ / _index_put_impl_) against
// the CPU: integer, boolean and mixed indices, adjacent and split indexed
// dims, forward and backward (the backward is an accumulating index_put_),
// fp32 and fp16, empty and 0-d cases, non-contiguous operands, errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

using Indices = c10::List<c10::optional<at::Tensor>>;

Indices indicesOf(std::initializer_list<c10::optional<at::Tensor>> list) {
  Indices l;
  for (const auto& i : list) l.push_back(i);
  return l;
}

// The indices on `device` (bool and integer tensors; nullopt stays).
Indices onDevice(const Indices& in, const at::Device& device) {
  Indices l;
  for (const c10::optional<at::Tensor>& i : in) {
    l.push_back(i.has_value() ? c10::optional<at::Tensor>(i->to(device)) : c10::nullopt);
  }
  return l;
}

struct IndexRow {
  const char* name;
  std::vector<int64_t> shape;
  std::function<Indices()> indices;
};

at::Tensor longs(std::vector<int64_t> v, at::IntArrayRef shape) {
  return at::tensor(v, at::kLong).view(shape);
}

at::Tensor bools(std::vector<int64_t> v) { return at::tensor(v, at::kLong).to(at::kBool); }

std::vector<IndexRow> indexRows() {
  return {
      {"x[idx]", {5, 7}, [] { return indicesOf({longs({4, 0, -1, 2, 2}, {5})}); }},
      {"x[:, idx2d]", {3, 6, 4}, [] { return indicesOf({c10::nullopt, longs({5, 0, -6, 3}, {2, 2})}); }},
      {"x[i, j] broadcast", {4, 5, 3}, [] { return indicesOf({longs({0, 3, 1}, {3, 1}), longs({4, 0}, {2})}); }},
      {"x[i, :, j] split", {4, 5, 6}, [] { return indicesOf({longs({1, 3}, {2}), c10::nullopt, longs({0, 5}, {2})}); }},
      {"x[mask]", {4, 3}, [] { return indicesOf({bools({1, 0, 1, 1})}); }},
      {"x[mask2d]", {3, 4, 2}, [] { return indicesOf({at::rand({3, 4}).gt(0.4)}); }},
      {"x[:, mask, idx]", {2, 3, 4}, [] {
         return indicesOf({c10::nullopt, bools({1, 0, 1}), longs({3, 0}, {2})});
       }},
      {"x[0-d idx]", {4, 3}, [] { return indicesOf({longs({2}, {})}); }},
      {"x[empty idx]", {4, 3}, [] { return indicesOf({at::empty({0}, at::kLong)}); }},
      {"empty x", {0, 3}, [] { return indicesOf({c10::nullopt, longs({2, 1}, {2})}); }},
  };
}

}  // namespace

TEST(NpuAdvancedIndexing, IndexForwardBackward) {
  for (const IndexRow& row : indexRows()) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(std::string(row.name) + " " + c10::toString(dtype));
      const Indices idx = row.indices();
      const at::Tensor x = at::randn(row.shape).to(dtype);
      expectSameAutograd(
          [&](const std::vector<at::Tensor>& in) { return at::index(in[0], onDevice(idx, in[0].device())); }, {x},
          rtolFor(dtype), atolFor(dtype));
    }
  }
}

TEST(NpuAdvancedIndexing, NonContiguousCpuIndicesAndIntegers) {
  const at::Tensor x = at::randn({6, 5});
  const Indices idx = indicesOf({longs({4, 0, 3}, {3})});
  // A transposed input, CPU index tensors, an int64 tensor.
  expectClose(at::index(x.to(npu()).t(), idx), at::index(x.t(), idx));
  const at::Tensor l = at::randint(-50, 50, {6, 5}, at::kLong);
  expectClose(at::index(l.to(npu()), onDevice(idx, npu())), at::index(l, idx));
  // out= into a non-contiguous tensor of the right size.
  at::Tensor out = at::empty({5, 3}, at::TensorOptions().device(npu())).t();
  at::index_out(out, x.to(npu()), onDevice(idx, npu()));
  expectClose(out, at::index(x, idx));
}

TEST(NpuAdvancedIndexing, IndexErrors) {
  const at::Tensor x = at::randn({3, 4}).to(npu());
  EXPECT_THROW_WITH(at::index(x, indicesOf({longs({0}, {1}), longs({0}, {1}), longs({0}, {1})})),
                    "too many indices for tensor of dimension 2 (got 3)");
  EXPECT_THROW_WITH(at::index(x, indicesOf({at::tensor({0.5f}).to(npu())})),
                    "tensors used as indices must be long, byte or bool tensors");
  EXPECT_THROW_WITH(at::index(x, indicesOf({c10::nullopt, bools({1, 0}).to(npu())})),
                    "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at "
                    "index 1");
  EXPECT_THROW_WITH(at::index(x, indicesOf({longs({0, 1}, {2}), longs({0, 1, 2}, {3})})),
                    "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  EXPECT_THROW_WITH(at::index(at::scalar_tensor(1.0f).to(npu()), indicesOf({longs({0}, {1})})),
                    "too many indices for tensor of dimension 0");
  EXPECT_THROW_WITH(
      {
        at::index(x, indicesOf({longs({5}, {1}).to(npu())}));
        torch_npu::synchronize(0);
      },
      "index 5 at position [0] of indices 0 is out of range [-3, 3) for axis 0");
}

TEST(NpuAdvancedIndexing, IndexPutValuesAndAccumulate) {
  for (const IndexRow& row : indexRows()) {
    for (auto dtype : floatAndHalf()) {
      for (bool accumulate : {false, true}) {
        SCOPED_TRACE(std::string(row.name) + " " + c10::toString(dtype) + (accumulate ? " accumulate" : ""));
        const Indices idx = row.indices();
        const at::Tensor x = at::randn(row.shape);
        const at::Tensor result = at::index(x, idx);
        // Distinct values so a wrong duplicate order would show (the CPU
        // writes duplicates in order too).
        const at::Tensor values = at::arange(result.numel(), at::kFloat).view(result.sizes()).div(4).to(dtype);
        at::Tensor want = x.to(dtype).to(at::kFloat).clone();
        want.index_put_(idx, values.to(at::kFloat), accumulate);
        at::Tensor got = x.to(dtype).to(npu());
        got.index_put_(onDevice(idx, npu()), values.to(npu()), accumulate);
        expectClose(got, want.to(dtype), rtolFor(dtype), atolFor(dtype));
      }
    }
  }
}

TEST(NpuAdvancedIndexing, IndexPutBroadcastScalarMaskAndNonContiguousSelf) {
  const at::Tensor x = at::randn({4, 5});
  const at::Tensor mask = bools({1, 0, 1, 1});
  const Indices by_mask = indicesOf({mask});
  // x[mask] = tensor of values (one row each) and a broadcast row.
  for (const at::Tensor& v : {at::randn({3, 5}), at::randn({5}), at::randn({1, 5})}) {
    at::Tensor want = x.clone(), got = x.to(npu());
    want.index_put_(by_mask, v);
    got.index_put_(onDevice(by_mask, npu()), v.to(npu()));
    expectClose(got, want);
  }
  // x[mask] = scalar (the sync-free path), plain and accumulating, with a CPU scalar.
  for (bool accumulate : {false, true}) {
    at::Tensor want = x.clone(), got = x.to(npu());
    want.index_put_(by_mask, at::tensor(2.5f), accumulate);
    got.index_put_(onDevice(by_mask, npu()), at::tensor(2.5f), accumulate);
    expectClose(got, want);
  }
  // A transposed (non-contiguous) self, written in place.
  at::Tensor want = x.clone().t(), got = x.to(npu()).t();
  const Indices rows = indicesOf({longs({4, 1}, {2})});
  want.index_put_(rows, at::ones({2, 4}), true);
  got.index_put_(onDevice(rows, npu()), at::ones({2, 4}).to(npu()), true);
  expectClose(got, want);
  // Integers, accumulating duplicates.
  at::Tensor li = at::zeros({5}, at::kLong);
  const Indices dup = indicesOf({longs({1, 1, 3, 1}, {4})});
  at::Tensor lnpu = li.to(npu());
  li.index_put_(dup, longs({1, 2, 3, 4}, {4}), true);
  lnpu.index_put_(onDevice(dup, npu()), longs({1, 2, 3, 4}, {4}).to(npu()), true);
  expectClose(lnpu, li);
}

TEST(NpuAdvancedIndexing, IndexPutErrors) {
  at::Tensor x = at::randn({4, 5}).to(npu());
  EXPECT_THROW_WITH(x.index_put_(indicesOf({longs({0, 1}, {2}).to(npu())}), at::ones({3}).to(npu())),
                    "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 5]");
  EXPECT_THROW_WITH(x.index_put_(indicesOf({bools({1, 0}).to(npu())}), at::ones({5}).to(npu())),
                    "The shape of the mask [2] at index 0 does not match");
  EXPECT_THROW_WITH(x.index_put_(indicesOf({longs({0}, {1}).to(npu())}), at::ones({5})),
                    "(the indexed tensor's device) or a 0-d CPU tensor");
}
