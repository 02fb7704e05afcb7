// scatter(reduce=), scatter_reduce (every reduce, include_self both ways),
// index_copy, index_fill, index_reduce, take, put_, and index_select /
// gather on 0-d inputs against the CPU: forward and backward, fp32 and fp16, integer
// dtypes, empty indices, negative indices, non-contiguous inputs, errors.
#include "npu_test_util.h"

using namespace torch_npu_test;

namespace {

struct IndexRow {
  const char* name;
  std::vector<at::Tensor> inputs;  // floating inputs get gradients
  TensorFn fn;
  // Forward only: prod's backward needs bitwise_and (pointwise family, not
  // on the NPU yet); scatter(reduce=) has no derivative in PyTorch.
  bool backward = true;
};

at::Tensor longs(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }

std::vector<IndexRow> rows(at::ScalarType dtype) {
  const at::Tensor idx = at::randint(0, 4, {3, 5}, at::kLong);
  auto on = [](const at::Tensor& t, const at::Tensor& like) { return t.to(like.device()); };
  std::vector<IndexRow> r;
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      r.push_back({reduce, {at::randn({4, 5}).to(dtype), at::randn({3, 5}).to(dtype)},
                   [=](const auto& in) { return in[0].scatter_reduce(0, on(idx, in[0]), in[1], reduce, include_self); },
                   std::string(reduce) != "prod"});
    }
  }
  r.push_back({"scatter add", {at::randn({4, 5}).to(dtype), at::randn({3, 5}).to(dtype)},
               [=](const auto& in) { return in[0].scatter(0, on(idx, in[0]), in[1], "add"); }, false});
  r.push_back({"scatter multiply value", {at::randn({4, 5}).to(dtype)},
               [=](const auto& in) { return in[0].scatter(1, on(idx.slice(1, 0, 4), in[0]), 2.5, "multiply"); },
               false});
  r.push_back({"index_copy", {at::randn({4, 5}).to(dtype), at::randn({4, 3}).to(dtype)},
               [=](const auto& in) { return in[0].index_copy(1, on(longs({3, 0, 1}), in[0]), in[1]); }});
  r.push_back({"index_fill", {at::randn({4, 5}).to(dtype)},
               [=](const auto& in) { return in[0].index_fill(1, on(longs({-1, 0}), in[0]), -2.0); }});
  r.push_back({"index_fill tensor", {at::randn({4, 5}).to(dtype)},
               [=](const auto& in) { return in[0].index_fill(0, on(longs({2}), in[0]), at::scalar_tensor(3.0)); }});
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    r.push_back({reduce, {at::randn({4, 5}).to(dtype), at::randn({3, 5}).to(dtype)},
                 [=](const auto& in) { return in[0].index_reduce(0, on(longs({0, 0, 3}), in[0]), in[1], reduce, false); },
                 std::string(reduce) != "prod"});
  }
  r.push_back({"take", {at::randn({4, 5}).to(dtype)},
               [=](const auto& in) { return at::take(in[0], on(longs({-1, 0, 19, 3, 3}), in[0]).view({5, 1})); }});
  r.push_back({"put accumulate", {at::randn({4, 5}).to(dtype), at::randn({3}).to(dtype)},
               [=](const auto& in) { return in[0].put(on(longs({-1, 0, 0}), in[0]), in[1], true); }});
  r.push_back({"put", {at::randn({4, 5}).to(dtype), at::randn({3}).to(dtype)},
               [=](const auto& in) { return in[0].put(on(longs({-1, 0, 7}), in[0]), in[1], false); }});
  r.push_back({"index_select 0-d", {at::randn({}).to(dtype)},
               [=](const auto& in) { return in[0].index_select(0, on(longs({0}), in[0])); }});
  r.push_back({"gather 0-d self", {at::randn({}).to(dtype)},
               [=](const auto& in) { return in[0].gather(0, on(longs({0}), in[0])); }});
  r.push_back({"gather 0-d index", {at::randn({}).to(dtype)},
               [=](const auto& in) { return in[0].gather(0, on(longs({0}).squeeze(0), in[0])); }});
  return r;
}

}  // namespace

