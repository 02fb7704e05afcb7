// StorageMap construction and logical load/store (see format_access.h).
#include "format/format_access.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "aicore/thread_pool.h"

#include "common/dtype.h"

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

}  // namespace

void gatherLogical(const TensorArg& t, const StorageMap& m, void* dst) {
  const size_t size = dtypeSize(t.dtype);
  char* d = static_cast<char*>(dst);
  forEachRowParallel(m, [&](int64_t first, const int64_t* base, int64_t len, const int64_t* const* inner) {
    gatherRow(t.data, base[0], inner[0], len, size, d + static_cast<size_t>(first) * size);
  });
}

void scatterLogical(const TensorArg& t, const StorageMap& m, const void* src) {
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

}  // namespace ascend_sim
