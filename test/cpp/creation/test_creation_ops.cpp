// Tensor creation, fill, arange, resize_, random numbers and view metadata.
#include "csrc/core/NPUGenerator.h"
#include "npu_test_util.h"

using namespace torch_npu_test;  // the shared test helpers (npu_test_util.h)

namespace {

at::TensorOptions onNpu(at::ScalarType dtype = at::kFloat) { return at::TensorOptions().dtype(dtype).device(npu()); }

void expectSameMetadata(const at::Tensor& dev, const at::Tensor& cpu) {
  EXPECT_EQ(dev.sizes(), cpu.sizes());
  EXPECT_EQ(dev.strides(), cpu.strides());
  EXPECT_EQ(dev.storage_offset(), cpu.storage_offset());
  EXPECT_EQ(dev.is_contiguous(), cpu.is_contiguous());
  expectClose(dev, cpu, 0, 0);
}

// A random tensor of `numel` values after seeding the NPU generator.
at::Tensor seededRandom(uint64_t seed, bool normal, int64_t numel) {
  torch_npu::NPUGenerator::forDevice(0).manual_seed(seed);
  at::Tensor t = at::empty({numel}, onNpu());
  return normal ? t.normal_(1.5, 2.0) : t.uniform_(-3, 5);
}

}  // namespace

TEST(NpuCreation, EmptyAndEmptyStrided) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong, at::kBool}) {
    at::Tensor t = at::empty({3, 17, 5}, onNpu(dtype));
    EXPECT_EQ(t.device(), npu());
    EXPECT_EQ(t.scalar_type(), dtype);
    EXPECT_EQ(t.strides(), at::IntArrayRef({85, 5, 1}));
  }
  at::Tensor s = at::empty_strided({4, 7}, {1, 5}, onNpu());
  EXPECT_EQ(s.strides(), at::IntArrayRef({1, 5}));
  EXPECT_EQ(s.storage().nbytes(), (3 + 6 * 5 + 1) * sizeof(float));
  s.fill_(2.5);
  expectClose(s, at::full({4, 7}, 2.5f));
  EXPECT_EQ(at::empty({0}, onNpu()).numel(), 0);
  EXPECT_THROW(at::empty({-1, 3}, onNpu()), c10::Error);
  EXPECT_THROW(at::empty_strided({2, 3}, {1}, onNpu()), c10::Error);
}

TEST(NpuCreation, NamedFactories) {
  const std::vector<at::Dimname> names = {at::Dimname::fromSymbol(at::Symbol::dimname("N")),
                                          at::Dimname::fromSymbol(at::Symbol::dimname("C"))};
  const at::Tensor t = at::zeros({2, 3}, names, onNpu());
  EXPECT_EQ(t.device(), npu());
  ASSERT_TRUE(t.has_names());
  EXPECT_EQ(t.names()[1], names[1]);
  expectClose(t.sum(names[1]), at::zeros({2}));
  EXPECT_EQ(t.sum(names[1]).names()[0], names[0]);
  EXPECT_FALSE(at::empty({2, 3}, c10::nullopt, onNpu()).has_names());
  EXPECT_THROW_WITH(at::empty({2, 3}, std::vector<at::Dimname>{names[0]}, onNpu()), "names");
}

TEST(NpuCreation, ZerosOnesFullAndFill) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kInt, at::kLong, at::kBool}) {
    SCOPED_TRACE(c10::toString(dtype));
    expectClose(at::zeros({5, 17}, onNpu(dtype)), at::zeros({5, 17}, dtype));
    expectClose(at::ones({5, 17}, onNpu(dtype)), at::ones({5, 17}, dtype));
    expectClose(at::full({3, 19}, 7, onNpu(dtype)), at::full({3, 19}, 7, dtype));
  }
  expectClose(at::full({2, 3}, -1.25, onNpu()), at::full({2, 3}, -1.25));
  at::Tensor t = at::zeros({6, 8}, onNpu());
  t.slice(1, 1, 8, 3).fill_(4);  // strided fill leaves other elements alone
  at::Tensor expected = at::zeros({6, 8});
  expected.slice(1, 1, 8, 3).fill_(4);
  expectClose(t, expected);
  t.fill_(at::scalar_tensor(-3.5));  // fill_.Tensor with a CPU 0-d value
  expectClose(t, at::full({6, 8}, -3.5f));
  t.fill_(at::scalar_tensor(9.0).to(npu()));  // with an NPU 0-d value
  expectClose(t, at::full({6, 8}, 9.f));
  t.zero_();
  expectClose(t, at::zeros({6, 8}));
  EXPECT_THROW_WITH(t.fill_(at::ones({2}).to(npu())), "0-dimension");
  expectClose(at::zeros({4}, onNpu(at::kInt)).fill_(3.9), at::full({4}, 3, at::kInt));
}

