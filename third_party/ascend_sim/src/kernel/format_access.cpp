// StorageMap construction and logical load/store (see format_access.h).
#include "kernel/format_access.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "aicore/thread_pool.h"

#include "common/dtype.h"
#include "common/transpose16.h"

namespace ascend_sim {

bool makeStorageMap(aclFormat f, aclDataType dt, const Shape& logical, StorageMap* out, std::string* err) {
  StorageMap m;
  if (!formatStorageShape(f, dt, logical, &m.storage, err)) return false;
  const FormatInfo& fi = *findFormat(f);
  m.format = f;
  m.dtype = dt;
  m.logical = logical;
  const size_t r = logical.size();
  // Canonical shape and where logical dim d sits in it (lifting: [C,...] -> [1,C,...,1]).
  const bool lifted = fi.lift_rank != 0 && r < static_cast<size_t>(fi.lift_rank);
  const size_t cr = lifted ? static_cast<size_t>(fi.lift_rank) : r;
  const size_t shift = lifted ? 1 : 0;
  Shape canon(cr, 1);
  for (size_t d = 0; d < r; ++d) canon[d + shift] = logical[d];
  const int64_t c0 = formatC0(f, dt);
  std::vector<int64_t> idx(cr, 0);
  m.dim_offsets.resize(r);
  for (size_t d = 0; d < r; ++d) {
    std::vector<int64_t>& tab = m.dim_offsets[d];
    tab.resize(static_cast<size_t>(logical[d]));
    for (int64_t i = 0; i < logical[d]; ++i) {
      idx[d + shift] = i;
      tab[static_cast<size_t>(i)] = fi.offset(idx.data(), canon, c0);
    }
    idx[d + shift] = 0;
  }
  *out = std::move(m);
  return true;
}

StorageMap storageMapOf(const OpCall& call, const TensorArg& t, const std::string& who) {
  const Shape logical = logicalShape(t.origin_format, t.origin_shape);
  StorageMap m;
  std::string err;
  if (!makeStorageMap(t.format, t.dtype, logical, &m, &err))
    throw KernelError(ACL_ERROR_OP_INPUT_NOT_MATCH, call.op_type + ": " + who + ": " + err);
  if (m.storage != t.shape)
    throw KernelError(ACL_ERROR_OP_INPUT_NOT_MATCH,
                      call.op_type + ": " + who + " in format " + formatToString(t.format) + " with origin shape " +
                          shapeToString(t.origin_shape) + " must have storage shape " + shapeToString(m.storage) +
                          ", but its descriptor has " + shapeToString(t.shape));
  return m;
}

namespace {

// Gathers/scatters one row of elements of `size` bytes between storage and a
// packed buffer. Typed copies per element size: a memcpy call per element
// (size known only at run time) cost more than the data movement.
template <typename E>
void gatherRowT(const void* src, int64_t base, const int64_t* inner, int64_t len, void* dst) {
  const E* s = static_cast<const E*>(src) + base;
  E* d = static_cast<E*>(dst);
  for (int64_t i = 0; i < len; ++i) d[i] = s[inner[i]];
}
template <typename E>
void scatterRowT(const void* src, void* dst, int64_t base, const int64_t* inner, int64_t len) {
  const E* s = static_cast<const E*>(src);
  E* d = static_cast<E*>(dst) + base;
  for (int64_t i = 0; i < len; ++i) d[inner[i]] = s[i];
}
void gatherRow(const void* src, int64_t base, const int64_t* inner, int64_t len, size_t size, void* dst) {
  switch (size) {
    case 1: return gatherRowT<uint8_t>(src, base, inner, len, dst);
    case 2: return gatherRowT<uint16_t>(src, base, inner, len, dst);
    case 4: return gatherRowT<uint32_t>(src, base, inner, len, dst);
    default: return gatherRowT<uint64_t>(src, base, inner, len, dst);
  }
}
void scatterRow(const void* src, void* dst, int64_t base, const int64_t* inner, int64_t len, size_t size) {
  switch (size) {
    case 1: return scatterRowT<uint8_t>(src, dst, base, inner, len);
    case 2: return scatterRowT<uint16_t>(src, dst, base, inner, len);
    case 4: return scatterRowT<uint32_t>(src, dst, base, inner, len);
    default: return scatterRowT<uint64_t>(src, dst, base, inner, len);
  }
}

// Note [Parallel logical walks]
// Gathering a private-format tensor into logical order (and scattering back)
// is pure data movement with disjoint destinations per row, so the rows are
// split over the host threads (aicore/thread_pool.h) in contiguous ranges.
// Which thread moves a row does not change any value.
// fn(first, base, len, inner) as forEachLogicalRow with one map.
template <typename Fn>
void forEachRowParallel(const StorageMap& m, Fn&& fn) {
  const Shape& logical = m.logical;
  const size_t r = logical.size();
  const int64_t numel = numelOf(logical);
  constexpr int64_t kMinParallel = 1 << 15;  // elements; below this one thread is faster
  if (r < 2 || numel < kMinParallel) {
    forEachLogicalRow(logical, {&m}, fn);
    return;
  }
  const int64_t len = logical[r - 1], rows = numel / len;
  const int64_t tasks = std::min<int64_t>(rows, 64);
  const int64_t* inner = m.dim_offsets[r - 1].data();
  parallelFor(tasks, [&](int64_t t) {
    for (int64_t row = t * rows / tasks, end = (t + 1) * rows / tasks; row < end; ++row) {
      int64_t base = 0;
      for (int64_t d = static_cast<int64_t>(r) - 2, rem = row; d >= 0; --d) {
        base += m.dim_offsets[static_cast<size_t>(d)][static_cast<size_t>(rem % logical[static_cast<size_t>(d)])];
        rem /= logical[static_cast<size_t>(d)];
      }
      fn(row * len, &base, len, &inner);
    }
  });
}

// A dtype that needs no conversion (fp32 into float) moves straight between
// the storage and the logical buffer, without the per-row staging buffer.
template <typename T>
bool movesAsIs(aclDataType dt) {
  return std::is_same<T, float>::value && dt == ACL_FLOAT;
}

template <typename T, typename Load>
void loadLogical(const TensorArg& t, const StorageMap& m, T* dst, Load load) {
  const size_t size = dtypeSize(t.dtype);
  if (movesAsIs<T>(t.dtype)) return gatherLogical(t, m, dst);
  forEachRowParallel(m, [&](int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner) {
    static thread_local std::vector<char> row;
    row.resize(static_cast<size_t>(len) * size);
    gatherRow(t.data, base[0], inner[0], len, size, row.data());
    load(t.dtype, row.data(), int64_t{0}, int64_t{1}, len, dst + first);
  });
}

template <typename T, typename Store>
void storeLogical(const TensorArg& t, const StorageMap& m, const T* src, Store store) {
  if (movesAsIs<T>(t.dtype)) return scatterLogical(t, m, src);
  const size_t size = dtypeSize(t.dtype);
  if (m.hasPads()) std::memset(t.data, 0, static_cast<size_t>(m.storageNumel()) * size);
  forEachRowParallel(m, [&](int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner) {
    static thread_local std::vector<char> row;
    row.resize(static_cast<size_t>(len) * size);
    store(t.dtype, row.data(), int64_t{0}, len, src + first);
    scatterRow(row.data(), t.data, base[0], inner[0], len, size);
  });
}

// Note [NC1HWC0 rows by transposes]
// A 4-byte NC1HWC0 tensor of logical shape [N, C, H, W] moves one (n, c1, h)
// block at a time: 16 positions x 16 channels of the storage are transposed
// in registers into 16 channel rows of 16 positions (and back) — one 16 x 16
// transpose on AVX-512 hosts, four 8 x 8 ones with AVX2. The walk of element
// offsets does one 4-byte access per element at a 64-byte stride. On the way
// back the padding channels of the last C1 block are written as zeros, so the
// storage needs no memset first. Only the order of the moves differs from the
// element walk.
struct Nc1hwc0 {
  int64_t n, c, h, w, c1;
};

bool nc1hwc0Of(const StorageMap& m, size_t size, Nc1hwc0* out) {
  if (m.format != ACL_FORMAT_NC1HWC0 || size != 4 || m.logical.size() != 4 || m.storage.size() != 5 ||
      m.storage[4] != 16 || !simd::hostHasAvx2())
    return false;
  const Nc1hwc0 g{m.logical[0], m.logical[1], m.logical[2], m.logical[3], m.storage[1]};
  if (g.n * g.c * g.h * g.w == 0 || m.storage[0] != g.n || g.c1 != (g.c + 15) / 16 || m.storage[2] != g.h ||
      m.storage[3] != g.w)
    return false;
  // The offsets the walk would use: n, c1 and h blocks of W x 16, then w * 16 + c0.
  const auto& o = m.dim_offsets;
  const bool as_expected = o[0][1 % g.n] == (1 % g.n) * g.c1 * g.h * g.w * 16 &&
                           o[1][g.c - 1] == (g.c - 1) / 16 * g.h * g.w * 16 + (g.c - 1) % 16 &&
                           o[2][g.h - 1] == (g.h - 1) * g.w * 16 && o[3][g.w - 1] == (g.w - 1) * 16;
  if (!as_expected) return false;
  *out = g;
  return true;
}

#ifdef ASCEND_SIM_HAVE_AVX512_PATH
// nc1hwc0BlockPlanes on an AVX-512 host.
__attribute__((target("avx512f"))) void blockPlanesAvx512(float* block, int64_t count, int64_t channels,
                                                         float* planes, int64_t plane_stride, bool to_planes) {
  for (int64_t p0 = 0; p0 < count; p0 += 16) {
    const int64_t width = std::min<int64_t>(16, count - p0);
    const __mmask16 positions = static_cast<__mmask16>((1u << width) - 1u);
    __m512 v[16];
    if (to_planes) {
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i) v[i] = i < width ? _mm512_loadu_ps(block + (p0 + i) * 16) : _mm512_setzero_ps();
      simd::transpose16x16(v);
      for (int64_t c0 = 0; c0 < channels; ++c0) _mm512_mask_storeu_ps(planes + c0 * plane_stride + p0, positions, v[c0]);
    } else {
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        v[i] = i < channels ? _mm512_maskz_loadu_ps(positions, planes + i * plane_stride + p0) : _mm512_setzero_ps();
      simd::transpose16x16(v);
      for (int64_t i = 0; i < width; ++i) _mm512_storeu_ps(block + (p0 + i) * 16, v[i]);
    }
  }
}

// nc1hwc0BlockPlanes with AVX2: 8 positions at a time, channels 0-7 and 8-15 as two 8 x 8 transposes.
__attribute__((target("avx2"))) void blockPlanesAvx2(float* block, int64_t count, int64_t channels, float* planes,
                                                     int64_t plane_stride, bool to_planes) {
  alignas(32) static const int32_t kLanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t p0 = 0; p0 < count; p0 += 8) {
    const int64_t width = std::min<int64_t>(8, count - p0);
    const __m256i positions = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanes + 8 - width));
    for (int64_t half = 0; half < 2; ++half) {
      const int64_t c_lo = half * 8, c_n = std::min<int64_t>(8, channels - c_lo);
      __m256 v[8];
      if (to_planes) {
        if (c_n <= 0) break;
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) v[i] = i < width ? _mm256_loadu_ps(block + (p0 + i) * 16 + c_lo) : _mm256_setzero_ps();
        simd::transpose8x8(v);
        for (int64_t c = 0; c < c_n; ++c) {
          float* dst = planes + (c_lo + c) * plane_stride + p0;
          if (width == 8) {
            _mm256_storeu_ps(dst, v[c]);
          } else {
            _mm256_maskstore_ps(dst, positions, v[c]);
          }
        }
      } else {
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) {
          const float* src = planes + (c_lo + i) * plane_stride + p0;
          v[i] = i >= c_n ? _mm256_setzero_ps() : width == 8 ? _mm256_loadu_ps(src) : _mm256_maskload_ps(src, positions);
        }
        simd::transpose8x8(v);
        for (int64_t i = 0; i < width; ++i) _mm256_storeu_ps(block + (p0 + i) * 16 + c_lo, v[i]);
      }
    }
  }
}

