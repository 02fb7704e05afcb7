// GroupedMatmul (OPS.md "Mixture-of-experts kernels"), on the Cube: many
// independent matrix products of different sizes in one launch, the experts
// of a mixture-of-experts layer (npu_grouped_matmul).
//
// Note [Grouped matmul operands]
// Inputs x_0.., weight_0.., and optionally bias_0.. (attrs x_num and
// weight_num give the first two counts; the rest are biases, one per weight
// or none). Each group g multiplies A_g [m, k] by B_g [k, n], adds bias_g
// [n] in fp32 and rounds once to x's dtype:
//   group_type 0 (split M, the forward): B_g = weight_g ([k, n], or [n, k]
//     read transposed with attr transpose_weight). A_g = x_g when there are
//     as many x as weights, or rows [start_g, end_g) of the one x [M, k] where
//     end_g = group_list[g] (cumulative, attr; start_0 = 0). x_g of any rank
//     >= 2 is taken as [rows, k] when every tensor is separate.
//   group_type 2 (split K, a weight gradient): one x [M, k] and one weight
//     [M, n], A_g = x[start_g:end_g]^T (attr transpose_x = true) and B_g =
//     weight[start_g:end_g]: y_g [k, n] = the sum over the group's rows.
// Outputs: split_item 0 / 1 give one y per group (y_g [m_g, n_g], x_g's
// leading dims); 2 / 3 give one y: the groups' rows stacked (group_type 0:
// [M, n], every n equal; group_type 2: [groups, k, n]).
//
// Note [Quantised groups]
// After the biases come, per weight, the lists scale, offset,
// antiquant_scale, antiquant_offset (attrs bias_num, scale_num, offset_num,
// antiquant_scale_num, antiquant_offset_num: 0 or weight_num each; bias_num
// defaults to what is left). group_type 0 only, weights not transposed:
//   scale given (A8W8): x and weights int8, bias int32; each group is
//     QuantBatchMatmulV3's product (Note [Quantised products]): exact int32
//     x·w + bias, then y = acc·scale (fp16 / bf16) or clamp(rint(acc·scale +
//     offset)) (int8; offset only here); scale fp32 or int64 quant params,
//     [1] or [n]; attr `dtype` is y's (int8 by default). Cube at the int8 rate.
//   antiquant_scale given (A16W8): x fp16 / bf16, weights int8, each group
//     WeightQuantBatchMatmulV2's: W = (w + antiquant_offset)·antiquant_scale
//     ([1] or [n], x's dtype) rounded to x's dtype, y = x·W + bias (x's dtype
//     or fp32), rounded once to x's dtype.
#include <algorithm>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/linalg/cube_gemm.h"
#include "ops/linalg/quant_util.h"