TEST(NpuCreation, Arange) {
  expectClose(at::arange(17, onNpu(at::kLong)), at::arange(17, at::kLong));
  expectClose(at::arange(-5, 23, 3, onNpu(at::kInt)), at::arange(-5, 23, 3, at::kInt));
  expectClose(at::arange(10, -7, -4, onNpu(at::kLong)), at::arange(10, -7, -4, at::kLong));
  expectClose(at::arange(0, 1, 0.1, onNpu()), at::arange(0, 1, 0.1));
  expectClose(at::arange(-2.5, 3.7, 0.35, onNpu()), at::arange(-2.5, 3.7, 0.35));
  expectClose(at::arange(1.5, -2, -0.25, onNpu()), at::arange(1.5, -2, -0.25));
  expectClose(at::arange(0, 33, 2, onNpu(at::kHalf)), at::arange(0, 33, 2, at::kHalf));
  EXPECT_EQ(at::arange(5, onNpu(at::kLong)).scalar_type(), at::kLong);
  at::Tensor out = at::empty({0}, onNpu());
  at::arange_out(out, 3, 20, 2);
  expectClose(out, at::arange(3, 20, 2, at::kFloat));
  EXPECT_THROW_WITH(at::arange(0, 5, 0, onNpu()), "step must be nonzero");
  EXPECT_THROW_WITH(at::arange(5, 0, 1, onNpu()), "inconsistent with step sign");
}

TEST(NpuCreation, ResizeKeepsDataAndGrows) {
  at::Tensor t = at::arange(12, at::kFloat).to(npu());
  t.resize_({3, 4});
  expectClose(t, at::arange(12, at::kFloat).reshape({3, 4}));
  t.resize_({5, 7});  // grows: the first 12 elements survive
  EXPECT_EQ(t.sizes(), at::IntArrayRef({5, 7}));
  expectClose(t.reshape({-1}).slice(0, 0, 12), at::arange(12, at::kFloat));
  t.resize_({2});
  expectClose(t, at::arange(2, at::kFloat));
  at::Tensor e = at::empty({0}, onNpu(at::kLong));
  e.resize_({17});
  e.fill_(4);
  expectClose(e, at::full({17}, 4, at::kLong));
  EXPECT_THROW(t.resize_({-2}), c10::Error);
}

TEST(NpuRandom, DeterministicUnderNpuGenerator) {
  for (bool normal : {false, true}) {
    SCOPED_TRACE(normal ? "normal_" : "uniform_");
    const at::Tensor a = seededRandom(1234, normal, 1001).cpu();
    const at::Tensor b = seededRandom(1234, normal, 1001).cpu();
    const at::Tensor c = seededRandom(4321, normal, 1001).cpu();
    EXPECT_TRUE(at::equal(a, b));
    EXPECT_FALSE(at::equal(a, c));
    // Consecutive draws without reseeding differ.
    torch_npu::NPUGenerator::forDevice(0).manual_seed(1234);
    at::Tensor first = at::empty({1001}, onNpu());
    at::Tensor second = at::empty({1001}, onNpu());
    normal ? first.normal_() : first.uniform_();
    normal ? second.normal_() : second.uniform_();
    EXPECT_FALSE(at::equal(first.cpu(), second.cpu()));
  }
}

TEST(NpuRandom, PlausibleMoments) {
  const at::Tensor n = seededRandom(7, true, 100003).cpu();
  EXPECT_NEAR(n.mean().item<double>(), 1.5, 0.03);
  EXPECT_NEAR(n.std().item<double>(), 2.0, 0.03);
  const at::Tensor u = seededRandom(7, false, 100003).cpu();
  EXPECT_NEAR(u.mean().item<double>(), 1.0, 0.05);
  EXPECT_NEAR(u.std().item<double>(), 8 / std::sqrt(12.0), 0.03);
  EXPECT_GE(u.min().item<double>(), -3.0);
  EXPECT_LT(u.max().item<double>(), 5.0);
  at::Tensor h = at::empty({4097}, onNpu(at::kHalf)).uniform_(0, 1);
  EXPECT_EQ(h.scalar_type(), at::kHalf);
  EXPECT_NEAR(h.cpu().to(at::kFloat).mean().item<double>(), 0.5, 0.03);
  EXPECT_THROW_WITH(at::empty({3}, onNpu(at::kInt)).normal_(), "floating point");
  EXPECT_THROW_WITH(at::empty({3}, onNpu()).uniform_(2, 1), "from");
  EXPECT_THROW_WITH(at::empty({3}, onNpu()).normal_(0, -1), "std");
  EXPECT_THROW_WITH(at::randn({3}, at::detail::getDefaultCPUGenerator(), onNpu()),
                    "expected a generator of the npu device");
}

