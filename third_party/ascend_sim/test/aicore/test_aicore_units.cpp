// The AI Core units (aicore/units.h): Cube numerics (float64 bound and the
// documented ascending-K order), int8 Cube, Vector repeat counting, fp16
// saturation, img2col (plain and packed), packed A operands, and determinism of
// the split across host threads.
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "aicore/thread_pool.h"
#include "aicore/units.h"
#include "kernel_test_util.h"
#include "ops/pointwise/elementwise.h"

namespace ascend_sim {
namespace test {
namespace {

// Loads A/B through the Cube unit and multiplies with the given region split.
std::vector<float> cubeMatmul(aclDataType dt, const HostTensor& a, const HostTensor& b, int64_t m, int64_t n,
                              int64_t k, int row_parts, int panel_parts, UnitCounters* cnt) {
  const CubeUnit& cube = cubeUnit();
  const int64_t panels = (n + 15) / 16;
  std::vector<float> al(static_cast<size_t>(m * k)), bl(static_cast<size_t>(panels * k * 16));
  cube.load_a(GmMatrix{dt, const_cast<HostTensor&>(a).data(), 0, k, 1}, m, k, CubeRounding::kNone, al.data(), cnt);
  cube.load_b(GmMatrix{dt, const_cast<HostTensor&>(b).data(), 0, n, 1}, k, n, CubeRounding::kNone, bl.data(), cnt);
  std::vector<float> c(static_cast<size_t>(m * n), -1.0f);
  const CubeOperands op{al.data(), bl.data(), m, n, k};
  for (int r = 0; r < row_parts; ++r)
    for (int p = 0; p < panel_parts; ++p)
      cube.mmad_f32(op, nullptr, r * m / row_parts, (r + 1) * m / row_parts, p * panels / panel_parts,
                    (p + 1) * panels / panel_parts, c.data(), cnt);
  return c;
}

TEST(CubeUnit, Fp16MatchesFloat64WithinBoundAndAscendingKOrder) {
  const int64_t m = 37, n = 45, k = 300;
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16, ACL_FLOAT}) {
    HostTensor a = HostTensor::floats(dt, {m, k}, randomFloats(m * k, -2, 2, 1));
    HostTensor b = HostTensor::floats(dt, {k, n}, randomFloats(k * n, -2, 2, 2));
    UnitCounters cnt;
    auto got = cubeMatmul(dt, a, b, m, n, k, 1, 1, &cnt);
    auto ra = a.toFloats(), rb = b.toFloats();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        float acc = 0;  // the documented order: ascending k, fp32 FMA
        for (int64_t kk = 0; kk < k; ++kk) {
          ref += static_cast<double>(ra[i * k + kk]) * rb[kk * n + j];
          mag += std::fabs(static_cast<double>(ra[i * k + kk]) * rb[kk * n + j]);
          acc = std::fma(ra[i * k + kk], rb[kk * n + j], acc);
        }
        const double bound = k * std::ldexp(1.0, -24) * mag;  // gamma_K for fp32 accumulation
        ASSERT_LE(std::fabs(got[i * n + j] - ref), bound) << dtypeName(dt) << " at " << i << "," << j;
        ASSERT_EQ(got[i * n + j], acc) << dtypeName(dt) << " at " << i << "," << j;
      }
    EXPECT_EQ(cnt.cube_macs, 48.0 * 48 * 304);
    EXPECT_EQ(cnt.cube_fractals, 3.0 * 3);
    EXPECT_EQ(cnt.mte_in_bytes, static_cast<double>((m * k + k * n) * dtypeSize(dt)));
  }
}

TEST(CubeUnit, RegionSplitDoesNotChangeBits) {
  const int64_t m = 70, n = 90, k = 129;
  HostTensor a = HostTensor::floats(ACL_FLOAT, {m, k}, randomFloats(m * k, -1, 1, 3));
  HostTensor b = HostTensor::floats(ACL_FLOAT, {k, n}, randomFloats(k * n, -1, 1, 4));
  UnitCounters c1, c2;
  auto whole = cubeMatmul(ACL_FLOAT, a, b, m, n, k, 1, 1, &c1);
  auto split = cubeMatmul(ACL_FLOAT, a, b, m, n, k, 5, 3, &c2);
  EXPECT_EQ(whole, split);
  EXPECT_GE(c2.cube_macs, c1.cube_macs);  // odd row parts pad more fractals
}

