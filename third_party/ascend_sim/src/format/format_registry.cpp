// The format table (docs/formats.md). Each layout is two tiny functions over
// the canonical shape: its storage shape and the storage offset of one index.
#include "format/format_registry.h"

#include "common/dtype.h"

namespace ascend_sim {
namespace {

constexpr int64_t kC0 = 16;     // NC1HWC0 / FRACTAL_Z / NDC1HWC0 / FRACTAL_Z_3D channel block
constexpr int64_t kCube = 16;   // fractal rows (M0 / N0)

constexpr int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---- row-major bases: ND, NCHW, NCDHW ------------------------------------------------
Shape identityShape(const Shape& s, int64_t) { return s; }
int64_t rowMajorOffset(const int64_t* idx, const Shape& s, int64_t) {
  int64_t off = 0;
  for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + idx[d];
  return off;
}

// ---- NHWC: a permutation of NCHW -------------------------------------------------------
Shape nhwcShape(const Shape& s, int64_t) { return {s[0], s[2], s[3], s[1]}; }
int64_t nhwcOffset(const int64_t* i, const Shape& s, int64_t) {
  return ((i[0] * s[2] + i[2]) * s[3] + i[3]) * s[1] + i[1];
}

// ---- NC1HWC0 (5HD): [N, C1, H, W, 16] ------------------------------------------------
Shape nc1hwc0Shape(const Shape& s, int64_t) { return {s[0], ceilDiv(s[1], kC0), s[2], s[3], kC0}; }
int64_t nc1hwc0Offset(const int64_t* i, const Shape& s, int64_t) {
  const int64_t c1 = ceilDiv(s[1], kC0);
  return (((i[0] * c1 + i[1] / kC0) * s[2] + i[2]) * s[3] + i[3]) * kC0 + i[1] % kC0;
}

// ---- FRACTAL_Z (conv weight [N=Cout, C=Cin, H, W]): [C1*H*W, N1, 16, 16] ------------------
Shape fractalZShape(const Shape& s, int64_t) {
  return {ceilDiv(s[1], kC0) * s[2] * s[3], ceilDiv(s[0], kCube), kCube, kC0};
}
int64_t fractalZOffset(const int64_t* i, const Shape& s, int64_t) {
  const int64_t n1 = ceilDiv(s[0], kCube);
  const int64_t row = (i[1] / kC0) * s[2] * s[3] + i[2] * s[3] + i[3];
  return (row * n1 + i[0] / kCube) * (kCube * kC0) + (i[0] % kCube) * kC0 + i[1] % kC0;
}

// ---- FRACTAL_NZ (last two dims [..., M, N]): [..., N1, M1, 16, C0]; rank < 2 stays ND ----
Shape fractalNzShape(const Shape& s, int64_t c0) {
  if (s.size() < 2) return s;
  Shape r(s.begin(), s.end() - 2);
  const int64_t m = s[s.size() - 2], n = s[s.size() - 1];
  r.insert(r.end(), {ceilDiv(n, c0), ceilDiv(m, kCube), kCube, c0});
  return r;
}
int64_t fractalNzOffset(const int64_t* i, const Shape& s, int64_t c0) {
  const size_t r = s.size();
  if (r < 2) return rowMajorOffset(i, s, c0);
  const int64_t m = s[r - 2], n = s[r - 1];
  const int64_t m1 = ceilDiv(m, kCube), n1 = ceilDiv(n, c0);
  int64_t b = 0;
  for (size_t d = 0; d + 2 < r; ++d) b = b * s[d] + i[d];
  const int64_t im = i[r - 2], in = i[r - 1];
  return b * (n1 * m1 * kCube * c0) + (in / c0) * (m1 * kCube * c0) + im * c0 + in % c0;
}

// ---- NDC1HWC0 (from NCDHW [N, C, D, H, W]): [N, D, C1, H, W, 16] ------------------------
Shape ndc1hwc0Shape(const Shape& s, int64_t) {
  return {s[0], s[2], ceilDiv(s[1], kC0), s[3], s[4], kC0};
}
int64_t ndc1hwc0Offset(const int64_t* i, const Shape& s, int64_t) {
  const int64_t c1 = ceilDiv(s[1], kC0);
  return ((((i[0] * s[2] + i[2]) * c1 + i[1] / kC0) * s[3] + i[3]) * s[4] + i[4]) * kC0 + i[1] % kC0;
}

// ---- FRACTAL_Z_3D (from NCDHW): [D*C1*H*W, N1, 16, 16], rows ordered (d, c1, h, w) -----------
Shape fractalZ3dShape(const Shape& s, int64_t) {
  return {s[2] * ceilDiv(s[1], kC0) * s[3] * s[4], ceilDiv(s[0], kCube), kCube, kC0};
}
int64_t fractalZ3dOffset(const int64_t* i, const Shape& s, int64_t) {
  const int64_t c1 = ceilDiv(s[1], kC0), n1 = ceilDiv(s[0], kCube);
  const int64_t row = ((i[2] * c1 + i[1] / kC0) * s[3] + i[3]) * s[4] + i[4];
  return (row * n1 + i[0] / kCube) * (kCube * kC0) + (i[0] % kCube) * kC0 + i[1] % kC0;
}

// The table. Ranks: storage ranks must stay <= ACL_MAX_DIM_CNT (8).
const std::vector<FormatInfo>& table() {
  static const std::vector<FormatInfo>* t = new std::vector<FormatInfo>{
      // format                 name            base               padded  ranks  lift  storage          offset
      {ACL_FORMAT_NCHW,         "NCHW",         ACL_FORMAT_NCHW,   false,  0, 4,  0,    &identityShape,  &rowMajorOffset},
      {ACL_FORMAT_NHWC,         "NHWC",         ACL_FORMAT_NCHW,   false,  1, 4,  4,    &nhwcShape,      &nhwcOffset},
      {ACL_FORMAT_ND,           "ND",           ACL_FORMAT_ND,     false,  0, 8,  0,    &identityShape,  &rowMajorOffset},
      {ACL_FORMAT_NC1HWC0,      "NC1HWC0",      ACL_FORMAT_NCHW,   true,   1, 4,  4,    &nc1hwc0Shape,   &nc1hwc0Offset},
      {ACL_FORMAT_FRACTAL_Z,    "FRACTAL_Z",    ACL_FORMAT_NCHW,   true,   1, 4,  4,    &fractalZShape,  &fractalZOffset},
      {ACL_FORMAT_FRACTAL_NZ,   "FRACTAL_NZ",   ACL_FORMAT_ND,     true,   0, 6,  0,    &fractalNzShape, &fractalNzOffset},
      {ACL_FORMAT_NCDHW,        "NCDHW",        ACL_FORMAT_NCDHW,  false,  0, 5,  0,    &identityShape,  &rowMajorOffset},
      {ACL_FORMAT_NDC1HWC0,     "NDC1HWC0",     ACL_FORMAT_NCDHW,  true,   5, 5,  0,    &ndc1hwc0Shape,  &ndc1hwc0Offset},
      {ACL_FRACTAL_Z_3D,        "FRACTAL_Z_3D", ACL_FORMAT_NCDHW,  true,   5, 5,  0,    &fractalZ3dShape,&fractalZ3dOffset},
  };
  return *t;
}

// Lifts a rank < lift_rank vector with the first dim as C: [0] + v + [fill...].
Shape liftVec(const FormatInfo& fi, const int64_t* v, size_t n, int64_t fill) {
  if (fi.lift_rank == 0 || n >= static_cast<size_t>(fi.lift_rank)) return Shape(v, v + n);
  Shape r(static_cast<size_t>(fi.lift_rank), fill);
  r[0] = fill;
  for (size_t d = 0; d < n; ++d) r[d + 1] = v[d];
  return r;
}

}  // namespace

const std::vector<FormatInfo>& allFormats() { return table(); }

const FormatInfo* findFormat(aclFormat f) {
  for (const FormatInfo& fi : table())
    if (fi.format == f) return &fi;
  return nullptr;
}

std::string knownFormatList() {
  std::string r;
  for (const FormatInfo& fi : table())
    r += (r.empty() ? "" : ", ") + std::string(fi.name) + "(" + std::to_string(static_cast<int>(fi.format)) + ")";
  return r;
}

std::string formatToString(aclFormat f) {
  const FormatInfo* fi = findFormat(f);
  return fi ? std::string(fi->name) : "format " + std::to_string(static_cast<int>(f));
}

bool isPrivateFormat(aclFormat f) {
  const FormatInfo* fi = findFormat(f);
  return fi && fi->padded;
}

int64_t formatC0(aclFormat f, aclDataType dt) {
  return f == ACL_FORMAT_FRACTAL_NZ && dtypeSize(dt) == 1 ? 32 : 16;
}

Shape logicalShape(aclFormat origin_format, const Shape& s) {
  if (origin_format == ACL_FORMAT_NHWC && s.size() == 4) return {s[0], s[3], s[1], s[2]};
  return s;
}

bool formatStorageShape(aclFormat f, aclDataType dt, const Shape& logical, Shape* out, std::string* err) {
  const FormatInfo* fi = findFormat(f);
  if (!fi) {
    *err = "unknown format " + std::to_string(static_cast<int>(f)) + " (known formats: " + knownFormatList() + ")";
    return false;
  }
  const int rank = static_cast<int>(logical.size());
  if (rank < fi->min_rank || rank > fi->max_rank) {
    *err = std::string("format ") + fi->name + " cannot hold a tensor of rank " + std::to_string(rank) + " " +
           shapeToString(logical) + " (it holds ranks " + std::to_string(fi->min_rank) +
           (fi->max_rank == fi->min_rank ? "" : ".." + std::to_string(fi->max_rank)) + ")";
    return false;
  }
  for (int64_t d : logical)
    if (d < 0) {
      *err = "shape " + shapeToString(logical) + " has a negative dim";
      return false;
    }
  if (f == ACL_FORMAT_FRACTAL_NZ && dtypeSize(dt) == 0) {
    *err = std::string("format FRACTAL_NZ needs a known dtype for its C0, got dtype ") +
           std::to_string(static_cast<int>(dt));
    return false;
  }
  const Shape canon = liftVec(*fi, logical.data(), logical.size(), 1);
  *out = fi->storage(canon, formatC0(f, dt));
  return true;
}

int64_t formatElementOffset(aclFormat f, aclDataType dt, const Shape& logical, const int64_t* idx) {
  const FormatInfo* fi = findFormat(f);
  if (!fi) return -1;
  const Shape canon = liftVec(*fi, logical.data(), logical.size(), 1);
  const Shape cidx = liftVec(*fi, idx, logical.size(), 0);
  return fi->offset(cidx.data(), canon, formatC0(f, dt));
}

}  // namespace ascend_sim
