// Copies in every direction, with strides, broadcasting and dtype changes.
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

TEST(NpuCopy, HostToDeviceAndBackIsExact) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong, at::kBool}) {
    at::Tensor cpu = at::randn({7, 13}).mul(10).to(dtype);
    at::Tensor dev = cpu.to(npu());
    EXPECT_EQ(dev.device(), npu());
    EXPECT_TRUE(at::equal(dev.cpu(), cpu)) << dtype;
  }
}

TEST(NpuCopy, NonContiguousSourcesOnDevice) {
  at::Tensor cpu = at::randn({5, 6, 7});
  at::Tensor dev = cpu.to(npu());
  expectClose(dev.transpose(0, 2).contiguous(), cpu.transpose(0, 2).contiguous(), 0, 0);
  expectClose(dev.permute({1, 2, 0}).contiguous(), cpu.permute({1, 2, 0}).contiguous(), 0, 0);
  expectClose(dev.slice(1, 1, 5, 2), cpu.slice(1, 1, 5, 2), 0, 0);
  expectClose(dev.select(2, 3).t(), cpu.select(2, 3).t(), 0, 0);
}

TEST(NpuCopy, IntoNonContiguousDestination) {
  at::Tensor cpu = at::zeros({4, 6});
  at::Tensor dev = cpu.to(npu());
  at::Tensor src = at::arange(8, at::kFloat).reshape({2, 4});
  cpu.slice(1, 0, 6, 3).copy_(src.t());
  dev.slice(1, 0, 6, 3).copy_(src.t().to(npu()));
  expectClose(dev, cpu, 0, 0);
  dev.t().copy_(at::ones({6, 4}));  // host source into a transposed device view
  expectClose(dev, at::ones({4, 6}), 0, 0);
}

TEST(NpuCopy, DtypeChangingCopies) {
  at::Tensor cpu = at::randn({3, 17}).mul(100);
  at::Tensor dev = cpu.to(npu());
  expectClose(dev.to(at::kHalf), cpu.to(at::kHalf), 0, 0);
  expectClose(dev.to(at::kInt), cpu.to(at::kInt), 0, 0);
  expectClose(dev.to(at::kLong).to(at::kFloat), cpu.to(at::kLong).to(at::kFloat), 0, 0);
  expectClose(dev.to(at::kBool), cpu.to(at::kBool), 0, 0);
  expectClose(dev.t().to(at::kHalf), cpu.t().to(at::kHalf), 0, 0);
  at::Tensor host_half = at::empty({17, 3}, at::kHalf);
  host_half.copy_(dev.t());
  expectClose(host_half, cpu.t().to(at::kHalf), 0, 0);
}

TEST(NpuCopy, BroadcastingCopy) {
  at::Tensor dev = at::empty({3, 4}, at::TensorOptions().device(npu()));
  dev.copy_(at::arange(4, at::kFloat).to(npu()));
  expectClose(dev, at::arange(4, at::kFloat).expand({3, 4}).contiguous(), 0, 0);
}

TEST(NpuCopy, ZeroSizedTensors) {
  at::Tensor dev = at::empty({0, 3}, at::TensorOptions().device(npu()));
  EXPECT_EQ(dev.cpu().numel(), 0);
  dev.copy_(at::empty({0, 3}));
}

TEST(NpuCopy, CloneAndInPlaceAfterCopyDoNotAlias) {
  at::Tensor cpu = at::ones({8});
  at::Tensor dev = cpu.to(npu());
  cpu.fill_(5);  // the H2D copy must have snapshotted the host data
  expectClose(dev, at::ones({8}), 0, 0);
  at::Tensor c = dev.clone();
  dev.fill_(2);
  expectClose(c, at::ones({8}), 0, 0);
}

namespace {

// Private-format cases: (format, logical shape) with real padding in the layout.
struct PrivateCase {
  aclFormat format;
  std::vector<int64_t> shape;
};

std::vector<PrivateCase> privateCases() {
  return {{ACL_FORMAT_NC1HWC0, {2, 19, 5, 3}}, {ACL_FORMAT_FRACTAL_Z, {33, 19, 3, 3}},
          {ACL_FORMAT_FRACTAL_NZ, {3, 20, 35}}, {ACL_FORMAT_NC1HWC0, {37}}};
}

}  // namespace