// Shapes that take every tile kind of the driver on an AVX-512 host (Note
// [Wide Cube tiles]): whole 12 x 32 and 6 x 32 tiles in place, partial ones
// through the scratch tile, a lone 16-column panel; three K blocks and a bias; two packed row
// blocks (kMc = 192 rows) with the prefetches of Note [Prefetch across micro-kernels].
TEST(CubeUnit, EveryTileShapeWithBiasEqualsTheFmaChain) {
  for (const auto& [m, n, k] :
       std::vector<std::array<int64_t, 3>>{{30, 64, 520}, {43, 77, 257}, {5, 40, 17}, {203, 48, 300}}) {
    const std::vector<float> ra = randomFloats(m * k, -2, 2, 5), rb = randomFloats(k * n, -2, 2, 6);
    const std::vector<float> bias = randomFloats(n, -1, 1, 7);
    const int64_t panels = (n + 15) / 16;
    std::vector<float> bl(static_cast<size_t>(panels * k * 16)), got(static_cast<size_t>(m * n), -1.0f);
    cubeUnit().load_b(GmMatrix{ACL_FLOAT, rb.data(), 0, n, 1}, k, n, CubeRounding::kNone, bl.data(), nullptr);
    cubeUnit().mmad_f32(CubeOperands{ra.data(), bl.data(), m, n, k}, bias.data(), 0, m, 0, panels, got.data(),
                        nullptr);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int64_t kk = 0; kk < k; ++kk) acc = std::fma(ra[i * k + kk], rb[kk * n + j], acc);
        ASSERT_EQ(got[i * n + j], acc + bias[j]) << m << "x" << n << "x" << k << " at " << i << "," << j;
      }
  }
}

TEST(CubeUnit, Int8AccumulatesInInt32) {
  const int64_t m = 19, n = 21, k = 200;
  std::vector<int8_t> a(m * k), b(k * n);
  for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<int8_t>((i * 37) % 256 - 128);
  for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<int8_t>((i * 91 + 7) % 256 - 128);
  std::vector<int32_t> bias(n);
  for (int64_t j = 0; j < n; ++j) bias[j] = static_cast<int32_t>(j * 1000 - 7);
  std::vector<int32_t> c(m * n, 0);
  UnitCounters cnt;
  cubeUnit().mmad_s8(a.data(), b.data(), bias.data(), m, n, k, 0, m, 0, n, c.data(), &cnt);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t ref = bias[j];
      for (int64_t kk = 0; kk < k; ++kk) ref += int64_t{a[i * k + kk]} * b[kk * n + j];
      ASSERT_EQ(c[i * n + j], ref) << i << "," << j;
    }
  EXPECT_EQ(cnt.cube_macs, 32.0 * 32 * 208);
  // Through the MatMul kernel (transposed x2).
  HostTensor ta(ACL_INT8, {m, k}), tb(ACL_INT8, {n, k}), ty(ACL_INT32, {m, n});
  std::memcpy(ta.data(), a.data(), a.size());
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) static_cast<int8_t*>(tb.data())[j * k + kk] = b[kk * n + j];
  run(makeCall("MatMul", {&ta, &tb}, {&ty}, attrs({{"transpose_x2", true}})));
  auto got = ty.toInts();
  for (int64_t e = 0; e < m * n; ++e) ASSERT_EQ(got[e], int64_t{c[e]} - bias[e % n]) << e;
  HostTensor bad(ACL_FLOAT, {m, n});
  EXPECT_KERNEL_ERROR(makeCall("MatMul", {&ta, &tb}, {&bad}, attrs({{"transpose_x2", true}})),
                      ACL_ERROR_OP_UNSUPPORTED_DTYPE, "int32");
}

