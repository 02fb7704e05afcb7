#include "common/dtype.h"

#include "common/dtype_simd.h"

#include <cmath>
#include <limits>

namespace ascend_sim {

namespace {

// Note [One dtype table]
// Every fact the simulator keeps per element type is one row here: the C API
// (aclCreateTensorDesc, aclopExecuteV2's buffer checks), the kernels, the
// format rules and the plan keys all read it, so a new dtype is one new row
// (plus its load/store cases below). A dtype without a row is one the
// simulator does not model: size 0, names "undefined" / "UNDEFINED".
struct DtypeRow {
  aclDataType dtype;
  size_t size;
  const char* name;      // dtypeName: error messages, op dump
  const char* acl_name;  // aclDtypeName: plan and binary keys, op descriptions
};

constexpr DtypeRow kDtypes[] = {
    {ACL_FLOAT, 4, "float32", "FLOAT"},   {ACL_FLOAT16, 2, "float16", "FLOAT16"}, {ACL_BF16, 2, "bfloat16", "BF16"},
    {ACL_DOUBLE, 8, "float64", "DOUBLE"}, {ACL_BOOL, 1, "bool", "BOOL"},
    {ACL_INT8, 1, "int8", "INT8"},        {ACL_INT16, 2, "int16", "INT16"},       {ACL_INT32, 4, "int32", "INT32"},
    {ACL_INT64, 8, "int64", "INT64"},     {ACL_UINT8, 1, "uint8", "UINT8"},       {ACL_UINT16, 2, "uint16", "UINT16"},
    {ACL_UINT32, 4, "uint32", "UINT32"},  {ACL_UINT64, 8, "uint64", "UINT64"},
    {ACL_COMPLEX64, 8, "complex64", "COMPLEX64"},  // float32 real part, then imaginary part
};
constexpr DtypeRow kUnmodelledDtype = {ACL_DT_UNDEFINED, 0, "undefined", "UNDEFINED"};

const DtypeRow& rowOf(aclDataType dt) {
  for (const DtypeRow& r : kDtypes)
    if (r.dtype == dt) return r;
  return kUnmodelledDtype;
}

}  // namespace

size_t dtypeSize(aclDataType dt) { return rowOf(dt).size; }

const char* dtypeName(aclDataType dt) { return rowOf(dt).name; }

const char* aclDtypeName(aclDataType dt) { return rowOf(dt).acl_name; }

namespace {
uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace

// Round-to-nearest-even float -> half (after F. Giesen's float_to_half_rtne).
uint16_t floatToHalf(float f) {
  constexpr uint32_t kF32Inf = 255u << 23;
  constexpr uint32_t kF16Max = (127u + 16) << 23;  // 65536.0f: everything above is inf
  constexpr uint32_t kDenormMagic = ((127u - 15) + (23 - 10) + 1) << 23;
  uint32_t x = floatBits(f);
  uint32_t sign = x & 0x80000000u;
  x ^= sign;
  uint32_t o;
  if (x >= kF16Max) {
    o = (x > kF32Inf) ? (0x7e00u | ((x >> 13) & 0x1ffu)) : 0x7c00u;  // nan keeps payload bits
  } else if (x < (113u << 23)) {  // result is subnormal or zero: let the FPU round
    volatile float t = bitsFloat(x) + bitsFloat(kDenormMagic);
    o = floatBits(t) - kDenormMagic;
  } else {
    uint32_t mant_odd = (x >> 13) & 1u;
    x += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu;
    x += mant_odd;
    o = x >> 13;
  }
  return static_cast<uint16_t>(o | (sign >> 16));
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    return bitsFloat(floatBits(v) | sign);
  }
  if (exp == 31) return bitsFloat(sign | 0x7f800000u | (mant << 13));
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t floatToBf16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

int64_t saturateFloatToInt(float f, int64_t lo, int64_t hi) {
  if (std::isnan(f)) return 0;
  double t = std::trunc(static_cast<double>(f));
  if (t <= static_cast<double>(lo)) return lo;
  if (t >= static_cast<double>(hi)) return hi;  // 2^63 as double also lands here
  return static_cast<int64_t>(t);
}

namespace {

template <typename T>
void loadF(const T* p, int64_t stride, int64_t n, float* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(p[i * stride]);
}
template <typename T>
void loadI(const T* p, int64_t stride, int64_t n, int64_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<int64_t>(p[i * stride]);
}
template <typename T>
void storeFI(T* p, int64_t n, const float* src) {
  constexpr int64_t lo = static_cast<int64_t>(std::numeric_limits<T>::min());
  constexpr int64_t hi = static_cast<int64_t>(std::numeric_limits<T>::max());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(saturateFloatToInt(src[i], lo, hi));
}
template <typename T>
void storeII(T* p, int64_t n, const int64_t* src) {
  // Wrap to the target width (two's complement), via unsigned to avoid UB.
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<uint64_t>(src[i]));
}

}  // namespace

void loadFloat(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n,
               float* dst) {
  if (n <= 0) return;  // an empty tensor may have no buffer at all
  switch (dt) {
    case ACL_FLOAT: {
      const float* p = static_cast<const float*>(base) + offset;
      if (stride == 1) {
        std::memcpy(dst, p, static_cast<size_t>(n) * sizeof(float));
      } else {
        loadF(p, stride, n, dst);
      }
      return;
    }
    case ACL_FLOAT16: {
      const uint16_t* p = static_cast<const uint16_t*>(base) + offset;
      if (stride == 1 && simd::halvesToFloats(p, n, dst)) return;
      // A strided run (a transposed Cube operand) is gathered a block at a time and converted as
      // a contiguous one: the scalar conversion is several times slower than the gather.
      constexpr int64_t kGather = 64;
      uint16_t block[kGather];
      int64_t i = 0;
      for (; i + kGather <= n; i += kGather) {
        for (int64_t j = 0; j < kGather; ++j) block[j] = p[(i + j) * stride];
        if (!simd::halvesToFloats(block, kGather, dst + i)) break;
      }
      for (; i < n; ++i) dst[i] = halfToFloat(p[i * stride]);
      return;
    }
    case ACL_BF16: {
      const uint16_t* p = static_cast<const uint16_t*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = bf16ToFloat(p[i * stride]);
      return;
    }
    case ACL_BOOL: {
      const uint8_t* p = static_cast<const uint8_t*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = p[i * stride] != 0 ? 1.0f : 0.0f;
      return;
    }
    case ACL_INT8: return loadF(static_cast<const int8_t*>(base) + offset, stride, n, dst);
    case ACL_UINT8: return loadF(static_cast<const uint8_t*>(base) + offset, stride, n, dst);
    case ACL_INT16: return loadF(static_cast<const int16_t*>(base) + offset, stride, n, dst);
    case ACL_INT32: return loadF(static_cast<const int32_t*>(base) + offset, stride, n, dst);
    case ACL_INT64: return loadF(static_cast<const int64_t*>(base) + offset, stride, n, dst);
    case ACL_DOUBLE: return loadF(static_cast<const double*>(base) + offset, stride, n, dst);  // one rounding
    default: return;
  }
}

void loadInt(aclDataType dt, const void* base, int64_t offset, int64_t stride, int64_t n,
             int64_t* dst) {
  if (n <= 0) return;
  switch (dt) {
    case ACL_BOOL: {
      const uint8_t* p = static_cast<const uint8_t*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) dst[i] = p[i * stride] != 0 ? 1 : 0;
      return;
    }
    case ACL_INT8: return loadI(static_cast<const int8_t*>(base) + offset, stride, n, dst);
    case ACL_UINT8: return loadI(static_cast<const uint8_t*>(base) + offset, stride, n, dst);
    case ACL_INT16: return loadI(static_cast<const int16_t*>(base) + offset, stride, n, dst);
    case ACL_INT32: return loadI(static_cast<const int32_t*>(base) + offset, stride, n, dst);
    case ACL_INT64: return loadI(static_cast<const int64_t*>(base) + offset, stride, n, dst);
    case ACL_DOUBLE: {  // truncation toward zero, saturating, without an fp32 detour
      const double* p = static_cast<const double*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) {
        const double v = p[i * stride];
        dst[i] = v != v ? 0 : (v <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min()
                                : v >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max()
                                                              : static_cast<int64_t>(v));
      }
      return;
    }
    default: {
      // Float storage read into the integer domain (used by Cast-like paths).
      float tmp[256];
      for (int64_t done = 0; done < n; done += 256) {
        int64_t m = n - done < 256 ? n - done : 256;
        loadFloat(dt, base, offset + done * stride, stride, m, tmp);
        for (int64_t i = 0; i < m; ++i)
          dst[done + i] = saturateFloatToInt(tmp[i], std::numeric_limits<int64_t>::min(),
                                             std::numeric_limits<int64_t>::max());
      }
      return;
    }
  }
}

