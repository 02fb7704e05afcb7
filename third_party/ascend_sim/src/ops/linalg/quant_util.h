// What the int8 Cube kernels share (Note [Quantised products] in
// quant_matmul.cpp): QuantBatchMatmulV3 / WeightQuantBatchMatmulV2 and the
// quantised groups of GroupedMatmul — the per-channel parameters, the exact
// int32 row product and its dequantising / requantising epilogue, and the
// dequantised int8 weight of the weight-only (antiquant) products.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {

constexpr DtypeMask kInt8Type = dtBit(ACL_INT8);

// MACs of an int8 product on the Cube: m, n padded to 16, k to 32.
double paddedInt8Macs(int64_t m, int64_t n, int64_t k);

// t must be [1] or [n] (a per-tensor or per-output-column parameter).
void checkPerChannel(const OpCall& call, const TensorArg& t, const std::string& name, int64_t n);

// Per output column: the dequantisation scale (fp32, or an int64 quant param
// of TransQuantParamV2, Note [Quant params]) and the requantisation offset
// (the quant param's own, or `offset` [1] / [n] fp32 when given).
struct QuantChannels {
  std::vector<float> scale, offset;
};
QuantChannels quantChannelsOf(const TensorArg& scale, const TensorArg* offset, int64_t n);

// acc[j] = bias[j] + sum_t a[t] * b[t * n + j] for one int8 row of length k
// against an int8 [k, n] matrix: exact in int64 (the Cube's int32 accumulator).
void int8RowProduct(const int8_t* a, const int8_t* b, int64_t k, int64_t n, const std::vector<int64_t>& bias,
                    std::vector<int64_t>& acc);

// The epilogue of one row: fp16 / bf16 y = acc * scale[j] * row_scale rounded
// once; int8 y = clamp(rint(acc * scale[j] + offset[j]), -128, 127). Writes
// n elements of y at element offset `at`.
void storeQuantRow(const TensorArg& y, int64_t at, const std::vector<int64_t>& acc, const QuantChannels& ch,
                   float row_scale);

// attr `dtype` of an int8 product's y: int8 (the default), float16 or bfloat16.
aclDataType quantOutputDtypeOf(const OpCall& call);

// The weight-only dequantisation: W = (weight + offset) * scale of an int8
// [k, n] weight, per column (scale [1] / [n]) or per group of `group` rows
// (scale [ceil(k / group), n]), rounded to dt as the Vector unit writes it.
// offset, when given, has scale's shape (the callers check it). Returns W's
// bytes in dt.
std::vector<uint8_t> dequantizedWeight(const TensorArg& weight, int64_t k, int64_t n, const TensorArg& scale,
                                       const TensorArg* offset, int64_t group, aclDataType dt);

}  // namespace ascend_sim
