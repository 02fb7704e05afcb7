// Test helpers of the fused attention kernels (test_kernels_fusion_attention.cpp,
// test_kernels_inference_attention.cpp): q/k/v in the kernels' layouts and
// back, broadcast operands, and the tolerance of a fused result against the
// double reference of attention_reference.h.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "attention_reference.h"
#include "kernel_test_util.h"

namespace ascend_sim {
namespace test {

// Storage index of logical element (b, h, s, e) of a [B, H, S, D] tensor.
inline int64_t storageIndex(const std::string& layout, int64_t B, int64_t H, int64_t S, int64_t D, int64_t b, int64_t h,
                            int64_t s, int64_t e) {
  if (layout == "SBH") return ((s * B + b) * H + h) * D + e;
  if (layout == "BNSD") return ((b * H + h) * S + s) * D + e;
  return ((b * S + s) * H + h) * D + e;  // BSH, BSND
}

inline Shape layoutShape(const std::string& layout, int64_t B, int64_t H, int64_t S, int64_t D) {
  if (layout == "BSH") return {B, S, H * D};
  if (layout == "SBH") return {S, B, H * D};
  if (layout == "BNSD") return {B, H, S, D};
  return {B, S, H, D};
}

// A [B, H, S, D] logical tensor stored in `layout`, and back.
struct Heads {
  int64_t b, h, s, d;
  HostTensor store(const std::string& layout, aclDataType dt, const std::vector<float>& logical) const {
    std::vector<float> v(logical.size());
    forEach(layout, [&](int64_t li, int64_t si) { v[si] = logical[li]; });
    return HostTensor::floats(dt, layoutShape(layout, b, h, s, d), v);
  }
  std::vector<float> load(const std::string& layout, const HostTensor& t) const {
    const std::vector<float> v = t.toFloats();
    std::vector<float> logical(v.size());
    forEach(layout, [&](int64_t li, int64_t si) { logical[li] = v[si]; });
    return logical;
  }
  template <typename F>
  void forEach(const std::string& layout, F f) const {
    for (int64_t bi = 0, li = 0; bi < b; ++bi)
      for (int64_t hi = 0; hi < h; ++hi)
        for (int64_t si = 0; si < s; ++si)
          for (int64_t e = 0; e < d; ++e, ++li) f(li, storageIndex(layout, b, h, s, d, bi, hi, si, e));
  }
};

// values of a [x0, x1, x2, x3] tensor broadcast to [B, N, Sq, Skv].
template <typename T>
std::vector<T> broadcast4(const std::vector<T>& values, const Shape& shape, const AttentionCase& c) {
  std::vector<T> full;
  for (int64_t bi = 0; bi < c.b; ++bi)
    for (int64_t ni = 0; ni < c.n; ++ni)
      for (int64_t i = 0; i < c.sq; ++i)
        for (int64_t j = 0; j < c.skv; ++j) {
          const int64_t at =
              (((shape[0] == 1 ? 0 : bi) * shape[1] + (shape[1] == 1 ? 0 : ni)) * shape[2] + (shape[2] == 1 ? 0 : i)) *
                  shape[3] +
              (shape[3] == 1 ? 0 : j);
          full.push_back(values[at]);
        }
  return full;
}

inline std::vector<float> rounded(aclDataType dt, std::vector<float> v) {
  for (float& e : v) e = roundTo(dt, e);
  return v;
}

// |got - want| <= atol + rtol * |want| (the fused math differs from the
// double reference by fp32 rounding, plus P / dS rounded to an fp16 / bf16
// input dtype before the Cube and the outputs' rounding).
inline void expectClose(const std::vector<float>& got, const std::vector<double>& want, double rtol, double atol,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << what << " element " << i;
}

// A pattern of n mask values, about one in five masked (1).
inline std::vector<int64_t> sparseMask(int64_t n, uint32_t seed) {
  const std::vector<float> r = randomFloats(n, 0, 1, seed);
  std::vector<int64_t> m(r.size());
  for (size_t i = 0; i < r.size(); ++i) m[i] = r[i] < 0.2f;
  return m;
}

inline double rtolFor(aclDataType dt) { return dt == ACL_FLOAT ? 2e-5 : dt == ACL_FLOAT16 ? 4e-3 : 3e-2; }
inline double atolFor(aclDataType dt) { return dt == ACL_FLOAT ? 2e-5 : dt == ACL_FLOAT16 ? 4e-3 : 3e-2; }

}  // namespace test
}  // namespace ascend_sim