TEST(NpuCopy, CloneKeepsPrivateFormatWithOneMemcpy) {
  InternalFormatGuard allow(true);
  for (const auto& c : privateCases()) {
    for (auto dtype : floatAndHalf()) {
      SCOPED_TRACE(torch_npu::formatName(c.format) + " " + c10::str(at::IntArrayRef(c.shape)) + " " +
                   c10::toString(dtype));
      const at::Tensor cpu = at::randn(c.shape).to(dtype);
      at::Tensor x = npuFormatCast(cpu.to(npu()), c.format);
      ASSERT_EQ(torch_npu::npuFormatOf(x), c.format);
      at::Tensor copy;
      {
        OpRecorder rec;
        copy = x.clone();
        EXPECT_EQ(rec.count("TransData"), 0) << rec.summary();
        EXPECT_EQ(rec.count("MemcpyD2D"), 1) << rec.summary();
      }
      EXPECT_EQ(torch_npu::npuFormatOf(copy), c.format);
      EXPECT_EQ(copy.sizes(), x.sizes());
      EXPECT_EQ(copy.strides(), x.strides());
      expectClose(copy, cpu, 0, 0);
      x.add_(1);  // the clone has its own storage
      expectClose(copy, cpu, 0, 0);
      expectClose(x.clone(at::MemoryFormat::Contiguous), cpu.add(1), 0, 0);
    }
  }
}

TEST(NpuCopy, CloneFallsBackToBaseFormats) {
  const at::Tensor cpu = at::randn({2, 19, 5, 3});
  const at::Tensor x = npuFormatCast(cpu.to(npu()), ACL_FORMAT_NC1HWC0);
  {
    InternalFormatGuard allow(true);
    // Another memory format: a base-format tensor with those strides.
    const at::Tensor cl = x.clone(at::MemoryFormat::ChannelsLast);
    EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(cl)));
    EXPECT_TRUE(cl.is_contiguous(at::MemoryFormat::ChannelsLast));
    expectClose(cl, cpu, 0, 0);
    // A view of part of the storage: a base-format copy of the view.
    const at::Tensor part = x.slice(1, 2, 9).clone();
    EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(part)));
    expectClose(part, cpu.slice(1, 2, 9), 0, 0);
  }
  {
    InternalFormatGuard disallow(false);
    const at::Tensor copy = x.clone();
    EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(copy)));
    expectClose(copy, cpu, 0, 0);
  }
  const at::Tensor plain = cpu.to(npu()).clone();
  EXPECT_EQ(torch_npu::npuFormatOf(plain), ACL_FORMAT_NCHW);
  expectClose(plain, cpu, 0, 0);
}

TEST(NpuCopy, EmptyLikeFamilyKeepsPrivateFormat) {
  const at::Tensor cpu = at::randn({33, 19, 3, 3});
  const at::Tensor w = npuFormatCast(cpu.to(npu()), ACL_FORMAT_FRACTAL_Z);
  {
    InternalFormatGuard allow(true);
    const at::Tensor z = at::zeros_like(w);
    EXPECT_EQ(torch_npu::npuFormatOf(z), ACL_FORMAT_FRACTAL_Z);
    expectClose(z, at::zeros_like(cpu), 0, 0);
    const at::Tensor o = at::ones_like(w, at::kHalf);
    EXPECT_EQ(torch_npu::npuFormatOf(o), ACL_FORMAT_FRACTAL_Z);
    expectClose(o, at::ones({33, 19, 3, 3}, at::kHalf), 0, 0);
    const at::Tensor f = at::full_like(w, 2.5);
    EXPECT_EQ(torch_npu::npuFormatOf(f), ACL_FORMAT_FRACTAL_Z);
    expectClose(f, at::full({33, 19, 3, 3}, 2.5), 0, 0);
    EXPECT_EQ(torch_npu::npuFormatOf(at::empty_like(w, at::MemoryFormat::Contiguous)), ACL_FORMAT_FRACTAL_Z);
    // Base formats otherwise: another memory format, a partial view, another device.
    EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(at::empty_like(w, at::MemoryFormat::ChannelsLast))));
    EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(at::zeros_like(w[0]))));
    const at::Tensor host = at::zeros_like(w, at::TensorOptions().device(at::kCPU));
    EXPECT_TRUE(host.device().is_cpu());
    expectClose(w + at::zeros_like(w), cpu, 0, 0);  // the native same-format path
  }
  {
    InternalFormatGuard disallow(false);
    EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(at::zeros_like(w))));
  }
}

