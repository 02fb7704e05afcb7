// The units of one simulated AI Core (numerics: docs/simulated_device.md;
// timing: Note [Op cost] in cost/cost_model.h), as small interfaces in the
// style of a ggml backend: a struct of function pointers,
// one implementation each, obtained from cubeUnit() / vectorUnit() / mteUnit().
//
// Note [AI Core units]
// Kernels do their math and data movement through these units instead of ad
// hoc loops, so that (a) the numerics contract lives in one place (Cube:
// ascending-K fp32 accumulation; Vector: fp32 math, one rounding; fp16
// saturation), and (b) every unit reports the work it did into a
// UnitCounters, which is what the cost model turns into time. A member given
// null data pointers only *accounts* the work (counts repeats / bytes without
// touching memory); the "compiler" (runtime/compile_cache.h) uses that to
// derive a kernel's cost from the same code path that executes it.
// Counters are plain doubles; each simulated-core task owns its own
// UnitCounters and the kernel sums them in task order (deterministic).
#pragma once

#include <cstdint>

#include "ascend_sim/acl.h"

namespace ascend_sim {

// Work done by the units during (or planned for) one kernel execution.
struct UnitCounters {
  double cube_macs = 0;       // MACs issued on the Cube, padded to 16x16x16 fractals
  double cube_fractals = 0;   // 16x16 output fractals produced by the Cube
  double vector_repeats = 0;  // 256-byte Vector repeats
  double mte_in_bytes = 0;    // bytes moved GM (HBM) -> on-chip buffers (L1/UB)
  double mte_out_bytes = 0;   // bytes moved on-chip buffers -> GM
  bool fp16_overflow = false; // an fp16 value saturated (saturation mode) or overflowed
  void add(const UnitCounters& o) {
    cube_macs += o.cube_macs;
    cube_fractals += o.cube_fractals;
    vector_repeats += o.vector_repeats;
    mte_in_bytes += o.mte_in_bytes;
    mte_out_bytes += o.mte_out_bytes;
    fp16_overflow = fp16_overflow || o.fp16_overflow;
  }
};

// How the Cube sees fp32 operands (precision mode, docs/simulated_device.md).
enum class CubeRounding {
  kNone,          // operands used as they are (fp16/bf16 exact in fp32; fp32 kept)
  kFp16,          // operands rounded to fp16 first (RNE, IEEE: overflow -> inf)
  kFp16Saturate,  // rounded to fp16 with saturation: |x| > 65504 -> ±65504, NaN -> 0
};

// The precision mode's rounding of fp32 Cube operands v[0..n) in place (a
// no-op for kNone). Returns true if a value saturated (kFp16Saturate only):
// the device's fp16 overflow condition.
ASCEND_SIM_API bool roundCubeOperands(CubeRounding rnd, float* v, int64_t n);

// A matrix operand in GM: element (r, c) is at base[offset + r * rs + c * cs].
struct GmMatrix {
  aclDataType dtype;
  const void* base;
  int64_t offset, rs, cs;
};

// Rows per micro panel of a packed A operand (CubeOperands::a_packed).
constexpr int64_t kCubePanelRows = 6;

// Fp32 Cube operands after the MTE loaded them into L0A / L0B.
//   a: row-major [m][k], or with a_packed micro panels of kCubePanelRows rows
//      over the whole K: element (i, kk) at a[((i / 6) * k + kk) * 6 + i % 6],
//      rows past m zero (the MTE writes convolution operands this way, so the
//      Cube reads them without repacking);
//   b: column panels [ceil(n/16)][k][16], zero padded.
struct CubeOperands {
  const float* a;
  const float* b;
  int64_t m, n, k;
  bool a_packed = false;
};

// Note [The Cube reads a padded input]
// A convolution's A operand read in place (the Cube's load3d), without
// packing: A[r][kk] = x[row(r) + k_offset[kk]], where x is one (group,
// sample) of the input zero-padded to [c][hp][wp] (or several samples, one
// after the other). Conv2D and Conv2DBackpropInput read rows that are output
// positions: row(r) = (r / wo) * sh * wp + (r % wo) * sw, and k_offset[kk] =
// c * hp * wp + i * dh * wp + j * dw for kk = (c * kh + i) * kw + j.
// Conv2DBackpropFilter reads the transposed matrix, rows from a table
// (row_offset: the taps (c, i, j)) and k_offset the output positions (n, ho,
// wo) (Note [Filter gradient from the padded input] in ops/conv/conv2d.cpp). The
// values are img2col's, padding zeros included, so products and bits are too.
// Without a row table x must stay readable for 11 * sw floats past its last
// element (tiles that end early read, and discard, whole tiles).
struct CubeImplicitA {
  const float* x;
  const int64_t* k_offset;
  int64_t wp, wo, sh, sw;
  const int64_t* row_offset = nullptr;  // if set, row(r) = row_offset[r] (wp, wo, sh, sw unused)
};

struct CubeUnit {
  const char* name;                 // "Cube"
  int64_t m0, k0, n0;               // fractal shape: 16 x 16 x 16
  // MACs the Cube issues for an [m,k] x [k,n] product: each dim padded to 16.
  double (*padded_macs)(int64_t m, int64_t n, int64_t k);
  // 16x16 output fractals of an [m,n] result.
  double (*fractals)(int64_t m, int64_t n);
  // MTE GM -> L0A: a row-major fp32 copy [m][k] of `a` (rounded per `rnd`).
  void (*load_a)(const GmMatrix& a, int64_t m, int64_t k, CubeRounding rnd, float* dst, UnitCounters* cnt);
  // MTE GM -> L0B: fp32 column panels [ceil(n/16)][k][16] of `b`, zero padded.
  void (*load_b)(const GmMatrix& b, int64_t k, int64_t n, CubeRounding rnd, float* dst, UnitCounters* cnt);
  // Matrix multiply-accumulate of rows [r0, r1) x panels [p0, p1) into the
  // row-major fp32 result c[m][n] (+ bias[n] if non-null, added last). One
  // fp32 accumulator per element adds a[i][k] * b[k][j] for k = 0..K-1 in
  // ascending order with FMA; the result does not depend on the region split.
  // With op.a_packed, r0 must be a multiple of kCubePanelRows.
  void (*mmad_f32)(const CubeOperands& op, const float* bias, int64_t r0, int64_t r1, int64_t p0, int64_t p1,
                   float* c, UnitCounters* cnt);
  // mmad_f32 with A as in Note [The Cube reads a padded input]: rows [r0, r1)
  // x panels [p0, p1) of c[rows][n] (+ bias, last), b as in CubeOperands. Only
  // on hosts (and, for output-position rows, width strides) that
  // implicit_takes_stride accepts.
  void (*mmad_f32_implicit)(const CubeImplicitA& a, const float* b, int64_t n, int64_t k, const float* bias,
                            int64_t r0, int64_t r1, int64_t p0, int64_t p1, float* c, UnitCounters* cnt);
  // Whether this host runs mmad_f32_implicit with width stride sw (AVX2 or
  // AVX-512 hosts, sw 1 or 2; elsewhere convolutions pack A and call mmad_f32).
  bool (*implicit_takes_stride)(int64_t sw);
  // int8 x int8 -> int32 for rows [r0, r1), columns [c0, c1): a [m][k] and b
  // [k][n] row-major int8, exact int32 accumulation (wrapping), bias (int32) last.
  void (*mmad_s8)(const int8_t* a, const int8_t* b, const int32_t* bias, int64_t m, int64_t n, int64_t k,
                  int64_t r0, int64_t r1, int64_t c0, int64_t c1, int32_t* c, UnitCounters* cnt);
};

// Chunk functions of the Vector unit: in[k] points at n values of input k.
using FloatChunkFn = void (*)(const float* const* in, float* out, int64_t n, const float* params);
using IntChunkFn = void (*)(const int64_t* const* in, int64_t* out, int64_t n, const float* params);

struct VectorUnit {
  const char* name;                 // "Vector"
  int64_t bytes_per_repeat;         // 256: one repeat = 128 fp16 / 64 fp32 lanes
  // Repeats to stream n elements of dtype dt through the lanes: ceil(n * size / 256).
  double (*repeats)(int64_t n, aclDataType dt);
  // out = fn(in...) over n elements in fp32 (the math); counts one pass per
  // operand at its storage dtype (dtypes[0..nin) inputs, dtypes[nin] output).
  // fn == nullptr or out == nullptr: account only.
  void (*map_f32)(FloatChunkFn fn, const float* const* in, int nin, float* out, int64_t n, const float* params,
                  const aclDataType* dtypes, UnitCounters* cnt);
  // Same over int64 scratch (integer / bool math, wrapping).
  void (*map_i64)(IntChunkFn fn, const int64_t* const* in, int nin, int64_t* out, int64_t n, const float* params,
                  const aclDataType* dtypes, UnitCounters* cnt);
  // fp16 overflow semantics on n fp16 values in place: with `saturate`
  // (910A), ±inf -> ±65504 and NaN -> 0; returns true if any value was inf or
  // NaN (the device's overflow condition) — in IEEE mode values are kept.
  bool (*fp16_overflow)(uint16_t* v, int64_t n, bool saturate);
};

// Parameters of img2col (the Cube's A operand of a convolution, NCHW input).
struct Img2colParams {
  int64_t n, c, h, w;             // input
  int64_t kh, kw;                 // kernel
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  // The first out_h x out_w windows only, when set (>= 0): a cropped output
  // (Note [Cropped convolution outputs] in ops/conv/conv2d.cpp).
  int64_t out_h = -1, out_w = -1;
  int64_t outH() const {
    return out_h >= 0 ? out_h : (h + pad_top + pad_bottom - dilation_h * (kh - 1) - 1) / stride_h + 1;
  }
  int64_t outW() const {
    return out_w >= 0 ? out_w : (w + pad_left + pad_right - dilation_w * (kw - 1) - 1) / stride_w + 1;
  }
};

struct MteUnit {
  const char* name;                 // "MTE"
  // GM -> UB: n elements base[offset + i * stride] of dtype dt into fp32
  // dst. Counts n * size bytes (a broadcast, stride 0, counts one element).
  // base == nullptr: account only.
  void (*load_f32)(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n, float* dst,
                   UnitCounters* cnt);
  // GM -> UB into int64 scratch (integers / bool).
  void (*load_i64)(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n, int64_t* dst,
                   UnitCounters* cnt);
  // UB -> GM: n contiguous fp32 values, rounded once (RNE) to dt.
  void (*store_f32)(aclDataType dt, void* base, int64_t offset, int64_t n, const float* src, UnitCounters* cnt);
  // UB -> GM from int64 scratch, wrapping to dt.
  void (*store_i64)(aclDataType dt, void* base, int64_t offset, int64_t n, const int64_t* src, UnitCounters* cnt);
  // img2col of an NCHW fp32 input x into cols [N*Ho*Wo][C*kh*kw] (row
  // (n, ho, wo), column (c, i, j)), zeros for padding. Counts the input bytes
  // read from GM (the column matrix stays on chip, in L1). x/cols null: account only.
  void (*img2col)(const Img2colParams& p, const float* x, float* cols, UnitCounters* cnt);
  // Rows [row0, row1) of the same matrix (row0 a multiple of 6) written as a
  // packed Cube A operand (CubeOperands::a_packed): ceil((row1 - row0) / 6)
  // micro panels [C*kh*kw][6], rows past the matrix's end zero. Counts the
  // input bytes once, on the call with row0 = 0.
  void (*img2col_packed)(const Img2colParams& p, const float* x, int64_t row0, int64_t row1, float* cols,
                         UnitCounters* cnt);
};

ASCEND_SIM_API const CubeUnit& cubeUnit();
ASCEND_SIM_API const VectorUnit& vectorUnit();
ASCEND_SIM_API const MteUnit& mteUnit();

}  // namespace ascend_sim