void storeFloat(aclDataType dt, void* base, int64_t offset, int64_t n, const float* src) {
  if (n <= 0) return;  // an empty tensor may have no buffer at all
  switch (dt) {
    case ACL_FLOAT:
      std::memcpy(static_cast<float*>(base) + offset, src, static_cast<size_t>(n) * sizeof(float));
      return;
    case ACL_FLOAT16: {
      uint16_t* p = static_cast<uint16_t*>(base) + offset;
      if (simd::floatsToHalves(src, n, p)) return;
      for (int64_t i = 0; i < n; ++i) p[i] = floatToHalf(src[i]);
      return;
    }
    case ACL_BF16: {
      uint16_t* p = static_cast<uint16_t*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) p[i] = floatToBf16(src[i]);
      return;
    }
    case ACL_BOOL: {
      uint8_t* p = static_cast<uint8_t*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) p[i] = src[i] != 0.0f ? 1 : 0;  // NaN != 0 -> true
      return;
    }
    case ACL_INT8: return storeFI(static_cast<int8_t*>(base) + offset, n, src);
    case ACL_UINT8: return storeFI(static_cast<uint8_t*>(base) + offset, n, src);
    case ACL_INT16: return storeFI(static_cast<int16_t*>(base) + offset, n, src);
    case ACL_INT32: return storeFI(static_cast<int32_t*>(base) + offset, n, src);
    case ACL_INT64: return storeFI(static_cast<int64_t*>(base) + offset, n, src);
    case ACL_DOUBLE: {  // exact widening
      double* p = static_cast<double*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) p[i] = src[i];
      return;
    }
    default: return;
  }
}