// An explicit NPU generator drives the op on its own Philox stream: the
// same seed gives the same numbers as the default generator seeded alike,
// and the default generator's state does not move.
TEST(NpuRandom, ExplicitGeneratorHasItsOwnStream) {
  at::Generator gen = torch_npu::makeNPUGenerator(0);
  gen.set_current_seed(1234);
  auto& fallback = torch_npu::NPUGenerator::forDevice(0);
  fallback.manual_seed(99);
  const auto before = fallback.state();
  const at::Tensor explicit_draw = at::randn({257}, gen, onNpu()).cpu();
  EXPECT_EQ(fallback.state(), before);
  fallback.manual_seed(1234);
  EXPECT_TRUE(at::equal(explicit_draw, at::empty({257}, onNpu()).normal_().cpu()));
  // State round trip through the 16-byte tensor torch.Generator.get_state() returns.
  const at::Tensor state = at::Tensor(gen.get_state());
  EXPECT_EQ(state.numel(), 16);
  const at::Tensor next = at::rand({33}, gen, onNpu()).cpu();
  gen.set_state(state);
  EXPECT_TRUE(at::equal(at::rand({33}, gen, onNpu()).cpu(), next));
  // A clone continues the same stream independently.
  at::Generator copy = gen.clone();
  EXPECT_TRUE(at::equal(at::rand({9}, gen, onNpu()).cpu(), at::rand({9}, copy, onNpu()).cpu()));
  EXPECT_THROW_WITH(gen.set_state(at::zeros({3}, at::kByte)), "16 bytes");
}

TEST(NpuViews, MetadataMatchesCpu) {
  const at::Tensor cpu = at::arange(2 * 3 * 17, at::kFloat).reshape({2, 3, 17});
  const at::Tensor dev = cpu.to(npu());
  expectSameMetadata(dev.view({6, 17}), cpu.view({6, 17}));
  expectSameMetadata(dev.view({-1}), cpu.view({-1}));
  expectSameMetadata(dev.reshape({17, 6}), cpu.reshape({17, 6}));
  expectSameMetadata(dev.transpose(0, 2), cpu.transpose(0, 2));
  expectSameMetadata(dev.permute({2, 0, 1}), cpu.permute({2, 0, 1}));
  expectSameMetadata(dev.slice(2, 0, 1).expand({2, 3, 5}), cpu.slice(2, 0, 1).expand({2, 3, 5}));
  expectSameMetadata(dev.as_strided({4, 5}, {7, 2}, 3), cpu.as_strided({4, 5}, {7, 2}, 3));
  expectSameMetadata(dev.transpose(0, 2).reshape({-1}), cpu.transpose(0, 2).reshape({-1}));  // copies
  expectSameMetadata(dev.unsqueeze(1).squeeze(1).narrow(2, 4, 9), cpu.unsqueeze(1).squeeze(1).narrow(2, 4, 9));
  // Views alias the storage: writing through one is visible in the base.
  at::Tensor base = at::zeros({4, 6}, onNpu());
  base.t().select(0, 2).fill_(1);
  at::Tensor expected = at::zeros({4, 6});
  expected.select(1, 2).fill_(1);
  expectClose(base, expected);
  EXPECT_THROW_WITH(dev.transpose(0, 2).view({-1}), "view size is not compatible");
  EXPECT_THROW_WITH(dev.view({5, 5}), "invalid for input of size 102");
}

// random_ / randint: the CPU defines the ranges ([from, to), 2^digits for
// floats, the dtype's range for integers); the NPU must draw inside them,
// cover them, and reject the ranges the CPU rejects.
TEST(NpuRandomOps, RandomRangesMatchTheCpuRules) {
  for (auto dtype : {at::kBool, at::kByte, at::kChar, at::kInt, at::kLong, at::kHalf, at::kFloat}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t lo = dtype == at::kBool || dtype == at::kByte ? 0 : -4, hi = dtype == at::kBool ? 2 : 6;
    at::Tensor t = at::empty({4000}, at::TensorOptions().dtype(dtype).device(npu())).random_(lo, hi).cpu();
    at::Tensor v = t.to(at::kLong);
    EXPECT_EQ(v.min().item<int64_t>(), lo);
    EXPECT_EQ(v.max().item<int64_t>(), hi - 1);
    // random_() without bounds: [0, 2^digits] for floats, [0, max] for integers, as on the CPU.
    at::Tensor full = at::empty({2000}, at::TensorOptions().dtype(dtype).device(npu())).random_().cpu();
    at::Tensor cpu_full = at::empty({2000}, at::TensorOptions().dtype(dtype)).random_();
    EXPECT_GE(full.to(at::kDouble).min().item<double>(), 0.0);
    EXPECT_LE(full.to(at::kDouble).max().item<double>(),
              dtype == at::kHalf ? 2048.0 : (dtype == at::kFloat ? 16777216.0 : cpu_full.to(at::kDouble).max().item<double>() * 1.01 + 1));
  }
  for (const auto& make : std::vector<std::function<at::Tensor(at::Device)>>{
           [](at::Device d) { return at::empty({3}, at::TensorOptions().device(d)).random_(5, 3); },
           [](at::Device d) { return at::empty({3}, at::TensorOptions().dtype(at::kChar).device(d)).random_(0, 300); }}) {
    EXPECT_ANY_THROW(make(at::kCPU));
    EXPECT_ANY_THROW(make(npu()));
  }
  EXPECT_EQ(at::empty({0}, at::TensorOptions().device(npu())).random_(0, 3).numel(), 0);
}

