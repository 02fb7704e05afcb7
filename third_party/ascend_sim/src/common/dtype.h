// Element types of the simulated device: sizes, names, and the conversions
// every kernel uses to move data between storage dtypes and its fp32 / int64
// compute domain.
//
// Note [Compute domains]
// Kernels never template over storage dtypes. Float math loads its operands
// into fp32 scratch (exact for fp16/bf16/fp32), computes, and stores with one
// round-to-nearest-even to the output dtype. Integer and bool math loads into
// int64 scratch and stores by wrapping to the output width. The store
// functions also implement Cast's cross-domain rules:
//   float -> int : truncate toward zero, saturate to the target range, NaN -> 0
//   float -> bool: x != 0 (NaN -> true)
//   int   -> float: nearest (RNE) value of the target float type
//   any   -> bool: x != 0;  bool -> any: 0 / 1
// complex64 is outside both domains: loadFloat / storeFloat and friends do not
// read or write it. Its kernels (ops/pointwise/complex_elementwise.h, ops/fft/fft.cpp) use
// the two float32 components directly (Note [Complex elementwise kernels]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ascend_sim/acl.h"

// Exported (ASCEND_SIM_API) so the GoogleTest suites can build and read tensors.
namespace ascend_sim {

// Bytes per element; 0 for dtypes the simulator does not model (Note [One dtype table] in dtype.cpp).
ASCEND_SIM_API size_t dtypeSize(aclDataType dt);
// "float32", "float16", "bfloat16", "int8", ... for error messages; "undefined" for others.
ASCEND_SIM_API const char* dtypeName(aclDataType dt);
// "FLOAT", "FLOAT16", "BF16", "INT8", ... (ACL's names: plan keys, op descriptions); "UNDEFINED" for others.
const char* aclDtypeName(aclDataType dt);

// Floating dtypes (computed in the fp32 domain; float64 appears only in Cast).
inline bool isFloatDtype(aclDataType dt) {
  return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
}

// complex64: std::complex<float>'s layout (real part, then imaginary part).
inline bool isComplexDtype(aclDataType dt) { return dt == ACL_COMPLEX64; }

// Bit patterns and conversions (round to nearest even, subnormals, inf, nan).
ASCEND_SIM_API uint16_t floatToHalf(float f);
ASCEND_SIM_API float halfToFloat(uint16_t h);
ASCEND_SIM_API uint16_t floatToBf16(float f);
inline float bf16ToFloat(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Float -> integer with truncation toward zero, saturation to [lo, hi], NaN -> 0.
ASCEND_SIM_API int64_t saturateFloatToInt(float f, int64_t lo, int64_t hi);

// Loads n elements base[offset + i * stride] (element units) into dst.
ASCEND_SIM_API void loadFloat(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n,
               float* dst);
ASCEND_SIM_API void loadInt(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n,
             int64_t* dst);
// Stores n contiguous elements at base[offset..offset+n) converting to dt.
ASCEND_SIM_API void storeFloat(aclDataType dt, void* base, int64_t offset, int64_t n, const float* src);
ASCEND_SIM_API void storeInt(aclDataType dt, void* base, int64_t offset, int64_t n, const int64_t* src);

// Elements per 256-byte reduction block (OPS.md, "Conventions": Numerics) for dtype dt.
inline int64_t reduceBlockElems(aclDataType dt) {
  size_t s = dtypeSize(dt);
  return s == 0 ? 64 : static_cast<int64_t>(256 / s);
}

}  // namespace ascend_sim