TEST(VectorUnit, CountsRepeatsOf256Bytes) {
  const VectorUnit& v = vectorUnit();
  EXPECT_EQ(v.bytes_per_repeat, 256);
  EXPECT_EQ(v.repeats(128, ACL_FLOAT16), 1);
  EXPECT_EQ(v.repeats(129, ACL_FLOAT16), 2);
  EXPECT_EQ(v.repeats(64, ACL_FLOAT), 1);
  EXPECT_EQ(v.repeats(65, ACL_FLOAT), 2);
  EXPECT_EQ(v.repeats(256, ACL_INT8), 1);
  EXPECT_EQ(v.repeats(0, ACL_FLOAT), 0);
  // The elementwise engine: fp16 Add of 3000 elements in 1024-element chunks
  // (1024, 1024, 952): per chunk one pass per operand (2 inputs + output).
  HostTensor x = HostTensor::floats(ACL_FLOAT16, {3000}, randomFloats(3000, -1, 1, 5));
  HostTensor y = HostTensor::floats(ACL_FLOAT16, {3000}, randomFloats(3000, -1, 1, 6));
  HostTensor z(ACL_FLOAT16, {3000});
  OpCall call = makeCall("Add", {&x, &y}, {&z});
  const KernelCost planned = kernel("Add").cost(call);
  const double want = 3 * (8 + 8 + 8);  // 952 fp16 = 1904 B -> 8 repeats
  EXPECT_EQ(planned.vector_repeats, want);
  EXPECT_EQ(planned.mte_bytes, 3 * 3000 * 2.0);
  EXPECT_EQ(planned.block_dim, 3u);
  EXPECT_EQ(planned.core, CoreType::kVector);
  // Executing counts exactly what the plan counted.
  const TensorArg xa = call.inputs[0], ya = call.inputs[1];
  const TensorArg* ins[2] = {&xa, &ya};
  UnitCounters executed;
  runElementwiseFloat(ins, 2, call.outputs[0], [](const float* const* in, float* out, int64_t n, const float*) {
    for (int64_t i = 0; i < n; ++i) out[i] = in[0][i] + in[1][i];
  }, nullptr, &call.ctx, &executed);
  EXPECT_EQ(executed.vector_repeats, want);
  EXPECT_EQ(executed.mte_in_bytes + executed.mte_out_bytes, planned.mte_bytes);
  auto rx = x.toFloats(), ry = y.toFloats(), rz = z.toFloats();
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(rz[i], roundTo(ACL_FLOAT16, rx[i] + ry[i]));
}

TEST(VectorUnit, Fp16SaturationAndIeee) {
  // +inf, -inf, nan, 65504, -1
  std::vector<uint16_t> v = {0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xbc00};
  std::vector<uint16_t> ieee = v;
  EXPECT_TRUE(vectorUnit().fp16_overflow(ieee.data(), 5, false));
  EXPECT_EQ(ieee, v);  // IEEE: unchanged
  EXPECT_TRUE(vectorUnit().fp16_overflow(v.data(), 5, true));
  EXPECT_EQ(v, (std::vector<uint16_t>{0x7bff, 0xfbff, 0x0000, 0x7bff, 0xbc00}));
  std::vector<uint16_t> fine = {0x7bff, 0x0001, 0x8000};
  EXPECT_FALSE(vectorUnit().fp16_overflow(fine.data(), 3, true));
}

// The packed img2col holds exactly the plain img2col's values (zero rows past
// the end), for strides, pads, dilations, several samples and a row count
// that is not a multiple of the panel height.
TEST(MteUnit, PackedImg2colEqualsPlainImg2col) {
  for (int64_t stride_w : {1, 2})
    for (int64_t dil : {1, 2}) {
      Img2colParams p;
      p.n = 2; p.c = 3; p.h = 9; p.w = 11; p.kh = 3; p.kw = 3;
      p.stride_h = 1; p.stride_w = stride_w; p.pad_top = 1; p.pad_bottom = 1; p.pad_left = 1; p.pad_right = 0;
      p.dilation_h = dil; p.dilation_w = dil;
      const int64_t rows = p.n * p.outH() * p.outW(), kd = p.c * p.kh * p.kw, mr = kCubePanelRows;
      const int64_t tiles = (rows + mr - 1) / mr;
      std::vector<float> x = randomFloats(p.n * p.c * p.h * p.w, -1, 1, 11);
      std::vector<float> plain(rows * kd), packed(tiles * mr * kd, -9.0f);
      mteUnit().img2col(p, x.data(), plain.data(), nullptr);
      UnitCounters cnt;
      mteUnit().img2col_packed(p, x.data(), 0, rows, packed.data(), &cnt);
      EXPECT_EQ(cnt.mte_in_bytes, x.size() * 4.0);
      for (int64_t r = 0; r < tiles * mr; ++r)
        for (int64_t kk = 0; kk < kd; ++kk) {
          const float want = r < rows ? plain[r * kd + kk] : 0.0f;
          ASSERT_EQ(packed[((r / mr) * kd + kk) * mr + r % mr], want) << "row " << r << " col " << kk;
        }
      // A band of rows (Note [Implicit img2col] in ops/conv/conv2d.cpp): the same panels, counted once.
      const int64_t r0 = 2 * mr, r1 = std::min(rows, 5 * mr + 1);
      std::vector<float> band(((r1 - r0 + mr - 1) / mr) * mr * kd, -9.0f);
      UnitCounters band_cnt;
      mteUnit().img2col_packed(p, x.data(), r0, r1, band.data(), &band_cnt);
      EXPECT_EQ(band_cnt.mte_in_bytes, 0.0);
      for (size_t i = 0; i < band.size(); ++i) ASSERT_EQ(band[i], packed[r0 * kd + i]) << "element " << i;
    }
}