TEST(NpuCopy, SameFormatCopyIsOneMemcpy) {
  InternalFormatGuard allow(true);
  const at::Tensor a = at::randn({33, 19, 3, 3}), b = at::randn({33, 19, 3, 3});
  at::Tensor dst = npuFormatCast(a.to(npu()), ACL_FORMAT_FRACTAL_Z);
  const at::Tensor src = npuFormatCast(b.to(npu()), ACL_FORMAT_FRACTAL_Z);
  {
    OpRecorder rec;
    dst.copy_(src);
    EXPECT_EQ(rec.summary(), "MemcpyD2D");
  }
  expectClose(dst, b, 0, 0);
  dst.copy_(dst);  // onto itself
  expectClose(dst, b, 0, 0);
  {
    // From a base-format NPU tensor: one TransData into the destination's layout.
    OpRecorder rec;
    dst.copy_(a.to(npu()));
    EXPECT_EQ(rec.count("TransData"), 1) << rec.summary();
    EXPECT_EQ(rec.count("MemcpyD2D"), 0) << rec.summary();
  }
  expectClose(dst, a, 0, 0);
  // Another private format, dtype or a partial destination: through the base format.
  dst.copy_(npuFormatCast(b.to(npu()), ACL_FORMAT_NC1HWC0));
  expectClose(dst, b, 0, 0);
  dst.copy_(npuFormatCast(a.to(npu()).to(at::kHalf), ACL_FORMAT_FRACTAL_Z));
  expectClose(dst, a.to(at::kHalf).to(at::kFloat), 0, 0);
  dst[3].copy_(src[5]);
  at::Tensor expected = a.to(at::kHalf).to(at::kFloat);
  expected[3].copy_(b[5]);
  expectClose(dst, expected, 0, 0);
  EXPECT_EQ(torch_npu::npuFormatOf(dst), ACL_FORMAT_FRACTAL_Z);
}