TEST(NpuIndexScatter, ForwardBackwardAgainstCpu) {
  for (auto dtype : floatAndHalf()) {
    for (const IndexRow& row : rows(dtype)) {
      SCOPED_TRACE(std::string(row.name) + " " + c10::toString(dtype));
      std::vector<at::Tensor> inputs = row.inputs;
      if (!row.backward) {
        std::vector<at::Tensor> npu_in;
        for (auto& t : inputs) npu_in.push_back(t.to(npu())), t = t.to(at::kFloat);
        expectClose(row.fn(npu_in), row.fn(inputs).to(dtype), rtolFor(dtype), atolFor(dtype));
        continue;
      }
      expectSameAutograd(row.fn, inputs, rtolTwoRoundings(dtype) * 2, atolTwoRoundings(dtype) * 2);
    }
  }
}

TEST(NpuIndexScatter, NonContiguousIntegersAndEmpty) {
  for (const IndexRow& row : rows(at::kFloat)) {
    SCOPED_TRACE(row.name);
    if (row.inputs[0].dim() == 2 && row.backward) {
      // self as a transposed view.
      std::vector<at::Tensor> inputs = row.inputs;
      inputs[0] = inputs[0].t().contiguous();
      expectSameAutograd([&](const auto& in) { return row.fn({in[0].t(), in.size() > 1 ? in[1] : in[0]}); }, inputs);
    }
    std::vector<at::Tensor> ints;
    for (const at::Tensor& t : row.inputs) ints.push_back(t.mul(4).round().to(at::kLong));
    std::vector<at::Tensor> ints_npu;
    for (const at::Tensor& t : ints) ints_npu.push_back(t.to(npu()));
    expectClose(row.fn(ints_npu), row.fn(ints));
  }
  const at::Tensor x = at::randn({3, 4});
  const at::Tensor empty_index = at::empty({0, 4}, at::kLong);
  expectClose(x.to(npu()).scatter_reduce(0, empty_index.to(npu()), at::randn({0, 4}).to(npu()), "amax"),
              x.scatter_reduce(0, empty_index, at::randn({0, 4}), "amax"));
  expectClose(at::take(x.to(npu()), at::empty({0}, at::kLong).to(npu())), at::take(x, at::empty({0}, at::kLong)));
  expectClose(x.to(npu()).index_fill(0, at::empty({0}, at::kLong).to(npu()), 1.0), x);
}

TEST(NpuIndexScatter, Errors) {
  const at::Tensor x = at::randn({3, 4}).to(npu());
  const at::Tensor idx = longs({0, 1}).to(npu());
  EXPECT_THROW_WITH(x.scatter_reduce(0, idx.view({1, 2}), x, "max"), "reduce argument must be either sum, prod, mean, "
                    "amax or amin");
  EXPECT_THROW_WITH(x.index_fill(0, idx.to(at::kInt), 1.0), "index_fill_(): Expected dtype int64 for index.");
  EXPECT_THROW_WITH(x.index_fill(0, idx, at::ones({2}).to(npu())), "index_fill_ only supports a 0-dimensional value");
  EXPECT_THROW_WITH(at::take(x, idx.to(at::kInt)), "take(): Expected a long tensor for index");
  EXPECT_THROW_WITH(x.clone().put_(idx, at::ones({3}).to(npu())), "put_(): Expected source and index to have the same "
                    "number of elements");
  EXPECT_THROW_WITH(x.clone().put_(idx, at::ones({2}, at::kHalf).to(npu())), "put_(): self and source expected to "
                    "have the same dtype");
  EXPECT_THROW_WITH(x.index_copy(1, idx, at::ones({3, 3}).to(npu())), "index_copy");
  EXPECT_THROW_WITH(
      {
        at::take(x, longs({12}).to(npu())).cpu();
      },
      "12");
}