// Note [The Cube reads a padded input]: reading A from the zero-padded input in
// place gives the bits of packing img2col and multiplying, for strides 1 and 2,
// dilation, output rows that end in partial tiles, an odd number of 16-column
// panels, K over one block, a bias, and rows split anywhere.
// Every SIMD level of the host that reads in place (AVX-512: 12 x 32 tiles, AVX2: 6 x 16, Note
// [Implicit tiles per host]) is compared with the packed product.
TEST(CubeUnit, PaddedInputEqualsPackedImg2col) {
  if (!cubeUnit().implicit_takes_stride(1)) GTEST_SKIP() << "this host packs img2col (no AVX2)";
  forEachHostIsa([](HostIsa) {
  if (!cubeUnit().implicit_takes_stride(1)) return;
  struct Geometry {
    int64_t c, h, w, k, stride, pad, dil, cout;
  };
  for (const Geometry& t : {Geometry{5, 9, 30, 3, 1, 1, 1, 40}, Geometry{32, 6, 27, 3, 2, 1, 1, 16},
                            Geometry{3, 12, 40, 7, 2, 3, 1, 64}, Geometry{4, 10, 26, 3, 1, 2, 2, 33}}) {
    Img2colParams p;
    p.n = 1, p.c = t.c, p.h = t.h, p.w = t.w, p.kh = t.k, p.kw = t.k, p.stride_h = t.stride, p.stride_w = t.stride;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = t.pad;
    p.dilation_h = p.dilation_w = t.dil;
    const int64_t ho = p.outH(), wo = p.outW(), rows = ho * wo, k = t.c * t.k * t.k, mr = kCubePanelRows;
    const int64_t hp = t.h + 2 * t.pad, wp = t.w + 2 * t.pad, panels = (t.cout + 15) / 16;
    const std::vector<float> x = randomFloats(t.c * t.h * t.w, -1, 1, 12), w = randomFloats(k * t.cout, -1, 1, 13);
    const std::vector<float> bias = randomFloats(t.cout, -1, 1, 14);
    std::vector<float> bl(static_cast<size_t>(panels * k * 16));
    cubeUnit().load_b(GmMatrix{ACL_FLOAT, w.data(), 0, t.cout, 1}, k, t.cout, CubeRounding::kNone, bl.data(), nullptr);
    std::vector<float> packed(static_cast<size_t>((rows + mr - 1) / mr * mr * k));
    mteUnit().img2col_packed(p, x.data(), 0, rows, packed.data(), nullptr);
    std::vector<float> want(static_cast<size_t>(rows * t.cout), -1.0f), got(want.size(), -2.0f);
    cubeUnit().mmad_f32(CubeOperands{packed.data(), bl.data(), rows, t.cout, k, /*a_packed=*/true}, bias.data(), 0,
                        rows, 0, panels, want.data(), nullptr);
    std::vector<float> xp(static_cast<size_t>(t.c * hp * wp + 32), 0.0f);
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t h = 0; h < t.h; ++h)
        for (int64_t j = 0; j < t.w; ++j) xp[(c * hp + h + t.pad) * wp + j + t.pad] = x[(c * t.h + h) * t.w + j];
    std::vector<int64_t> k_offset;
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t i = 0; i < t.k; ++i)
        for (int64_t j = 0; j < t.k; ++j) k_offset.push_back(c * hp * wp + i * t.dil * wp + j * t.dil);
    const CubeImplicitA a{xp.data(), k_offset.data(), wp, wo, t.stride, t.stride};
    UnitCounters cnt;
    const int64_t split = rows / 2 + 5;  // inside an output row: tiles end at the split
    cubeUnit().mmad_f32_implicit(a, bl.data(), t.cout, k, bias.data(), 0, split, 0, panels, got.data(), &cnt);
    // the rest in two panel groups
    cubeUnit().mmad_f32_implicit(a, bl.data(), t.cout, k, bias.data(), split, rows, 0, 1, got.data(), &cnt);
    cubeUnit().mmad_f32_implicit(a, bl.data(), t.cout, k, bias.data(), split, rows, 1, panels, got.data(), &cnt);
    for (int64_t i = 0; i < rows * t.cout; ++i)
      ASSERT_EQ(got[i], want[i]) << "c" << t.c << " w" << t.w << " stride " << t.stride << " at row " << i / t.cout
                                 << " col " << i % t.cout;
    EXPECT_GE(cnt.cube_macs, static_cast<double>(rows) * t.cout * k);
  }
  });
}