namespace ascend_sim {
namespace {

enum class QuantMode { kNone, kInt8, kWeightOnly };

struct GroupProduct {
  GmMatrix a, b;
  int64_t m = 0, n = 0, k = 0;
  const TensorArg* bias = nullptr;
  const TensorArg *x = nullptr, *w = nullptr;           // the group's operands (quantised modes)
  const TensorArg *scale = nullptr, *offset = nullptr;  // scale / antiquant_scale and its offset
  // An A8W8 group (int8 x with a scale); a scale with float x is A16W8's antiquant_scale.
  bool int8() const { return scale != nullptr && x->dtype == ACL_INT8; }
  const TensorArg* y = nullptr;
  int64_t y_offset = 0;  // element offset of the group's result in y
};

std::string indexed(const char* name, size_t i) { return std::string(name) + "_" + std::to_string(i); }

// The optional per-weight lists after x and the weights (Note [Quantised groups]).
struct GroupLists {
  int64_t bias = 0, scale = 0, offset = 0, aq_scale = 0, aq_offset = 0;  // first input index of each, or -1
  QuantMode mode = QuantMode::kNone;
};

GroupLists listsOf(const OpCall& call, int64_t x_num, int64_t w_num) {
  const int64_t total = static_cast<int64_t>(call.inputs.size());
  const char* list_names[] = {"bias_num", "scale_num", "offset_num", "antiquant_scale_num", "antiquant_offset_num"};
  int64_t all[5], listed = 0;  // the lists' lengths, in input order
  for (int i = 1; i < 5; ++i) listed += all[i] = attrInt(call, list_names[i], 0);
  all[0] = attrInt(call, "bias_num", total - x_num - w_num - listed);  // default: the inputs left over
  if (x_num < 1 || w_num < 1 || all[0] < 0 || x_num + w_num + all[0] + listed != total)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::to_string(total) + " inputs do not split into x_num = " + std::to_string(x_num) +
             " x, weight_num = " + std::to_string(w_num) + " weights and none or one bias (scale, offset, " +
             "antiquant_scale, antiquant_offset) per weight");
  int64_t at = x_num + w_num, first[5];
  for (int i = 0; i < 5; ++i) {
    if (all[i] != 0 && all[i] != w_num)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           std::string("attr ") + list_names[i] + " = " + std::to_string(all[i]) +
               " must be 0 or weight_num = " + std::to_string(w_num));
    first[i] = all[i] ? at : -1;
    at += all[i];
  }
  GroupLists l{first[0], first[1], first[2], first[3], first[4]};
  if (l.scale >= 0 && l.aq_scale >= 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "scale (int8 x) and antiquant_scale (int8 weights only) exclude each other");
  if ((l.offset >= 0 && l.scale < 0) || (l.aq_offset >= 0 && l.aq_scale < 0))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "an offset list needs its scale list (scale / antiquant_scale)");
  l.mode = l.scale >= 0 ? QuantMode::kInt8 : l.aq_scale >= 0 ? QuantMode::kWeightOnly : QuantMode::kNone;
  return l;
}

// x, weight, bias and y dtypes of a quantised group list (Note [Quantised groups]).
void checkQuantDtypes(const OpCall& call, const GroupLists& l, int64_t x_num, int64_t w_num) {
  const TensorArg& x0 = call.inputs[0];
  checkDtype(call, x0, "input x_0", l.mode == QuantMode::kInt8 ? kInt8Type : dtBit(ACL_FLOAT16) | dtBit(ACL_BF16));
  for (int64_t i = 0; i < x_num; ++i) checkSameDtype(call, x0, "x_0", call.inputs[i], indexed("input x", i));
  for (int64_t g = 0; g < w_num; ++g) {
    checkDtype(call, call.inputs[x_num + g], indexed("input weight", g), kInt8Type);
    if (l.bias >= 0)
      checkDtype(call, call.inputs[l.bias + g], indexed("input bias", g),
                 l.mode == QuantMode::kInt8 ? dtBit(ACL_INT32) : dtBit(x0.dtype) | dtBit(ACL_FLOAT));
    if (l.mode == QuantMode::kInt8) {
      checkDtype(call, call.inputs[l.scale + g], indexed("input scale", g), dtBit(ACL_FLOAT) | dtBit(ACL_INT64));
      if (l.offset >= 0) checkDtype(call, call.inputs[l.offset + g], indexed("input offset", g), dtBit(ACL_FLOAT));
    } else {
      checkSameDtype(call, x0, "x_0", call.inputs[l.aq_scale + g], indexed("input antiquant_scale", g));
      if (l.aq_offset >= 0)
        checkSameDtype(call, x0, "x_0", call.inputs[l.aq_offset + g], indexed("input antiquant_offset", g));
    }
  }
  if (attrInt(call, "group_type", 0) != 0 || attrBool(call, "transpose_weight", false))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "the quantised groups take group_type 0 and weights as [k, n]");
}

// y's dtype: x's, or attr `dtype` (int8 default; fp16, bf16) for int8 x.
aclDataType outputDtypeOf(const OpCall& call, const GroupLists& l) {
  if (l.mode != QuantMode::kInt8) return call.inputs[0].dtype;
  const aclDataType dt = quantOutputDtypeOf(call);
  if (dt != ACL_INT8 && l.offset >= 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "offset is for an int8 y (requantisation)");
  return dt;
}

