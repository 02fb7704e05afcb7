// The shared parts of the int8 Cube kernels (ops/linalg/quant_util.h).
#include "ops/linalg/quant_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/linalg/quant_param.h"

namespace ascend_sim {

double paddedInt8Macs(int64_t m, int64_t n, int64_t k) {
  const auto up = [](int64_t v, int64_t to) { return static_cast<double>((v + to - 1) / to * to); };
  return up(m, 16) * up(n, 16) * up(k, 32);
}

void checkPerChannel(const OpCall& call, const TensorArg& t, const std::string& name, int64_t n) {
  if (t.shape.empty() || t.shape.size() > 2 || (t.numel() != 1 && t.numel() != n) ||
      (t.shape.size() == 2 && t.shape[0] != 1))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " must be [1] or [" + std::to_string(n) + "] (per output column), got " + shapeToString(t.shape));
}

QuantChannels quantChannelsOf(const TensorArg& scale, const TensorArg* offset, int64_t n) {
  QuantChannels ch;
  ch.scale.assign(static_cast<size_t>(n), 0.0f);
  ch.offset.assign(static_cast<size_t>(n), 0.0f);
  const auto at = [](const TensorArg& t, int64_t j) { return t.numel() == 1 ? 0 : j; };
  for (int64_t j = 0; j < n; ++j) {
    if (scale.dtype == ACL_INT64) {
      int64_t packed = 0;
      std::memcpy(&packed, static_cast<const uint8_t*>(scale.data) + at(scale, j) * 8, 8);
      const QuantParam p = decodeQuantParam(static_cast<uint64_t>(packed));
      ch.scale[j] = p.scale;
      ch.offset[j] = p.offset;
    } else {
      loadFloat(ACL_FLOAT, scale.data, at(scale, j), 1, 1, &ch.scale[j]);
    }
    if (offset != nullptr) loadFloat(ACL_FLOAT, offset->data, at(*offset, j), 1, 1, &ch.offset[j]);
  }
  return ch;
}

void int8RowProduct(const int8_t* a, const int8_t* b, int64_t k, int64_t n, const std::vector<int64_t>& bias,
                    std::vector<int64_t>& acc) {
  std::copy(bias.begin(), bias.end(), acc.begin());
  for (int64_t t = 0; t < k; ++t) {
    const int64_t av = a[t];
    if (av == 0) continue;
    for (int64_t j = 0; j < n; ++j) acc[j] += av * b[t * n + j];
  }
}

void storeQuantRow(const TensorArg& y, int64_t at, const std::vector<int64_t>& acc, const QuantChannels& ch,
                   float row_scale) {
  const int64_t n = static_cast<int64_t>(ch.scale.size());
  if (y.dtype == ACL_INT8) {
    std::vector<int64_t> q(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
      q[j] = static_cast<int64_t>(
          std::clamp(std::nearbyint(static_cast<float>(acc[j]) * ch.scale[j] + ch.offset[j]), -128.0f, 127.0f));
    storeInt(ACL_INT8, y.data, at, n, q.data());
    return;
  }
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) row[j] = static_cast<float>(acc[j]) * ch.scale[j] * row_scale;
  storeFloat(y.dtype, y.data, at, n, row.data());
}

aclDataType quantOutputDtypeOf(const OpCall& call) {
  const aclDataType dt = call.attrs.get<aclDataType>("dtype", ACL_INT8);
  if (dt != ACL_INT8 && dt != ACL_FLOAT16 && dt != ACL_BF16)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attr dtype must be int8, float16 or bfloat16, got " + std::string(dtypeName(dt)));
  return dt;
}

std::vector<uint8_t> dequantizedWeight(const TensorArg& weight, int64_t k, int64_t n, const TensorArg& scale,
                                       const TensorArg* offset, int64_t group, aclDataType dt) {
  std::vector<float> s(static_cast<size_t>(scale.numel())), off(s.size(), 0.0f);
  loadFloat(scale.dtype, scale.data, 0, 1, scale.numel(), s.data());
  if (offset != nullptr) loadFloat(offset->dtype, offset->data, 0, 1, scale.numel(), off.data());
  std::vector<int64_t> wq(static_cast<size_t>(k * n));
  loadInt(ACL_INT8, weight.data, 0, 1, k * n, wq.data());
  std::vector<float> w(wq.size());
  for (int64_t t = 0; t < k; ++t)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t p = group > 0 ? (t / group) * n + j : (scale.numel() == 1 ? 0 : j);
      w[t * n + j] = (static_cast<float>(wq[t * n + j]) + off[p]) * s[p];
    }
  std::vector<uint8_t> rounded(w.size() * dtypeSize(dt));
  storeFloat(dt, rounded.data(), 0, static_cast<int64_t>(w.size()), w.data());
  return rounded;
}

}  // namespace ascend_sim