// A packed A operand gives the same bits as the row-major one, for any
// row split on panel boundaries.
// Note [B panels in one pass]: the packed B, for both layouts and every rounding, equals a load of
// each value rounded on its own (roundCubeOperands); padding columns are zero; fp16 overflow
// (values beyond 65504, inf, NaN) sets the flag exactly when the saturating rounding says so.
TEST(CubeUnit, PackedBEqualsEachValueRoundedAlone) {
  forEachHostIsa([](HostIsa) {  // AVX-512: 16 steps at a time; AVX2: 8; portable: rows and columns
    const int64_t k = 37, n = 45, panels = (n + 15) / 16;
    std::vector<float> values = randomFloats(k * n, -3, 3, 7);
    for (size_t i = 5; i < values.size(); i += 97) values[i] = 70000.0f * (i % 2 ? 1.0f : -1.0f);
    values[11] = INFINITY;
    values[600] = NAN;
    values[1000] = 65519.0f;  // rounds to 65504 in fp16: no overflow
    for (const bool transposed : {false, true})
      for (const CubeRounding rnd : {CubeRounding::kNone, CubeRounding::kFp16, CubeRounding::kFp16Saturate})
        for (const bool specials : {false, true}) {
          std::vector<float> src(static_cast<size_t>(k * n));
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t j = 0; j < n; ++j) {
              const float v = values[static_cast<size_t>(kk * n + j)];
              src[static_cast<size_t>(transposed ? j * k + kk : kk * n + j)] =
                  specials || std::fabs(v) < 10.0f ? v : 1.5f;
            }
          std::vector<float> want(static_cast<size_t>(panels * k * 16), 0.0f);
          bool want_overflow = false;
          for (int64_t kk = 0; kk < k; ++kk)
            for (int64_t j = 0; j < n; ++j) {
              float v = src[static_cast<size_t>(transposed ? j * k + kk : kk * n + j)];
              want_overflow = roundCubeOperands(rnd, &v, 1) || want_overflow;
              want[static_cast<size_t>(((j / 16) * k + kk) * 16 + j % 16)] = v;
            }
          std::vector<float> got(want.size(), -7.0f);
          UnitCounters cnt;
          const GmMatrix g{ACL_FLOAT, src.data(), 0, transposed ? 1 : n, transposed ? k : 1};
          cubeUnit().load_b(g, k, n, rnd, got.data(), &cnt);
          for (size_t i = 0; i < want.size(); ++i) {
            if (std::isnan(want[i])) {
              ASSERT_TRUE(std::isnan(got[i])) << i;
            } else {
              ASSERT_EQ(got[i], want[i]) << "transposed " << transposed << " rounding " << static_cast<int>(rnd)
                                         << " at " << i;
            }
          }
          EXPECT_EQ(cnt.fp16_overflow, want_overflow);
          if (specials && rnd == CubeRounding::kFp16Saturate) {
            EXPECT_TRUE(cnt.fp16_overflow);
          }
        }
  });
}

