// See Note [Conv and pooling operands] in conv_util.h.
#include "ops/conv/conv_util.h"

#include <cstring>

#include "aicore/units.h"
#include "common/dtype.h"
#include "format/format_registry.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace convutil {
namespace {

bool isBase(aclFormat f) { return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NCDHW; }

aclFormat privateFormatOf(OperandKind kind) {
  switch (kind) {
    case OperandKind::kFilter: return ACL_FORMAT_FRACTAL_Z;
    case OperandKind::kActivation3d: return ACL_FORMAT_NDC1HWC0;
    case OperandKind::kFilter3d: return ACL_FRACTAL_Z_3D;
    default: return ACL_FORMAT_NC1HWC0;
  }
}

std::string formatDesc(aclFormat f) {
  return formatToString(f) + " (format " + std::to_string(static_cast<int>(f)) + ")";
}

// Storage map of a private-format operand (validated before compute).
StorageMap privateMap(const TensorArg& t) {
  StorageMap m;
  std::string err;
  makeStorageMap(t.format, t.dtype, logicalShape(t.origin_format, t.origin_shape), &m, &err);
  return m;
}

}  // namespace

Shape logicalShapeOf(const OpCall& call, const TensorArg& t, const std::string& who, OperandKind kind) {
  for (int64_t d : t.shape)
    if (d < 0) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, who + " has a negative dim in shape " + str(t.shape));
  if (isBase(t.format)) return t.shape;
  const aclFormat priv = privateFormatOf(kind);
  const bool volumetric = kind == OperandKind::kActivation3d || kind == OperandKind::kFilter3d;
  if (t.format != priv)
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT,
         who + " has format " + formatDesc(t.format) + "; supported: " + (volumetric ? "ND, NCDHW" : "ND, NCHW") +
             " or " + formatToString(priv));
  return storageMapOf(call, t, who).logical;
}

Shape shape4dOf(const OpCall& call, const TensorArg& t, const std::string& who, OperandKind kind) {
  Shape s = logicalShapeOf(call, t, who, kind);
  if (s.size() != 4) fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, who + " shape " + str(s) + " must be 4-D [N,C,H,W]");
  return s;
}

bool storesLogicalOrder(const TensorArg& t) { return isBase(t.format); }

void loadLogicalF32(const TensorArg& t, float* dst) {
  if (isBase(t.format)) {
    loadFloat(t.dtype, t.data, 0, 1, t.numel(), dst);
    return;
  }
  const StorageMap m = privateMap(t);
  loadLogicalFloat(t, m, dst);
}

void loadLogicalI64(const TensorArg& t, int64_t* dst) {
  if (isBase(t.format)) {
    loadInt(t.dtype, t.data, 0, 1, t.numel(), dst);
    return;
  }
  const StorageMap m = privateMap(t);
  loadLogicalInt(t, m, dst);
}

void storeLogicalF32(const TensorArg& t, const float* src) {
  if (isBase(t.format)) {
    storeFloat(t.dtype, t.data, 0, t.numel(), src);
    return;
  }
  const StorageMap m = privateMap(t);
  storeLogicalFloat(t, m, src);
}

void storeLogicalI64(const TensorArg& t, const int64_t* src) {
  if (isBase(t.format)) {
    storeInt(t.dtype, t.data, 0, t.numel(), src);
    return;
  }
  const StorageMap m = privateMap(t);
  storeLogicalInt(t, m, src);
}

std::vector<int64_t> attrList(const OpCall& call, const char* name, size_t n, const std::vector<int64_t>& fallback,
                              bool required) {
  if (!call.attrs.has(name)) {
    if (required) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("missing required attribute '") + name + "'");
    return fallback;
  }
  std::vector<int64_t> v = attrInts(call, name);
  if (n == 2 && v.size() == 4 && v[0] == 1 && v[1] == 1) v = {v[2], v[3]};  // NCHW form [1,1,h,w]
  if (v.size() != n) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + name + "' must have " + std::to_string(n) + " values, got " + s + "]");
  }
  return v;
}

void parseWindowAttrs(const OpCall& call, Window* w, const std::vector<int64_t>& strides_default) {
  const std::vector<int64_t> s = attrList(call, "strides", 2, strides_default, false);
  const std::vector<int64_t> p = attrList(call, "pads", 4, {0, 0, 0, 0}, false);
  const std::vector<int64_t> d = attrList(call, "dilations", 2, {1, 1}, false);
  if (s[0] < 1 || s[1] < 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "strides [" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "] must be >= 1");
  if (d[0] < 1 || d[1] < 1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "dilations [" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "] must be >= 1");
  for (int64_t v : p)
    if (v < 0)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "pads [" + std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + "," +
               std::to_string(p[3]) + "] must be >= 0 ([top, bottom, left, right])");
  w->sh = s[0];
  w->sw = s[1];
  w->pt = p[0];
  w->pb = p[1];
  w->pl = p[2];
  w->pr = p[3];
  w->dh = d[0];
  w->dw = d[1];
}

int64_t windowOut(int64_t in, int64_t k_eff, int64_t stride, int64_t pad_lo, int64_t pad_hi, bool ceil_mode) {
  const int64_t span = in + pad_lo + pad_hi - k_eff;
  if (span < 0) return 0;
  int64_t out = (span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // The last window must start inside the input or its leading padding.
  if (ceil_mode && (out - 1) * stride >= in + pad_lo) --out;
  return out;
}

float ResultRounding::throughFp16(float v, bool* overflow) const {
  uint16_t hbits = floatToHalf(v);
  if (vectorUnit().fp16_overflow(&hbits, 1, saturate)) *overflow = true;
  return halfToFloat(hbits);
}

ResultRounding resultRoundingOf(const OpCall& call) {
  ResultRounding r;
  r.through_fp16 = call.ctx.precision == PrecisionMode::kForceFp16 && call.outputs[0].dtype == ACL_FLOAT;
  r.saturate = call.ctx.fp16_saturation;
  return r;
}

}  // namespace convutil
}  // namespace ascend_sim
