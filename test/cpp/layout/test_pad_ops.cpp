// Padding against the CPU: reflection / replication 1-3 D (batched and
// unbatched, negative pads), the composite constant and circular pads,
// forward and backward, fp32 and fp16, empty batches, non-contiguous and
// integer inputs, out= forms and errors.
#include "op_rows.h"

using namespace torch_npu_test;

namespace {

TensorFn padFn(std::vector<int64_t> pad, const char* mode) {
  return [pad, mode](const std::vector<at::Tensor>& in) {
    const std::string m(mode);
    if (m == "reflect1") return at::reflection_pad1d(in[0], pad);
    if (m == "reflect2") return at::reflection_pad2d(in[0], pad);
    if (m == "reflect3") return at::reflection_pad3d(in[0], pad);
    if (m == "edge1") return at::replication_pad1d(in[0], pad);
    if (m == "edge2") return at::replication_pad2d(in[0], pad);
    if (m == "edge3") return at::replication_pad3d(in[0], pad);
    if (m == "constant") return at::constant_pad_nd(in[0], pad, 1.5);
    return at::_pad_circular(in[0], pad);
  };
}

std::vector<OpRow> rows() {
  return {
      {"reflection_pad1d", {2, 3, 7}, padFn({3, 2}, "reflect1")},
      {"reflection_pad1d unbatched", {3, 7}, padFn({2, 6}, "reflect1")},
      {"reflection_pad1d crop", {2, 3, 7}, padFn({-2, 4}, "reflect1")},
      {"reflection_pad2d", {2, 3, 5, 6}, padFn({2, 4, 1, 3}, "reflect2")},
      {"reflection_pad2d unbatched", {3, 5, 6}, padFn({1, 0, 4, 2}, "reflect2")},
      {"reflection_pad3d", {1, 2, 3, 4, 5}, padFn({2, 1, 0, 3, 1, 2}, "reflect3")},
      {"replication_pad1d", {2, 3, 7}, padFn({5, 9}, "edge1")},
      {"replication_pad2d", {2, 3, 5, 6}, padFn({7, 1, 0, 3}, "edge2")},
      {"replication_pad2d crop", {2, 3, 5, 6}, padFn({-2, 3, 2, -1}, "edge2")},
      {"replication_pad3d", {1, 2, 3, 4, 5}, padFn({2, 5, 0, 3, 6, 1}, "edge3")},
      {"replication_pad3d unbatched", {2, 3, 4, 5}, padFn({1, 1, 2, 2, 0, 1}, "edge3")},
      {"constant_pad_nd", {2, 3, 5, 6}, padFn({1, 2, -1, 3}, "constant")},
      {"circular", {2, 3, 5, 6}, padFn({1, 2, 3, 1}, "circular")},
  };
}

}  // namespace

// Two-roundings fp16 tolerances: the composite pads (constant, circular)
// accumulate their fp16 gradients over several fp16 additions.
TEST(NpuPad, ForwardBackwardAgainstCpu) { expectRowsMatchCpu(rows(), true); }

TEST(NpuPad, EmptyBatchNonContiguousAndIntegers) {
  expectRowsOnEmptyBatch(rows(), {"unbatched"});
  expectRowsOnTransposedInput(rows(), 0, 1);
  for (const OpRow& row : rows()) {
    SCOPED_TRACE(row.name);
    // Integers: bit copies on the NPU (the CPU pads floats only; small integers are exact).
    const at::Tensor ints = at::randint(-100, 100, row.shape, at::kLong);
    expectClose(row.fn({ints.to(npu())}), row.fn({ints.to(at::kFloat)}).to(at::kLong));
  }
}

TEST(NpuPad, OutFormsAndErrors) {
  const at::Tensor x = at::randn({2, 3, 5, 6});
  at::Tensor out = at::empty({0}, at::TensorOptions().device(npu()));
  at::reflection_pad2d_out(out, x.to(npu()), {1, 2, 3, 4});
  expectClose(out, at::reflection_pad2d(x, {1, 2, 3, 4}));
  at::Tensor grad = at::empty({0}, at::TensorOptions().device(npu()));
  const at::Tensor g = at::randn({2, 3, 12, 9});
  at::replication_pad2d_backward_out(grad, g.to(npu()), x.to(npu()), {1, 2, 3, 4});
  expectClose(grad, at::replication_pad2d_backward(g, x, {1, 2, 3, 4}));
  const at::Tensor xn = x.to(npu());
  EXPECT_THROW_WITH(at::reflection_pad2d(xn, {6, 0, 0, 0}), "Padding size should be less than the corresponding input "
                    "dimension, but got: padding (6, 0) at dimension 3 of input [2, 3, 5, 6]");
  EXPECT_THROW_WITH(at::reflection_pad2d(at::randn({5, 6}).to(npu()), {1, 1, 1, 1}), "3D or 4D");
  EXPECT_THROW_WITH(at::reflection_pad1d(xn.select(0, 0).select(0, 0), {7, 1}), "Argument #4");
  EXPECT_THROW_WITH(at::replication_pad2d_backward(g.to(npu()), xn, {1, 1, 3, 4}),
                    "grad_output size unexpected: expected [2, 3, 12, 8], got [2, 3, 12, 9]");
  EXPECT_THROW_WITH(at::replication_pad3d(xn, {1, 1}), "padding size is expected to be 6");
}