TEST(CubeUnit, PackedOperandGivesSameBits) {
  const int64_t m = 40, n = 35, k = 600, mr = kCubePanelRows, tiles = (m + mr - 1) / mr;
  HostTensor a = HostTensor::floats(ACL_FLOAT, {m, k}, randomFloats(m * k, -2, 2, 3));
  HostTensor b = HostTensor::floats(ACL_FLOAT, {k, n}, randomFloats(k * n, -2, 2, 4));
  const std::vector<float> want = cubeMatmul(ACL_FLOAT, a, b, m, n, k, 1, 1, nullptr);
  const std::vector<float> ra = a.toFloats();
  std::vector<float> packed(tiles * mr * k, 0.0f), bl((n + 15) / 16 * k * 16);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) packed[((i / mr) * k + kk) * mr + i % mr] = ra[i * k + kk];
  cubeUnit().load_b(GmMatrix{ACL_FLOAT, b.data(), 0, n, 1}, k, n, CubeRounding::kNone, bl.data(), nullptr);
  const CubeOperands op{packed.data(), bl.data(), m, n, k, /*a_packed=*/true};
  std::vector<float> got(m * n, -1.0f);
  cubeUnit().mmad_f32(op, nullptr, 0, 18, 0, 3, got.data(), nullptr);
  cubeUnit().mmad_f32(op, nullptr, 18, m, 0, 1, got.data(), nullptr);
  cubeUnit().mmad_f32(op, nullptr, 18, m, 1, 3, got.data(), nullptr);
  EXPECT_EQ(got, want);
}

TEST(MteUnit, Img2colMatchesNaiveConvolution) {
  Img2colParams p;
  p.n = 2; p.c = 3; p.h = 7; p.w = 6; p.kh = 3; p.kw = 2;
  p.stride_h = 2; p.stride_w = 1; p.pad_top = 1; p.pad_bottom = 1; p.pad_left = 0; p.pad_right = 1;
  p.dilation_h = 1; p.dilation_w = 2;
  const int64_t ho = p.outH(), wo = p.outW(), kd = p.c * p.kh * p.kw;
  EXPECT_EQ(ho, 4);
  EXPECT_EQ(wo, 5);
  std::vector<float> x = randomFloats(p.n * p.c * p.h * p.w, -1, 1, 7);
  std::vector<float> cols(p.n * ho * wo * kd, -9.0f);
  UnitCounters cnt;
  mteUnit().img2col(p, x.data(), cols.data(), &cnt);
  EXPECT_EQ(cnt.mte_in_bytes, x.size() * 4.0);
  // A convolution with a random weight: cols x W^T equals the direct sum.
  const int64_t cout = 4;
  std::vector<float> w = randomFloats(cout * kd, -1, 1, 8);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < cout; ++o)
      for (int64_t oh = 0; oh < ho; ++oh)
        for (int64_t ow = 0; ow < wo; ++ow) {
          double direct = 0, via = 0;
          for (int64_t c = 0; c < p.c; ++c)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                const int64_t ih = oh * p.stride_h - p.pad_top + i * p.dilation_h;
                const int64_t iw = ow * p.stride_w - p.pad_left + j * p.dilation_w;
                const double xv = (ih >= 0 && ih < p.h && iw >= 0 && iw < p.w)
                                      ? x[((n * p.c + c) * p.h + ih) * p.w + iw] : 0.0;
                direct += xv * w[o * kd + (c * p.kh + i) * p.kw + j];
              }
          const float* row = &cols[((n * ho + oh) * wo + ow) * kd];
          for (int64_t q = 0; q < kd; ++q) via += static_cast<double>(row[q]) * w[o * kd + q];
          ASSERT_NEAR(via, direct, 1e-12) << n << "," << o << "," << oh << "," << ow;
        }
  // Padding positions are exact zeros (first output row reads the top pad for i = 0).
  EXPECT_EQ(cols[0], 0.0f);
}

