// Inputs and expected outputs for the HCCL correctness suites. Reduction
// inputs are chosen so that every reduction order gives the same bits
// (integers wrap; floats are small integers, or powers of two for PROD), so
// results are compared bit for bit against a host reference.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ascend_sim/hccl.h"
#include "common/dtype.h"

namespace ascend_sim {
namespace test {

inline aclDataType aclTypeOf(HcclDataType dt) {
  switch (dt) {
    case HCCL_DATA_TYPE_INT8: return ACL_INT8;
    case HCCL_DATA_TYPE_INT32: return ACL_INT32;
    case HCCL_DATA_TYPE_FP16: return ACL_FLOAT16;
    case HCCL_DATA_TYPE_BFP16: return ACL_BF16;
    case HCCL_DATA_TYPE_FP32: return ACL_FLOAT;
    default: return ACL_DT_UNDEFINED;
  }
}

inline size_t elemSize(HcclDataType dt) {
  switch (dt) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    default: return 8;
  }
}

inline bool isIntType(HcclDataType dt) { return dt == HCCL_DATA_TYPE_INT8 || dt == HCCL_DATA_TYPE_INT32; }

// Rank r's element i (global index) for a reduction test.
inline double sampleValue(HcclDataType dt, HcclReduceOp op, int r, uint64_t i) {
  if (dt == HCCL_DATA_TYPE_INT8) return static_cast<double>((r * 31 + i * 17) % 201) - 100;
  if (dt == HCCL_DATA_TYPE_INT32) return static_cast<double>((r * 7919 + i * 104729) % 2001) - 1000;
  if (op == HCCL_REDUCE_PROD) {
    static const double kPow2[] = {-2, -1, -0.5, 0.5, 1, 2};
    return kPow2[(r + i * 5) % 6];
  }
  return static_cast<double>((r * 5 + i * 3) % 17) - 8;
}

inline std::vector<uint8_t> encode(HcclDataType dt, const std::vector<double>& v) {
  std::vector<uint8_t> out(v.size() * elemSize(dt) + 1);
  const aclDataType at = aclTypeOf(dt);
  if (isIntType(dt)) {
    std::vector<int64_t> w(v.begin(), v.end());
    storeInt(at, out.data(), 0, static_cast<int64_t>(w.size()), w.data());
  } else {
    std::vector<float> w(v.begin(), v.end());
    storeFloat(at, out.data(), 0, static_cast<int64_t>(w.size()), w.data());
  }
  out.pop_back();
  return out;
}

// n elements of rank r starting at global index first.
inline std::vector<uint8_t> sampleBuffer(HcclDataType dt, HcclReduceOp op, int r, uint64_t n, uint64_t first = 0) {
  std::vector<double> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = sampleValue(dt, op, r, first + i);
  return encode(dt, v);
}

// The reduction over ranks 0..p-1 of elements [first, first + n).
inline std::vector<uint8_t> expectedReduction(HcclDataType dt, HcclReduceOp op, int p, uint64_t n,
                                              uint64_t first = 0) {
  std::vector<double> v(n);
  for (uint64_t i = 0; i < n; ++i) {
    if (isIntType(dt)) {
      uint64_t acc = static_cast<uint64_t>(static_cast<int64_t>(sampleValue(dt, op, 0, first + i)));
      for (int r = 1; r < p; ++r) {
        const auto x = static_cast<int64_t>(sampleValue(dt, op, r, first + i));
        const auto a = static_cast<int64_t>(acc);
        switch (op) {
          case HCCL_REDUCE_SUM: acc += static_cast<uint64_t>(x); break;
          case HCCL_REDUCE_PROD: acc *= static_cast<uint64_t>(x); break;
          case HCCL_REDUCE_MAX: acc = static_cast<uint64_t>(a > x ? a : x); break;
          case HCCL_REDUCE_MIN: acc = static_cast<uint64_t>(a < x ? a : x); break;
        }
      }
      // Wrap to the dtype width (two's complement), as the device does.
      const int bits = dt == HCCL_DATA_TYPE_INT8 ? 8 : 32;
      int64_t w = static_cast<int64_t>(acc << (64 - bits)) >> (64 - bits);
      v[i] = static_cast<double>(w);
    } else {
      double acc = sampleValue(dt, op, 0, first + i);
      for (int r = 1; r < p; ++r) {
        const double x = sampleValue(dt, op, r, first + i);
        switch (op) {
          case HCCL_REDUCE_SUM: acc += x; break;
          case HCCL_REDUCE_PROD: acc *= x; break;
          case HCCL_REDUCE_MAX: acc = acc > x ? acc : x; break;
          case HCCL_REDUCE_MIN: acc = acc < x ? acc : x; break;
        }
      }
      v[i] = acc;
    }
  }
  return encode(dt, v);
}

// Bytes for a data-movement test: rank r's byte i.
inline std::vector<uint8_t> patternBytes(int r, size_t n, size_t first = 0, int salt = 0) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(r * 131 + (first + i) * 7 + salt * 29 + 13);
  return v;
}

// "" if equal, else where the first difference is.
inline std::string firstMismatch(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, size_t elem) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "element " + std::to_string(i / elem) + " (byte " + std::to_string(i) + "): got " +
             std::to_string(got[i]) + ", want " + std::to_string(want[i]);
  return "";
}

}  // namespace test
}  // namespace ascend_sim
