// Shape helpers shared by the kernels: printing, NumPy broadcasting, strides,
// and an N-d iterator over strided operands.
//
// Note [Inner runs]
// forEachInnerRun walks a row-major index space of `shape` for several
// operands at once, each with its own element strides (0 = broadcast). Dims
// that are contiguous for every operand are coalesced first, so same-shape
// contiguous operands become a single 1-D run, and most broadcasts collapse to
// two dims. The callback receives one run at a time: the start offset of each
// operand, the run length, and each operand's stride along the run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ascend_sim {

using Shape = std::vector<int64_t>;

inline std::string shapeToString(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

inline int64_t numelOf(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// True if `in` broadcasts (NumPy rules, aligned right) to exactly `out`.
inline bool broadcastsTo(const Shape& in, const Shape& out) {
  if (in.size() > out.size()) return false;
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != out[lead + i] && in[i] != 1) return false;
  return true;
}

// Broadcast shape of a and b; false if they are incompatible.
inline bool broadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  size_t n = a.size() > b.size() ? a.size() : b.size();
  out->assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

inline Shape contiguousStrides(const Shape& s) {
  Shape st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Element strides of a contiguous tensor of shape `in` read as shape `out`
// (0 along broadcast dims). Requires broadcastsTo(in, out).
inline Shape broadcastStrides(const Shape& in, const Shape& out) {
  Shape st(out.size(), 0);
  Shape cs = contiguousStrides(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) st[lead + i] = in[i] == 1 ? 0 : cs[i];
  return st;
}

// The coalesced form of an index space (see Note [Inner runs]).
struct CoalescedSpace {
  Shape shape;                 // coalesced dims (at least one)
  std::vector<Shape> strides;  // per operand, per coalesced dim
};

inline CoalescedSpace coalesceSpace(const Shape& shape, const std::vector<Shape>& strides) {
  const size_t nops = strides.size();
  CoalescedSpace cs;
  cs.strides.resize(nops);
  // Coalesce: drop size-1 dims, merge d into d+1 when contiguous for all operands.
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !cs.shape.empty();
    for (size_t k = 0; merge && k < nops; ++k) merge = cs.strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      cs.shape.back() *= shape[d];
      for (size_t k = 0; k < nops; ++k) cs.strides[k].back() = strides[k][d];
    } else {
      cs.shape.push_back(shape[d]);
      for (size_t k = 0; k < nops; ++k) cs.strides[k].push_back(strides[k][d]);
    }
  }
  if (cs.shape.empty()) {  // a single element
    cs.shape.push_back(1);
    for (size_t k = 0; k < nops; ++k) cs.strides[k].push_back(0);
  }
  return cs;
}

// Like forEachInnerRun, restricted to the row-major linear positions
// [lo, hi) of `shape`: runs are cut at lo and hi. Used to split one index
// space across simulated cores.
template <typename Fn>
void forEachInnerRunInRange(const Shape& shape, const std::vector<Shape>& strides, int64_t lo, int64_t hi,
                            Fn&& fn) {
  for (int64_t d : shape)
    if (d == 0) return;
  if (lo >= hi) return;
  const size_t nops = strides.size();
  const CoalescedSpace cs = coalesceSpace(shape, strides);
  const size_t nd = cs.shape.size();
  const int64_t inner = cs.shape[nd - 1];
  std::vector<int64_t> run_strides(nops), offsets(nops, 0), idx(nd, 0), base(nops, 0);
  for (size_t k = 0; k < nops; ++k) run_strides[k] = cs.strides[k][nd - 1];
  // Decompose the starting run index (lo / inner) into the outer dims.
  int64_t outer = lo / inner, within = lo % inner;
  for (size_t d = nd - 1; d-- > 0;) {
    idx[d] = outer % cs.shape[d];
    outer /= cs.shape[d];
    for (size_t k = 0; k < nops; ++k) base[k] += idx[d] * cs.strides[k][d];
  }
  int64_t pos = lo;
  while (pos < hi) {
    const int64_t len = std::min(inner - within, hi - pos);
    for (size_t k = 0; k < nops; ++k) offsets[k] = base[k] + within * run_strides[k];
    fn(offsets.data(), len, run_strides.data());
    pos += len;
    within = 0;
    if (pos >= hi) return;
    // Advance the outer index like an odometer.
    for (size_t d = nd - 1; d-- > 0;) {
      if (++idx[d] < cs.shape[d]) {
        for (size_t k = 0; k < nops; ++k) base[k] += cs.strides[k][d];
        break;
      }
      for (size_t k = 0; k < nops; ++k) base[k] -= cs.strides[k][d] * (cs.shape[d] - 1);
      idx[d] = 0;
    }
  }
}

// See Note [Inner runs]. fn(const int64_t* offsets, int64_t len, const int64_t* run_strides).
template <typename Fn>
void forEachInnerRun(const Shape& shape, const std::vector<Shape>& strides, Fn&& fn) {
  const size_t nops = strides.size();
  for (int64_t d : shape)
    if (d == 0) return;
  const CoalescedSpace cs = coalesceSpace(shape, strides);
  const Shape& cshape = cs.shape;
  const std::vector<Shape>& cst = cs.strides;
  const size_t nd = cshape.size();
  const int64_t inner = cshape[nd - 1];
  std::vector<int64_t> run_strides(nops), offsets(nops, 0), idx(nd, 0);
  for (size_t k = 0; k < nops; ++k) run_strides[k] = cst[k][nd - 1];
  while (true) {
    fn(offsets.data(), inner, run_strides.data());
    // Advance the outer index (dims 0..nd-2) like an odometer.
    size_t d = nd - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < cshape[d]) {
        for (size_t k = 0; k < nops; ++k) offsets[k] += cst[k][d];
        break;
      }
      for (size_t k = 0; k < nops; ++k) offsets[k] -= cst[k][d] * (cshape[d] - 1);
      idx[d] = 0;
    }
  }
}

}  // namespace ascend_sim