// Every group's operands, checked (shapes, dtypes, the group list).
std::vector<GroupProduct> groupsOf(const OpCall& call) {
  const int64_t x_num = attrInt(call, "x_num", 1), w_num = attrInt(call, "weight_num", 1);
  const int64_t total = static_cast<int64_t>(call.inputs.size());
  const GroupLists lists = listsOf(call, x_num, w_num);
  const int64_t group_type = attrInt(call, "group_type", 0), split_item = attrInt(call, "split_item", 0);
  if (group_type != 0 && group_type != 2)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr group_type = " + std::to_string(group_type) + " must be 0 or 2");
  if (split_item < 0 || split_item > 3)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr split_item = " + std::to_string(split_item) + " must be 0..3");
  const bool trans_w = attrBool(call, "transpose_weight", false), trans_x = attrBool(call, "transpose_x", false);
  const std::vector<int64_t> ends = attrInts(call, "group_list", {});
  const bool single_x = x_num == 1 && (w_num > 1 || !ends.empty() || group_type == 2);
  const int64_t groups = group_type == 2 ? static_cast<int64_t>(ends.size()) : w_num;
  const TensorArg& x0 = call.inputs[0];
  if (lists.mode != QuantMode::kNone) checkQuantDtypes(call, lists, x_num, w_num);
  const aclDataType y_dtype = outputDtypeOf(call, lists);
  if (lists.mode == QuantMode::kNone) checkDtype(call, x0, "input x_0", kFloatTypes);
  for (int64_t i = 0; lists.mode == QuantMode::kNone && i < total; ++i) {
    const bool is_bias = i >= x_num + w_num;
    const std::string name =
        i < x_num ? indexed("input x", i)
                  : (is_bias ? indexed("input bias", i - x_num - w_num) : indexed("input weight", i - x_num));
    if (is_bias)
      checkDtype(call, call.inputs[i], name, kFloatTypes);
    else
      checkSameDtype(call, x0, "x_0", call.inputs[i], name);
  }
  if (group_type == 2 && (x_num != 1 || w_num != 1 || !trans_x || trans_w || total != 2))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "group_type 2 (split K) takes one x read transposed (transpose_x = true), one weight and no bias");
  if (group_type == 0 && trans_x) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "transpose_x needs group_type 2");
  if (!single_x && x_num != w_num)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "x_num = " + std::to_string(x_num) +
             " must be 1 (split by group_list) or weight_num = " + std::to_string(w_num));
  if (single_x && (x0.shape.size() != 2 || static_cast<int64_t>(ends.size()) != groups))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "one x split into " + std::to_string(groups) + " groups must be [M, k] with a group_list of " +
             std::to_string(groups) + " cumulative row ends, got x " + shapeToString(x0.shape) + " and " +
             std::to_string(ends.size()) + " ends");
  if (!single_x && !ends.empty())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "group_list splits one x; there are " + std::to_string(x_num));
  if (single_x) {
    int64_t prev = 0;
    for (int64_t e : ends) {
      if (e < prev)
        fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
             "group_list must be non-decreasing row ends, got " + shapeToString(ends));
      prev = e;
    }
    if (prev != x0.shape[0])
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "group_list's last end " + std::to_string(prev) + " must be x's rows " + std::to_string(x0.shape[0]));
  }
  const bool single_y = split_item >= 2;
  const size_t want_outputs = single_y ? 1 : static_cast<size_t>(groups);
  if (call.outputs.size() != want_outputs)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "split_item " + std::to_string(split_item) + " with " + std::to_string(groups) + " groups gives " +
             std::to_string(want_outputs) + " outputs, got " + std::to_string(call.outputs.size()));

  std::vector<GroupProduct> out(static_cast<size_t>(groups));
  int64_t y_rows = 0, common_n = -1;
  for (int64_t g = 0; g < groups; ++g) {
    GroupProduct& p = out[g];
    const int64_t start = single_x && g > 0 ? ends[g - 1] : 0;
    const TensorArg& w = call.inputs[x_num + (group_type == 2 ? 0 : g)];
    if (group_type == 2) {
      const TensorArg& x = call.inputs[0];
      if (w.shape.size() != 2 || w.shape[0] != x.shape[0])
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             "weight_0 " + shapeToString(w.shape) + " must be [M, n] with x's M = " + std::to_string(x.shape[0]));
      p.m = x.shape[1];
      p.k = ends[g] - start;
      p.n = w.shape[1];
      p.a = GmMatrix{x.dtype, x.data, start * x.shape[1], 1, x.shape[1]};
      p.b = GmMatrix{w.dtype, w.data, start * p.n, p.n, 1};
    } else {
      const TensorArg& x = call.inputs[single_x ? 0 : g];
      if (x.shape.size() < 2 || x.shape.size() > 6 || w.shape.size() != 2)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             indexed("x", single_x ? 0 : g) + " " + shapeToString(x.shape) + " must be 2-D to 6-D and " +
                 indexed("weight", g) + " " + shapeToString(w.shape) + " 2-D");
      p.k = x.shape.back();
      p.m = single_x ? ends[g] - start : x.numel() / std::max<int64_t>(p.k, 1);
      if (p.k == 0) p.m = numelOf(Shape(x.shape.begin(), x.shape.end() - 1));
      p.n = trans_w ? w.shape[0] : w.shape[1];
      if ((trans_w ? w.shape[1] : w.shape[0]) != p.k)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             indexed("weight", g) + " " + shapeToString(w.shape) + " does not multiply x rows of length " +
                 std::to_string(p.k) + (trans_w ? " (read transposed)" : ""));
      p.a = GmMatrix{x.dtype, x.data, start * p.k, p.k, 1};
      p.b = trans_w ? GmMatrix{w.dtype, w.data, 0, 1, p.k} : GmMatrix{w.dtype, w.data, 0, p.n, 1};
      if (lists.bias >= 0) {
        p.bias = &call.inputs[lists.bias + g];
        checkShapeEq(call, *p.bias, indexed("input bias", g), {p.n}, "[n] of its weight");
      }
      p.x = &x;
      p.w = &w;
      const int64_t scale_at = lists.mode == QuantMode::kInt8 ? lists.scale : lists.aq_scale;
      const int64_t offset_at = lists.mode == QuantMode::kInt8 ? lists.offset : lists.aq_offset;
      const bool weight_only = lists.mode == QuantMode::kWeightOnly;
      if (scale_at >= 0) {
        p.scale = &call.inputs[scale_at + g];
        checkPerChannel(call, *p.scale, indexed(weight_only ? "input antiquant_scale" : "input scale", g), p.n);
      }
      if (offset_at >= 0) {
        p.offset = &call.inputs[offset_at + g];
        const std::string name = indexed(weight_only ? "input antiquant_offset" : "input offset", g);
        checkPerChannel(call, *p.offset, name, p.n);
        if (weight_only) checkShapeEq(call, *p.offset, name, p.scale->shape, "antiquant_scale's shape");
      }
    }
    if (common_n >= 0 && single_y && group_type == 0 && p.n != common_n)
      fail(
          call, ACL_ERROR_OP_INPUT_NOT_MATCH,
          "one output y needs every weight's n equal, got " + std::to_string(common_n) + " and " + std::to_string(p.n));
    common_n = p.n;
    p.y = &call.outputs[single_y ? 0 : g];
    p.y_offset = single_y ? y_rows * p.n : 0;
    y_rows += p.m;
    const std::string yname = single_y ? "output y" : indexed("output y", g);
    checkDtype(call, *p.y, yname, dtBit(y_dtype));
    if (!single_y) {
      Shape want{p.m, p.n};
      if (!single_x && group_type == 0) {
        want = call.inputs[g].shape;
        want.back() = p.n;
      }
      checkShapeEq(call, *p.y, yname, want, "its group's [rows, n]");
    }
  }
  if (single_y) {
    const Shape want = group_type == 2 ? Shape{groups, x0.shape[1], common_n < 0 ? 0 : common_n}
                                       : Shape{y_rows, common_n < 0 ? 0 : common_n};
    checkShapeEq(call, call.outputs[0], "output y", want, "the groups' results stacked");
  }
  return out;
}