// Note [NPU copy]: a dtype conversion of a whole private-format storage keeps
// its format and is one Cast on the storages (no TransData), with the values
// of the CPU's conversion; the pads stay zero, so the result reads back exactly.
TEST(NpuCopy, DtypeConversionKeepsPrivateFormatWithOneCast) {
  InternalFormatGuard allow(true);
  const std::vector<std::pair<at::ScalarType, at::ScalarType>> conversions = {
      {at::kHalf, at::kFloat}, {at::kFloat, at::kHalf}, {at::kFloat, at::kInt}};
  for (const auto& c : privateCases()) {
    for (const auto& [from, to] : conversions) {
      SCOPED_TRACE(torch_npu::formatName(c.format) + " " + c10::str(at::IntArrayRef(c.shape)) + " " +
                   c10::toString(from) + " -> " + c10::toString(to));
      const at::Tensor cpu = at::randn(c.shape).mul(100).to(from);
      const at::Tensor x = npuFormatCast(cpu.to(npu()), c.format);
      at::Tensor y;
      {
        OpRecorder rec;
        y = x.to(to);
        EXPECT_EQ(rec.summary(), "Cast");
      }
      EXPECT_EQ(torch_npu::npuFormatOf(y), c.format);
      EXPECT_EQ(y.scalar_type(), to);
      expectClose(y, cpu.to(to), 0, 0);
      at::Tensor into = npuFormatCast(at::zeros(c.shape, to).to(npu()), c.format);
      into.copy_(x);  // copy_ between the two storages: the same single Cast
      expectClose(into, cpu.to(to), 0, 0);
    }
  }
  // A view, another device argument or a memory format change: through the base format, as before.
  const at::Tensor w = npuFormatCast(at::randn({33, 19, 3, 3}).to(npu()), ACL_FORMAT_FRACTAL_Z);
  EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(w[1].to(at::kHalf))));
  EXPECT_TRUE(torch_npu::isBaseFormat(torch_npu::npuFormatOf(w.to(at::kHalf, false, false, at::MemoryFormat::ChannelsLast))));
  EXPECT_TRUE(w.to(at::kCPU, at::kHalf).is_cpu());
  expectClose(w.to(npu(), at::kHalf), w.cpu().to(at::kHalf), 0, 0);
  // A device without an index is the current device (npu:0), not the source's.
  const at::Tensor w1 = npuFormatCast(at::randn({33, 19, 3, 3}).to(npu(1)), ACL_FORMAT_FRACTAL_Z);
  const at::Tensor moved = w1.to(at::Device(at::DeviceType::PrivateUse1), at::kHalf);
  EXPECT_EQ(moved.device(), npu(0));
  expectClose(moved, w1.cpu().to(at::kHalf), 0, 0);
  EXPECT_EQ(torch_npu::npuFormatOf(w1.to(npu(1), at::kHalf)), ACL_FORMAT_FRACTAL_Z);
}

// Note [Contiguous views on the AI Core]: sliced, permuted and expanded views
// become contiguous through StridedSliceD / Transpose / BroadcastTo; other
// strided views through AsStrided. Every path gives the CPU's values.
TEST(NpuCopy, PermutedAndExpandedViewsUseAiCoreOps) {
  const at::Tensor x = at::randn({3, 4, 5});
  struct Case {
    std::function<at::Tensor(const at::Tensor&)> view;
    std::vector<std::string> ops;
  };
  const std::vector<Case> cases = {
      {[](const at::Tensor& t) { return t.transpose(0, 1); }, {"Transpose"}},
      {[](const at::Tensor& t) { return t.permute({2, 0, 1}); }, {"Transpose"}},
      {[](const at::Tensor& t) { return t.unsqueeze(0).transpose(0, 2); }, {"Transpose"}},
      {[](const at::Tensor& t) { return t.slice(0, 0, 1).expand({6, 4, 5}); }, {"BroadcastTo"}},
      {[](const at::Tensor& t) { return t.transpose(1, 2).unsqueeze(2).expand({3, 5, 7, 4}); },
       {"Transpose", "BroadcastTo"}},
      {[](const at::Tensor& t) { return t.slice(1, 1, 3).transpose(0, 1); }, {"StridedSliceD", "Transpose"}},
      {[](const at::Tensor& t) { return t.slice(2, 0, 5, 2); }, {"StridedSliceD"}},
      {[](const at::Tensor& t) { return t.chunk(3, 1)[1]; }, {"StridedSliceD"}},  // LSTM gates, packed q/k/v
      {[](const at::Tensor& t) { return t.select(2, 3).unsqueeze(1).expand({3, 2, 4}); },
       {"StridedSliceD", "BroadcastTo"}},
      // Overlapping windows and negative strides are not slices of a block: the AI CPU's AsStrided.
      {[](const at::Tensor& t) { return t.reshape({-1}).as_strided({5, 4}, {2, 1}); }, {"AsStrided"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    for (auto dtype : {at::kFloat, at::kHalf, at::kLong}) {
      const at::Tensor src = x.mul(10).to(dtype).to(npu());
      OpRecorder rec;
      at::Tensor got = cases[i].view(src).contiguous();
      std::vector<std::string> ops = rec.opTypes();
      EXPECT_EQ(ops, cases[i].ops) << rec.summary();
      expectClose(got, cases[i].view(x.mul(10).to(dtype)).contiguous());
    }
  }
}