// Same MatMul / Add with 1 host thread vs all, and with different simulated core counts.
TEST(AiCoreSplit, BitIdenticalAcrossThreadCountsAndCoreCounts) {
  const int64_t m = 130, n = 70, k = 257;
  HostTensor a = HostTensor::floats(ACL_FLOAT, {3, m, k}, randomFloats(3 * m * k, -1, 1, 9));
  HostTensor b = HostTensor::floats(ACL_FLOAT, {k, n}, randomFloats(k * n, -1, 1, 10));
  auto runWith = [&](int threads, int cores) {
    setHostThreadLimitForTesting(threads);
    HostTensor y(ACL_FLOAT, {3, m, n});
    OpCall c = makeCall("BatchMatMul", {&a, &b}, {&y});
    c.ctx.cube_cores = cores;
    run(c);
    HostTensor x = HostTensor::floats(ACL_FLOAT16, {5, 999}, randomFloats(5 * 999, -3, 3, 11));
    HostTensor e(ACL_FLOAT16, {5, 999});
    OpCall ce = makeCall("Exp", {&x}, {&e});
    ce.ctx.vector_cores = cores;
    run(ce);
    auto out = y.toFloats();
    auto ex = e.toFloats();
    out.insert(out.end(), ex.begin(), ex.end());
    return out;
  };
  const auto ref = runWith(1, 32);
  EXPECT_EQ(runWith(0, 32), ref);
  EXPECT_EQ(runWith(0, 1), ref);
  EXPECT_EQ(runWith(0, 7), ref);
  EXPECT_EQ(runWith(2, 24), ref);
  setHostThreadLimitForTesting(0);
  EXPECT_GE(hostThreadCount(), 1);
  // Block dim recorded in the cost: 3 batches x 9 bands = 27 bands.
  HostTensor y(ACL_FLOAT, {3, m, n});
  OpCall c = makeCall("BatchMatMul", {&a, &b}, {&y});
  c.ctx.cube_cores = 24;
  EXPECT_EQ(kernel("BatchMatMul").cost(c).block_dim, 24u);
  c.ctx.cube_cores = 32;
  EXPECT_EQ(kernel("BatchMatMul").cost(c).block_dim, 27u);
  EXPECT_EQ(kernel("BatchMatMul").cost(c).cube_macs, 3.0 * 144 * 80 * 272);
}

TEST(ThreadPool, PropagatesTheFirstExceptionAndRunsEveryTask) {
  std::vector<int> hits(100, 0);
  EXPECT_THROW(parallelFor(100, [&](int64_t i) {
                 hits[i] = 1;
                 if (i == 42) throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, "boom");
               }),
               KernelError);
  int total = 0;
  for (int h : hits) total += h;
  EXPECT_EQ(total, 100);
}

// Note [Small launches stay on the caller]
TEST(ThreadPool, SmallWorkRunsOnTheCallerInOrder) {
  std::vector<int64_t> order;
  std::vector<std::thread::id> threads;
  parallelFor(8, kMinParallelElements - 1, [&](int64_t i) {  // unsynchronised on purpose: one thread only
    order.push_back(i);
    threads.push_back(std::this_thread::get_id());
  });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const auto& id : threads) EXPECT_EQ(id, std::this_thread::get_id());
  std::vector<int> hits(64, 0);
  parallelFor(64, kMinParallelElements, [&](int64_t i) { hits[static_cast<size_t>(i)] += 1; });
  EXPECT_EQ(hits, std::vector<int>(64, 1));
}

// Note [Callers claim from the front, helpers from the back]
TEST(ThreadPool, TheCallerRunsAPrefixOfTheTasksAndHelpersTheRest) {
  constexpr int kTasks = 64;
  std::vector<std::thread::id> ran_on(kTasks);
  std::atomic<int> runs{0};
  parallelFor(kTasks, [&](int64_t i) {
    ran_on[static_cast<size_t>(i)] = std::this_thread::get_id();
    runs.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // long enough for a helper to join
  });
  ASSERT_EQ(runs.load(), kTasks);
  const std::thread::id caller = std::this_thread::get_id();
  int prefix = 0;
  while (prefix < kTasks && ran_on[static_cast<size_t>(prefix)] == caller) ++prefix;
  EXPECT_GE(prefix, 1);
  for (int i = prefix; i < kTasks; ++i) EXPECT_NE(ran_on[static_cast<size_t>(i)], caller) << "task " << i;
  if (hostThreadCount() > 1) {
    EXPECT_LT(prefix, kTasks) << "no pool worker took part";
  }
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
