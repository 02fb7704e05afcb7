// The Vector unit (256-byte repeats, fp32 internal math, one rounding) and the
// MTE (memory transfer engine: GM <-> on-chip buffers, img2col). See Note [AI
// Core units] in aicore/units.h.
#include <cmath>
#include <cstring>

#include "aicore/units.h"
#include "common/dtype.h"

namespace ascend_sim {
namespace {

constexpr int64_t kBytesPerRepeat = 256;
constexpr uint16_t kFp16MaxBits = 0x7bff;  // 65504

double repeats(int64_t n, aclDataType dt) {
  const int64_t bytes = n * static_cast<int64_t>(dtypeSize(dt) ? dtypeSize(dt) : 4);
  return static_cast<double>((bytes + kBytesPerRepeat - 1) / kBytesPerRepeat);
}

void countPasses(int nin, int64_t n, const aclDataType* dtypes, UnitCounters* cnt) {
  if (!cnt) return;
  for (int k = 0; k <= nin; ++k) cnt->vector_repeats += repeats(n, dtypes[k]);
}

void mapF32(FloatChunkFn fn, const float* const* in, int nin, float* out, int64_t n, const float* params,
            const aclDataType* dtypes, UnitCounters* cnt) {
  if (fn && out) fn(in, out, n, params);
  countPasses(nin, n, dtypes, cnt);
}

void mapI64(IntChunkFn fn, const int64_t* const* in, int nin, int64_t* out, int64_t n, const float* params,
            const aclDataType* dtypes, UnitCounters* cnt) {
  if (fn && out) fn(in, out, n, params);
  countPasses(nin, n, dtypes, cnt);
}

// Note [fp16 overflow scan]: overflow is rare, so the scan first ORs a branch-free test over all
// elements (the compiler vectorises it; memory speed) and only walks the elements again, with
// branches, when some exponent field is all ones.
bool anyNonFinite(const uint16_t* v, int64_t n) {
  uint16_t found = 0;
  for (int64_t i = 0; i < n; ++i) found |= static_cast<uint16_t>((v[i] & 0x7c00) == 0x7c00);
  return found != 0;
}

bool fp16Overflow(uint16_t* v, int64_t n, bool saturate) {
  if (!anyNonFinite(v, n)) return false;
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = v[i];
    if ((h & 0x7c00) != 0x7c00) continue;  // finite
    any = true;
    if (!saturate) continue;
    if (h & 0x03ff)
      v[i] = 0;  // NaN -> 0 (saturation mode)
    else
      v[i] = static_cast<uint16_t>((h & 0x8000) | kFp16MaxBits);  // ±inf -> ±65504
  }
  return any;
}

double loadBytes(aclDataType dt, int64_t stride, int64_t n) {
  return static_cast<double>(stride == 0 ? 1 : n) * static_cast<double>(dtypeSize(dt));
}

void loadF32(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n, float* dst,
             UnitCounters* cnt) {
  if (base && dst) loadFloat(dt, base, offset, stride, n, dst);
  if (cnt) cnt->mte_in_bytes += loadBytes(dt, stride, n);
}

void loadI64(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n, int64_t* dst,
             UnitCounters* cnt) {
  if (base && dst) loadInt(dt, base, offset, stride, n, dst);
  if (cnt) cnt->mte_in_bytes += loadBytes(dt, stride, n);
}

void storeF32(aclDataType dt, void* base, int64_t offset, int64_t n, const float* src, UnitCounters* cnt) {
  if (base && src) storeFloat(dt, base, offset, n, src);
  if (cnt) cnt->mte_out_bytes += static_cast<double>(n) * static_cast<double>(dtypeSize(dt));
}

void storeI64(aclDataType dt, void* base, int64_t offset, int64_t n, const int64_t* src, UnitCounters* cnt) {
  if (base && src) storeInt(dt, base, offset, n, src);
  if (cnt) cnt->mte_out_bytes += static_cast<double>(n) * static_cast<double>(dtypeSize(dt));
}

void img2col(const Img2colParams& p, const float* x, float* cols, UnitCounters* cnt) {
  const int64_t ho = p.outH(), wo = p.outW();
  const int64_t kdim = p.c * p.kh * p.kw;
  if (x && cols) {
    for (int64_t n = 0; n < p.n; ++n)
      for (int64_t oh = 0; oh < ho; ++oh)
        for (int64_t ow = 0; ow < wo; ++ow) {
          float* row = cols + ((n * ho + oh) * wo + ow) * kdim;
          for (int64_t c = 0; c < p.c; ++c)
            for (int64_t i = 0; i < p.kh; ++i) {
              const int64_t ih = oh * p.stride_h - p.pad_top + i * p.dilation_h;
              for (int64_t j = 0; j < p.kw; ++j) {
                const int64_t iw = ow * p.stride_w - p.pad_left + j * p.dilation_w;
                const bool inside = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
                row[(c * p.kh + i) * p.kw + j] = inside ? x[((n * p.c + c) * p.h + ih) * p.w + iw] : 0.0f;
              }
            }
        }
  }
  if (cnt) {
    cnt->mte_in_bytes += static_cast<double>(p.n * p.c * p.h * p.w) * sizeof(float);
  }
}

// img2col into packed Cube A micro panels (Note [Cube GEMM blocking]): for
// each panel of 6 output positions and each column (c, i, j), the 6 values are
// consecutive. When the 6 positions lie on one output row and the taps are
// inside the input, they are 6 input elements stride_w apart (no bounds checks).
void img2colPacked(const Img2colParams& p, const float* x, int64_t row0, int64_t row1, float* cols,
                   UnitCounters* cnt) {
  constexpr int64_t mr = kCubePanelRows;
  const int64_t ho = p.outH(), wo = p.outW(), rows = p.n * ho * wo;
  const int64_t kdim = p.c * p.kh * p.kw, t0 = row0 / mr, t1 = (std::min(row1, rows) + mr - 1) / mr;
  if (x && cols) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t ih0[mr], iw0[mr], nn[mr];
      bool valid[mr];
      for (int64_t rr = 0; rr < mr; ++rr) {
        const int64_t r = t * mr + rr;
        valid[rr] = r < rows;
        const int64_t rc = valid[rr] ? r : 0;
        nn[rr] = rc / (ho * wo);
        ih0[rr] = (rc / wo) % ho * p.stride_h - p.pad_top;
        iw0[rr] = rc % wo * p.stride_w - p.pad_left;
      }
      // One output row, all rows valid: the 6 taps are input elements stride_w apart.
      const bool run = valid[mr - 1] && nn[0] == nn[mr - 1] && ih0[0] == ih0[mr - 1];
      const int64_t sw = p.stride_w;
      float* dst = cols + (t - t0) * kdim * mr;
      for (int64_t c = 0; c < p.c; ++c)
        for (int64_t i = 0; i < p.kh; ++i)
          for (int64_t j = 0; j < p.kw; ++j, dst += mr) {
            if (run) {
              const int64_t ih = ih0[0] + i * p.dilation_h, iw = iw0[0] + j * p.dilation_w;
              if (ih >= 0 && ih < p.h && iw >= 0 && iw + (mr - 1) * sw < p.w) {
                const float* src = x + ((nn[0] * p.c + c) * p.h + ih) * p.w + iw;
                for (int64_t rr = 0; rr < mr; ++rr) dst[rr] = src[rr * sw];
                continue;
              }
            }
            for (int64_t rr = 0; rr < mr; ++rr) {
              const int64_t ih = ih0[rr] + i * p.dilation_h, iw = iw0[rr] + j * p.dilation_w;
              const bool inside = valid[rr] && ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
              dst[rr] = inside ? x[((nn[rr] * p.c + c) * p.h + ih) * p.w + iw] : 0.0f;
            }
          }
    }
  }
  if (cnt && row0 == 0) cnt->mte_in_bytes += static_cast<double>(p.n * p.c * p.h * p.w) * sizeof(float);
}

}  // namespace

const VectorUnit& vectorUnit() {
  static const VectorUnit unit{"Vector", kBytesPerRepeat, &repeats, &mapF32, &mapI64, &fp16Overflow};
  return unit;
}

const MteUnit& mteUnit() {
  static const MteUnit unit{"MTE", &loadF32, &loadI64, &storeF32, &storeI64, &img2col, &img2colPacked};
  return unit;
}

}  // namespace ascend_sim