void validateGroupedMatmul(const OpCall& call) {
  checkArity(call, 2, 1u << 12, call.outputs.size() == 0 ? 1 : call.outputs.size());
  groupsOf(call);
  if (call.attrs.has("output_dtype") && attrInt(call, "output_dtype") != -1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr output_dtype is not GroupedMatmul's: y's dtype is attr dtype");
}

// One A8W8 group: exact int32 rows and QuantBatchMatmulV3's epilogue.
void int8Group(const GroupProduct& p) {
  std::vector<int64_t> bias(static_cast<size_t>(p.n), 0), acc(static_cast<size_t>(p.n));
  if (p.bias != nullptr) loadInt(ACL_INT32, p.bias->data, 0, 1, p.n, bias.data());
  const QuantChannels ch = quantChannelsOf(*p.scale, p.offset, p.n);
  const auto* a = static_cast<const int8_t*>(p.x->data) + p.a.offset;
  const auto* b = static_cast<const int8_t*>(p.w->data);
  for (int64_t i = 0; i < p.m; ++i) {
    int8RowProduct(a + i * p.k, b, p.k, p.n, bias, acc);
    storeQuantRow(*p.y, p.y_offset + i * p.n, acc, ch, 1.0f);
  }
}

void computeGroupedMatmul(const OpCall& call) {
  const std::vector<GroupProduct> groups = groupsOf(call);
  const CubeRounding rnd = cubeRoundingOf(call);
  std::vector<UnitCounters> cnt(groups.size());
  parallelFor(static_cast<int64_t>(groups.size()), [&](int64_t g) {
    const GroupProduct& p = groups[g];
    if (p.int8()) return int8Group(p);
    std::vector<uint8_t> dequantized;  // A16W8: the group's weight in x's dtype
    GmMatrix b = p.b;
    if (p.scale != nullptr) {
      dequantized = dequantizedWeight(*p.w, p.k, p.n, *p.scale, p.offset, 0, p.x->dtype);
      b = GmMatrix{p.x->dtype, dequantized.data(), 0, p.n, 1};
    }
    std::vector<float> c(static_cast<size_t>(p.m * p.n), 0.0f);
    if (p.m > 0 && p.n > 0 && p.k > 0) cubeGemm(p.a, b, p.m, p.n, p.k, rnd, c.data(), &cnt[g]);
    if (p.bias != nullptr) {
      std::vector<float> bias(static_cast<size_t>(p.n));
      loadFloat(p.bias->dtype, p.bias->data, 0, 1, p.n, bias.data());
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) c[i * p.n + j] += bias[j];
    }
    storeFloat(p.y->dtype, p.y->data, p.y_offset, p.m * p.n, c.data());
  });
  for (const UnitCounters& u : cnt)
    if (u.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costGroupedMatmul(const OpCall& call) {
  KernelCost c;
  c.core = CoreType::kAiCore;
  for (const GroupProduct& p : groupsOf(call)) {
    if (p.int8()) {
      c.cube_int8_macs += paddedInt8Macs(p.m, p.n, p.k);
    } else {
      c.cube_macs += cubeUnit().padded_macs(p.m, p.n, p.k);
      if (p.scale != nullptr) c.vector_repeats += 2.0 * vectorUnit().repeats(p.k * p.n, p.x->dtype);  // dequantise
    }
    c.flops += 2.0 * static_cast<double>(p.m * p.n) * static_cast<double>(p.k);
  }
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GroupedMatmul", &validateGroupedMatmul, &computeGroupedMatmul,
                                     &costGroupedMatmul});

}  // namespace
}  // namespace ascend_sim