void storeInt(aclDataType dt, void* base, int64_t offset, int64_t n, const int64_t* src) {
  if (n <= 0) return;
  switch (dt) {
    case ACL_BOOL: {
      uint8_t* p = static_cast<uint8_t*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) p[i] = src[i] != 0 ? 1 : 0;
      return;
    }
    case ACL_INT8: return storeII(static_cast<int8_t*>(base) + offset, n, src);
    case ACL_UINT8: return storeII(static_cast<uint8_t*>(base) + offset, n, src);
    case ACL_INT16: return storeII(static_cast<int16_t*>(base) + offset, n, src);
    case ACL_INT32: return storeII(static_cast<int32_t*>(base) + offset, n, src);
    case ACL_INT64: return storeII(static_cast<int64_t*>(base) + offset, n, src);
    case ACL_DOUBLE: {  // int64 -> float64 is one RNE rounding (exact below 2^53)
      double* p = static_cast<double*>(base) + offset;
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>(src[i]);
      return;
    }
    default: {
      // Integer -> float storage: int64 -> fp32 is one RNE rounding.
      float tmp[256];
      for (int64_t done = 0; done < n; done += 256) {
        int64_t m = n - done < 256 ? n - done : 256;
        for (int64_t i = 0; i < m; ++i) tmp[i] = static_cast<float>(src[done + i]);
        storeFloat(dt, base, offset + done, m, tmp);
      }
      return;
    }
  }
}

}  // namespace ascend_sim