void blockPlanes(float* block, int64_t count, int64_t channels, float* planes, int64_t plane_stride,
                 bool to_planes) {
  if (simd::hostHasAvx512f()) {
    blockPlanesAvx512(block, count, channels, planes, plane_stride, to_planes);
  } else {
    blockPlanesAvx2(block, count, channels, planes, plane_stride, to_planes);
  }
}

// The blocks (n, c1, h) of [first, last): storage <-> logical. to_logical: gather, else scatter.
void moveNc1hwc0Blocks(const Nc1hwc0& g, float* storage, float* logical, int64_t first, int64_t last,
                       bool to_logical) {
  for (int64_t blk = first; blk < last; ++blk) {
    const int64_t h = blk % g.h, c1 = blk / g.h % g.c1, n = blk / g.h / g.c1;
    const int64_t channels = std::min<int64_t>(16, g.c - c1 * 16);
    float* row0 = logical + ((n * g.c + c1 * 16) * g.h + h) * g.w;  // channel c1 * 16 at (n, h)
    blockPlanes(storage + blk * g.w * 16, g.w, channels, row0, g.h * g.w, to_logical);
  }
}
#endif

// Note [NC1HWC0 rows by transposes]; false if the tensor does not qualify.
bool moveNc1hwc0(const TensorArg& t, const StorageMap& m, void* logical, bool to_logical) {
  Nc1hwc0 g;
  if (!nc1hwc0Of(m, dtypeSize(t.dtype), &g)) return false;
#ifdef ASCEND_SIM_HAVE_AVX512_PATH
  const int64_t blocks = g.n * g.c1 * g.h, tasks = std::min<int64_t>(blocks, 64);
  parallelFor(tasks, m.logicalNumel(), [&](int64_t task) {
    moveNc1hwc0Blocks(g, static_cast<float*>(t.data), static_cast<float*>(logical), task * blocks / tasks,
                      (task + 1) * blocks / tasks, to_logical);
  });
  return true;
#else
  return false;
#endif
}