// float64 is a storage dtype on the NPU: created, filled, copied, viewed and
// cast exactly; arithmetic raises a clear dtype error. int16 is a full
// integer dtype.
TEST(NpuCreation, Float64StorageAndInt16Arithmetic) {
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  expectClose(at::full({4}, 1.0 / 3.0, f64.device(npu())), at::full({4}, 1.0 / 3.0, f64), 0, 0);
  const at::Tensor x = at::randn({3, 4}, f64);
  expectClose(x.to(npu()).t().contiguous(), x.t().contiguous(), 0, 0);
  expectClose(x.to(npu()).to(at::kFloat), x.to(at::kFloat), 0, 0);
  expectClose(at::zeros_like(x.to(npu())), at::zeros_like(x), 0, 0);
  EXPECT_THROW_WITH(x.to(npu()).add(x.to(npu())).cpu(), "float64 is not supported");
  const at::Tensor s = at::randint(-300, 300, {5, 6}).to(at::kShort);
  expectClose(s.to(npu()).mul(s.to(npu())), s.mul(s));
  expectClose(s.to(npu()).sum(1), s.sum(1));
  expectClose(s.to(npu()).to(at::kFloat), s.to(at::kFloat));
}

// Sampling with tensor parameters: the CPU defines what is drawn; the NPU's
// draws must have those properties (and be repeatable under a seed).
TEST(NpuRandomOps, RandpermBernoulliNormalMultinomial) {
  torch_npu::NPUGenerator::forDevice(0).set_state(5, 0);
  at::Tensor p = at::randperm(1000, at::TensorOptions().dtype(at::kLong).device(npu())).cpu();
  EXPECT_TRUE(at::equal(std::get<0>(p.sort()), at::arange(1000)));
  EXPECT_FALSE(at::equal(p, at::arange(1000)));
  EXPECT_EQ(at::randperm(0, at::TensorOptions().device(npu())).numel(), 0);
  // bernoulli with a probability tensor: the mean of each half follows its p.
  at::Tensor probs = at::cat({at::full({20000}, 0.2), at::full({20000}, 0.9)});
  at::Tensor b = at::bernoulli(probs.to(npu())).cpu();
  EXPECT_NEAR(b.slice(0, 0, 20000).mean().item<double>(), 0.2, 0.02);
  EXPECT_NEAR(b.slice(0, 20000).mean().item<double>(), 0.9, 0.02);
  // normal with tensor mean / std.
  at::Tensor n = at::normal(at::full({40000}, 3.0).to(npu()), at::full({40000}, 0.5).to(npu())).cpu();
  EXPECT_NEAR(n.mean().item<double>(), 3.0, 0.02);
  EXPECT_NEAR(n.std().item<double>(), 0.5, 0.02);
  EXPECT_THROW_WITH(at::normal(at::zeros({2}).to(npu()), at::full({2}, -1.0).to(npu())), "std >= 0.0");
  // multinomial: frequencies with replacement, distinct draws without, errors like the CPU.
  const at::Tensor dist = at::tensor({0.1f, 0.0f, 0.6f, 0.3f});
  at::Tensor m = at::multinomial(dist.to(npu()), 20000, true).cpu();
  at::Tensor freq = at::bincount(m, {}, 4).to(at::kFloat).div(20000);
  expectClose(freq, dist, 0, 0.02);
  at::Tensor w = at::multinomial(dist.repeat({3, 1}).to(npu()), 3, false).cpu();
  for (int64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(std::get<0>(at::_unique(w[r])).numel(), 3);
    EXPECT_FALSE(w[r].eq(1).any().item<bool>());  // probability 0 is never drawn
  }
  EXPECT_THROW_WITH(at::multinomial(dist.to(npu()), 5, false), "cannot sample n_sample > prob_dist.size(-1)");
  EXPECT_THROW_WITH(at::multinomial(at::tensor({0.5f, -0.1f}).to(npu()), 1), "element < 0");
}