// Note [FRACTAL_Z filters by channel blocks]
// A 4-byte FRACTAL_Z filter of logical shape [Cout, Cin, KH, KW] moves one
// (output channel, block of 16 input channels) at a time: in NCHW those are
// 16 * KH * KW contiguous elements; in storage they are the output channel's
// rows of 16 input channels in the KH * KW fractal rows of that channel block.
// The element walk instead runs rows of KW (3) elements through its offset
// tables. Output channels are split over the host threads. A scatter into a
// storage with pads clears it first, as the walk does.
struct FractalZ {
  int64_t cout, cin, khw, c1, n1;
};

bool fractalZOf(const StorageMap& m, size_t size, FractalZ* out) {
  if (m.format != ACL_FORMAT_FRACTAL_Z || size != 4 || m.logical.size() != 4 || m.storage.size() != 4) return false;
  const FractalZ g{m.logical[0], m.logical[1], m.logical[2] * m.logical[3], (m.logical[1] + 15) / 16,
                   (m.logical[0] + 15) / 16};
  if (g.cout * g.cin * g.khw == 0 || m.storage != Shape{g.c1 * g.khw, g.n1, 16, 16}) return false;
  // The offsets the walk would use (format_registry.cpp's fractalZOffset).
  const auto& o = m.dim_offsets;
  const int64_t kw = m.logical[3];
  const bool as_expected = o[0][g.cout - 1] == (g.cout - 1) / 16 * 256 + (g.cout - 1) % 16 * 16 &&
                           o[1][g.cin - 1] == (g.cin - 1) / 16 * g.khw * g.n1 * 256 + (g.cin - 1) % 16 &&
                           o[2][m.logical[2] - 1] == (m.logical[2] - 1) * kw * g.n1 * 256 &&
                           o[3][kw - 1] == (kw - 1) * g.n1 * 256;
  if (!as_expected) return false;
  *out = g;
  return true;
}

// Note [FRACTAL_Z filters by channel blocks]; false if the tensor does not qualify.
bool moveFractalZ(const TensorArg& t, const StorageMap& m, void* logical, bool to_logical) {
  FractalZ g;
  if (!fractalZOf(m, dtypeSize(t.dtype), &g)) return false;
  auto* storage = static_cast<uint32_t*>(t.data);
  auto* dense = static_cast<uint32_t*>(logical);
  if (!to_logical && m.hasPads()) std::memset(t.data, 0, static_cast<size_t>(m.storageNumel()) * 4);
  const int64_t tasks = std::min<int64_t>(g.cout, 64);
  parallelFor(tasks, m.logicalNumel(), [&](int64_t task) {
    for (int64_t co = task * g.cout / tasks; co < (task + 1) * g.cout / tasks; ++co) {
      for (int64_t c1 = 0; c1 < g.c1; ++c1) {
        const int64_t channels = std::min<int64_t>(16, g.cin - c1 * 16);
        uint32_t* run = dense + (co * g.cin + c1 * 16) * g.khw;  // [channels][khw] in NCHW
        uint32_t* rows = storage + (c1 * g.khw * g.n1 + co / 16) * 256 + co % 16 * 16;  // row r at r * n1 * 256
        const int64_t row_stride = g.n1 * 256;
        for (int64_t r = 0; r < g.khw; ++r)
          for (int64_t c = 0; c < channels; ++c) {
            if (to_logical)
              run[c * g.khw + r] = rows[r * row_stride + c];
            else
              rows[r * row_stride + c] = run[c * g.khw + r];
          }
      }
    }
  });
  return true;
}

}  // namespace

void gatherLogical(const TensorArg& t, const StorageMap& m, void* dst) {
  if (moveNc1hwc0(t, m, dst, true) || moveFractalZ(t, m, dst, true)) return;
  const size_t size = dtypeSize(t.dtype);
  char* d = static_cast<char*>(dst);
  forEachRowParallel(m, [&](int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner) {
    gatherRow(t.data, base[0], inner[0], len, size, d + static_cast<size_t>(first) * size);
  });
}

void scatterLogical(const TensorArg& t, const StorageMap& m, const void* src) {
  if (moveNc1hwc0(t, m, const_cast<void*>(src), false) || moveFractalZ(t, m, const_cast<void*>(src), false)) return;
  const size_t size = dtypeSize(t.dtype);
  if (m.hasPads()) std::memset(t.data, 0, static_cast<size_t>(m.storageNumel()) * size);
  const char* s = static_cast<const char*>(src);
  forEachRowParallel(m, [&](int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner) {
    scatterRow(s + static_cast<size_t>(first) * size, t.data, base[0], inner[0], len, size);
  });
}

namespace {
template <typename T>
void clearUnused(void* data, const uint8_t* used, int64_t n) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i] = used[i] ? p[i] : T(0);
}
}  // namespace

std::vector<uint8_t> logicalMask(const StorageMap& m) {
  std::vector<uint8_t> used(static_cast<size_t>(m.storageNumel()), 0);
  forEachLogicalRow(m.logical, {&m}, [&](int64_t, const int64_t* base, int64_t len, const int64_t* const* inner) {
    uint8_t* u = used.data() + base[0];
    const int64_t* in = inner[0];
    for (int64_t i = 0; i < len; ++i) u[in[i]] = 1;
  });
  return used;
}

void zeroPads(const TensorArg& t, const StorageMap& m) {
  if (!m.hasPads() || t.data == nullptr) return;
  const int64_t sn = m.storageNumel();
  const std::vector<uint8_t> used = logicalMask(m);
  switch (dtypeSize(t.dtype)) {
    case 1: clearUnused<uint8_t>(t.data, used.data(), sn); break;
    case 2: clearUnused<uint16_t>(t.data, used.data(), sn); break;
    case 4: clearUnused<uint32_t>(t.data, used.data(), sn); break;
    default: clearUnused<uint64_t>(t.data, used.data(), sn); break;
  }
}

void loadLogicalFloat(const TensorArg& t, const StorageMap& m, float* dst) { loadLogical(t, m, dst, &loadFloat); }
void loadLogicalInt(const TensorArg& t, const StorageMap& m, int64_t* dst) { loadLogical(t, m, dst, &loadInt); }
void storeLogicalFloat(const TensorArg& t, const StorageMap& m, const float* src) {
  storeLogical(t, m, src, &storeFloat);
}
void storeLogicalInt(const TensorArg& t, const StorageMap& m, const int64_t* src) {
  storeLogical(t, m, src, &storeInt);
}

bool isNc1hwc0Of16(const TensorArg& t, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.format == ACL_FORMAT_NC1HWC0 && (t.dtype == ACL_FLOAT || t.dtype == ACL_FLOAT16) &&
         formatC0(t.format, t.dtype) == 16 && t.shape == Shape{n, (c + 15) / 16, h, w, 16};
}

bool isNdc1hwc0Of16(const TensorArg& t, int64_t nd, int64_t c, int64_t h, int64_t w) {
  return t.format == ACL_FORMAT_NDC1HWC0 && (t.dtype == ACL_FLOAT || t.dtype == ACL_FLOAT16) &&
         formatC0(t.format, t.dtype) == 16 && t.shape.size() == 6 && t.shape[0] * t.shape[1] == nd &&
         t.shape[2] == (c + 15) / 16 && t.shape[3] == h && t.shape[4] == w && t.shape[5] == 16 &&
         t.origin_shape.size() == 5 && t.origin_shape[1] == c;
}

bool nc1hwc0BlockPlanes(float* block, int64_t count, int64_t channels, float* planes, int64_t plane_stride,
                        bool to_planes) {
#ifdef ASCEND_SIM_HAVE_AVX512_PATH
  if (!simd::hostHasAvx2()) return false;
  blockPlanes(block, count, channels, planes, plane_stride, to_planes);
  return true;
#else
  (void)block, (void)count, (void)channels, (void)planes, (void)plane_stride, (void)to_planes;
  return false;
#endif
}

}  // namespace ascend_sim
