// npu_grouped_matmul: the experts' products of a mixture-of-experts layer in
// ONE GroupedMatmul launch on the Cube (Note [Grouped matmul operands] in the
// simulator), with torch_npu's signature (the 2.1 line's, whose bias / scale /
// ... lists are optional; the 1.11 line's calls, which pass them all, run
// unchanged).
//
// Note [npu_grouped_matmul's groups]
// x and weight are lists; y is one tensor per group (split_item 0 / 1) or one
// tensor of the groups' rows stacked (2 / 3). One x with a group_list (its
// cumulative row ends, e.g. npu_moe_compute_expert_tokens' result as a list)
// is split by rows, one group per weight; otherwise there is an x per weight,
// of any rank 2..6 (its leading dims kept in y). Float x / weight of one
// dtype; bias (one per weight, [n]) of any float dtype. The int8 paths are
// torch_npu's (Note [Quantised groups] in the simulator): int8 x and weights
// with int32 bias, per-channel scale (fp32, or int64 from
// npu_trans_quant_param) and, for an int8 y, offset; y int8 (default) or
// output_dtype float16 / bfloat16 — or fp16 / bf16 x with int8 weights and
// antiquant_scale / antiquant_offset. They have no backward, as in torch_npu:
// an input that requires grad raises. Otherwise differentiable in x, weight and bias: the backward of a split x is three
// GroupedMatmul launches (dx with the weights read transposed; every
// dweight in one split-K product x_g^T dy_g; every dbias in one more, with a
// column of ones for x); separate tensors take dx in one launch and a MatMul
// (and a sum for the bias) per group.
#include <torch/csrc/autograd/custom_function.h>
#include <algorithm>
#include <numeric>
#include <torch/library.h>

#include "MoeOps.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

constexpr const char* kOp = "npu_grouped_matmul";

bool isFloat(const at::Tensor& t) {
  return t.scalar_type() == at::kFloat || t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16;
}

bool singleX(at::TensorList x, at::TensorList weight, at::IntArrayRef group_list) {
  return x.size() == 1 && (weight.size() > 1 || !group_list.empty());
}

// The rows of every group's x, [m, k] each.
std::vector<int64_t> groupRows(at::TensorList x, at::TensorList weight, at::IntArrayRef group_list) {
  std::vector<int64_t> rows;
  if (singleX(x, weight, group_list)) {
    for (size_t g = 0; g < group_list.size(); ++g) rows.push_back(group_list[g] - (g ? group_list[g - 1] : 0));
  } else {
    for (const at::Tensor& t : x) rows.push_back(t.size(-1) == 0 ? 0 : t.numel() / t.size(-1));
  }
  return rows;
}

// The dtype rules of the plain and the quantised groups, and the lists' lengths and shapes.
void checkDtypes(at::TensorList x, at::TensorList weight, at::TensorList bias, const GroupedQuant& q) {
  const at::Tensor& x0 = x[0];
  const size_t nw = weight.size();
  for (const auto& [name, list] : {std::pair<const char*, const std::vector<at::Tensor>*>{"scale", &q.scale},
                                   {"offset", &q.offset},
                                   {"antiquant_scale", &q.antiquant_scale},
                                   {"antiquant_offset", &q.antiquant_offset}})
    TORCH_CHECK(list->empty() || list->size() == nw, kOp, ": ", name, " has ", list->size(), " tensors for ", nw,
                " weights");
  TORCH_CHECK(!(q.int8() && q.weightOnly()), kOp,
              ": scale (int8 x) and antiquant_scale (int8 weights only) exclude each other");
  TORCH_CHECK((q.offset.empty() || q.int8()) && (q.antiquant_offset.empty() || q.weightOnly()), kOp,
              ": offset needs scale, antiquant_offset needs antiquant_scale");
  if (!q.any()) {
    TORCH_CHECK(isFloat(x0), kOp, ": x must be float32, float16 or bfloat16, got ", x0.scalar_type(),
                " (int8 x needs scale: the quantised path)");
    TORCH_CHECK(!q.output_dtype.has_value() || *q.output_dtype == x0.scalar_type(), kOp, ": output_dtype ",
                *q.output_dtype, " differs from x's dtype ", x0.scalar_type(),
                " (only int8 x with scale gives another)");
    return;
  }
  const bool int8 = q.int8();
  TORCH_CHECK(
      int8 ? x0.scalar_type() == at::kChar : (x0.scalar_type() == at::kHalf || x0.scalar_type() == at::kBFloat16), kOp,
      int8 ? ": scale quantises int8 x and weights; x is " : ": antiquant_scale takes float16 or bfloat16 x, got ",
      x0.scalar_type());
  const auto out = q.output_dtype.value_or(int8 ? at::kChar : x0.scalar_type());
  TORCH_CHECK(int8 ? (out == at::kChar || out == at::kHalf || out == at::kBFloat16) : out == x0.scalar_type(), kOp,
              ": output_dtype ", out, int8 ? " must be int8, float16 or bfloat16" : " must be x's dtype");
  TORCH_CHECK(q.offset.empty() || out == at::kChar, kOp, ": offset requantises to an int8 y; output_dtype is ", out);
  for (size_t g = 0; g < nw; ++g) {
    TORCH_CHECK(weight[g].scalar_type() == at::kChar && weight[g].dim() == 2, kOp,
                ": the quantised paths take 2-D int8 weights; weight[", g, "] is ", weight[g].scalar_type(),
                " of shape ", weight[g].sizes());
    const int64_t n = weight[g].size(1);
    if (!bias.empty()) {
      const auto bt = bias[g].scalar_type();
      TORCH_CHECK(int8 ? bt == at::kInt : (bt == x0.scalar_type() || bt == at::kFloat), kOp, ": bias[", g, "] must be ",
                  int8 ? "int32" : "x's dtype or float32", ", got ", bt);
    }
    auto perChannel = [&](const char* name, const at::Tensor& t, std::initializer_list<at::ScalarType> dtypes) {
      TORCH_CHECK(std::find(dtypes.begin(), dtypes.end(), t.scalar_type()) != dtypes.end(), kOp, ": ", name, "[", g,
                  "] has the wrong dtype ", t.scalar_type());
      TORCH_CHECK(t.dim() == 1 && (t.size(0) == 1 || t.size(0) == n), kOp, ": ", name, "[", g, "] must be [1] or [", n,
                  "] (per output column), got ", t.sizes());
    };
    if (int8) {
      perChannel("scale", q.scale[g], {at::kFloat, at::kLong});
      if (!q.offset.empty()) perChannel("offset", q.offset[g], {at::kFloat});
    } else {
      perChannel("antiquant_scale", q.antiquant_scale[g], {x0.scalar_type()});
      if (!q.antiquant_offset.empty()) {
        perChannel("antiquant_offset", q.antiquant_offset[g], {x0.scalar_type()});
        TORCH_CHECK(q.antiquant_offset[g].sizes() == q.antiquant_scale[g].sizes(), kOp, ": antiquant_offset[", g, "] ",
                    q.antiquant_offset[g].sizes(), " must have antiquant_scale[", g, "]'s shape ",
                    q.antiquant_scale[g].sizes());
      }
    }
  }
}

void checkGroups(at::TensorList x, at::TensorList weight, at::TensorList bias, at::IntArrayRef group_list,
                 int64_t split_item, const GroupedQuant& q) {
  TORCH_CHECK(!x.empty() && !weight.empty() && x.size() <= 128 && weight.size() <= 128, kOp,
              ": x and weight must be lists of 1 to 128 tensors, got ", x.size(), " and ", weight.size());
  TORCH_CHECK(split_item >= 0 && split_item <= 3, kOp, ": split_item = ", split_item, " must be 0, 1, 2 or 3");
  const bool single = singleX(x, weight, group_list);
  TORCH_CHECK(single || x.size() == weight.size(), kOp, ": ", x.size(), " x for ", weight.size(),
              " weights: give one x per weight, or one x split by group_list");
  TORCH_CHECK(group_list.empty() || (x.size() == 1 && group_list.size() == weight.size()), kOp, ": group_list (",
              group_list.size(), " row ends) splits one x into one group per weight (", weight.size(), ")");
  TORCH_CHECK(bias.empty() || bias.size() == weight.size(), kOp, ": bias has ", bias.size(), " tensors for ",
              weight.size(), " weights");
  const at::Tensor& x0 = x[0];
  checkDtypes(x, weight, bias, q);
  for (size_t g = 0; g < weight.size(); ++g) {
    const at::Tensor& xg = x[single ? 0 : g];
    const at::Tensor& w = weight[g];
    TORCH_CHECK(xg.scalar_type() == x0.scalar_type() && (q.any() || w.scalar_type() == x0.scalar_type()), kOp, ": x[",
                g, "] and weight[", g, "] must have x[0]'s dtype ", x0.scalar_type(), ", got ", xg.scalar_type(),
                " and ", w.scalar_type());
    TORCH_CHECK(w.dim() == 2 && xg.dim() >= 2 && xg.dim() <= 6 && (!single || xg.dim() == 2), kOp, ": weight[", g,
                "] must be 2-D and x[", g, "] 2-D to 6-D (2-D when split by group_list), got ", w.sizes(), " and ",
                xg.sizes());
    TORCH_CHECK(xg.size(-1) == w.size(0), kOp, ": x[", single ? 0 : g, "] of shape ", xg.sizes(),
                " does not multiply weight[", g, "] of shape ", w.sizes());
    if (!bias.empty())
      TORCH_CHECK((q.any() || isFloat(bias[g])) && bias[g].dim() == 1 && bias[g].size(0) == w.size(1), kOp, ": bias[",
                  g, "] must be a ", q.int8() ? "int32" : "float", " [", w.size(1), "], got ", bias[g].scalar_type(),
                  " ", bias[g].sizes());
    if (split_item >= 2)
      TORCH_CHECK(w.size(1) == weight[0].size(1) && (single || xg.dim() == 2), kOp, ": split_item ", split_item,
                  " stacks the groups into one y: every weight needs weight[0]'s ", weight[0].size(1),
                  " columns and every x 2 dims, got weight[", g, "] ", w.sizes(), " and x ", xg.sizes());
  }
  if (single) {
    int64_t prev = 0;
    for (int64_t e : group_list) {
      TORCH_CHECK(e >= prev, kOp, ": group_list must be non-decreasing cumulative row ends, got ", group_list);
      prev = e;
    }
    TORCH_CHECK(prev == x0.size(0), kOp, ": group_list's last row end ", prev, " must equal x's rows ", x0.size(0));
  }
}

}  // namespace

std::vector<at::Tensor> groupedMatmul(at::TensorList x, at::TensorList weight, at::TensorList bias,
                                      at::IntArrayRef group_list, int64_t split_item, bool transpose_weight,
                                      int64_t group_type, const GroupedQuant& quant) {
  const at::Tensor& x0 = x[0];
  const at::ScalarType y_dtype = quant.int8() ? quant.output_dtype.value_or(at::kChar) : x0.scalar_type();
  std::vector<at::Tensor> y;
  if (group_type == 2) {  // [groups, k, n]
    y.push_back(torch_npu::emptyNpu({static_cast<int64_t>(group_list.size()), x0.size(1), weight[0].size(1)},
                                    x0.scalar_type(), x0.device()));
  } else {
    const std::vector<int64_t> rows = groupRows(x, weight, group_list);
    const bool single = singleX(x, weight, group_list);
    int64_t total = 0;
    for (size_t g = 0; g < weight.size(); ++g) {
      const int64_t n = transpose_weight ? weight[g].size(0) : weight[g].size(1);
      total += rows[g];
      if (split_item >= 2) continue;
      std::vector<int64_t> shape =
          single ? std::vector<int64_t>{rows[g], n} : std::vector<int64_t>(x[g].sizes().begin(), x[g].sizes().end());
      shape.back() = n;
      y.push_back(torch_npu::emptyNpu(shape, y_dtype, x0.device()));
    }
    if (split_item >= 2)
      y.push_back(
          torch_npu::emptyNpu({total, transpose_weight ? weight[0].size(0) : weight[0].size(1)}, y_dtype, x0.device()));
  }
  torch_npu::OpCommand cmd("GroupedMatmul");
  for (const at::Tensor& t : x) cmd.Input(t);
  for (const at::Tensor& t : weight) cmd.Input(t);
  for (const at::Tensor& t : bias) cmd.Input(t);
  const std::vector<at::Tensor>* lists[] = {&quant.scale, &quant.offset, &quant.antiquant_scale,
                                            &quant.antiquant_offset};
  const char* counts[] = {"scale_num", "offset_num", "antiquant_scale_num", "antiquant_offset_num"};
  for (size_t i = 0; i < 4; ++i) {
    for (const at::Tensor& t : *lists[i]) cmd.Input(t);
    if (!lists[i]->empty()) cmd.Attr(counts[i], static_cast<int64_t>(lists[i]->size()));
  }
  if (quant.any()) cmd.Attr("bias_num", static_cast<int64_t>(bias.size()));
  if (quant.int8()) cmd.Attr("dtype", y_dtype);
  for (const at::Tensor& t : y) cmd.Output(t);
  cmd.Attr("x_num", static_cast<int64_t>(x.size()))
      .Attr("weight_num", static_cast<int64_t>(weight.size()))
      .Attr("group_list", group_list)
      .Attr("split_item", split_item)
      .Attr("group_type", group_type)
      .Attr("transpose_weight", transpose_weight)
      .Attr("transpose_x", group_type == 2)
      .Run();
  return y;
}

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The output gradients as one [M, n] (a split x) or as one 2-D tensor per group.
std::vector<at::Tensor> groupGradients(const variable_list& grads, at::TensorList weight,
                                       const std::vector<int64_t>& rows, int64_t split_item, const at::Tensor& like) {
  if (split_item >= 2) {
    const int64_t total = std::accumulate(rows.begin(), rows.end(), int64_t{0});
    const at::Tensor g = grads[0].defined() ? grads[0] : at::zeros({total, weight[0].size(1)}, like.options());
    return g.split_with_sizes(rows, 0);
  }
  std::vector<at::Tensor> per_group;
  for (size_t i = 0; i < weight.size(); ++i)
    per_group.push_back(grads[i].defined() ? grads[i].reshape({rows[i], weight[i].size(1)})
                                           : at::zeros({rows[i], weight[i].size(1)}, like.options()));
  return per_group;
}

class GroupedMatmulFunction : public torch::autograd::Function<GroupedMatmulFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, at::TensorList x, at::TensorList weight, at::TensorList bias,
                               std::vector<int64_t> group_list, int64_t split_item) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    std::vector<at::Tensor> saved(x.begin(), x.end());
    saved.insert(saved.end(), weight.begin(), weight.end());
    ctx->save_for_backward(saved);
    ctx->saved_data["nx"] = static_cast<int64_t>(x.size());
    ctx->saved_data["group_list"] = group_list;
    ctx->saved_data["split_item"] = split_item;
    ctx->saved_data["nbias"] = static_cast<int64_t>(bias.size());
    std::vector<int64_t> bias_dtypes;
    for (const at::Tensor& b : bias) bias_dtypes.push_back(static_cast<int64_t>(b.scalar_type()));
    ctx->saved_data["bias_dtypes"] = bias_dtypes;
    return groupedMatmul(x, weight, bias, group_list, split_item, false);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const int64_t nx = ctx->saved_data["nx"].toInt(), split_item = ctx->saved_data["split_item"].toInt();
    const std::vector<int64_t> group_list = ctx->saved_data["group_list"].toIntVector();
    const std::vector<at::Tensor> x(saved.begin(), saved.begin() + nx), weight(saved.begin() + nx, saved.end());
    const size_t nw = weight.size(), nb = static_cast<size_t>(ctx->saved_data["nbias"].toInt());
    const std::vector<int64_t> rows = groupRows(x, weight, group_list);
    variable_list out(x.size() + nw + nb);
    const bool single = singleX(x, weight, group_list);
    if (single) {
      // One stacked y: its gradient as it came; y per group: the groups' gradients stacked.
      const at::Tensor dy_all = split_item >= 2 && grads[0].defined()
                                    ? grads[0].contiguous()
                                    : at::cat(groupGradients(grads, weight, rows, split_item, x[0]), 0);
      out[0] = groupedMatmul({dy_all}, weight, {}, group_list, 3, true)[0];
      const at::Tensor dw = groupedMatmul({x[0]}, {dy_all}, {}, group_list, 2, false, 2)[0];
      for (size_t g = 0; g < nw; ++g) out[1 + g] = dw[g];
      if (nb > 0) {
        const at::Tensor ones = at::ones({x[0].size(0), 1}, x[0].options());
        const at::Tensor db = groupedMatmul({ones}, {dy_all}, {}, group_list, 2, false, 2)[0];
        for (size_t g = 0; g < nb; ++g) out[1 + nw + g] = db[g][0];
      }
    } else {
      const std::vector<at::Tensor> dy = groupGradients(grads, weight, rows, split_item, x[0]);
      const std::vector<at::Tensor> dx = groupedMatmul(dy, weight, {}, {}, 0, true);
      for (size_t g = 0; g < nw; ++g) {
        const at::Tensor x2d = x[g].reshape({rows[g], x[g].size(-1)});
        out[g] = dx[g].reshape(x[g].sizes());
        out[nw + g] = at::mm(x2d.t(), dy[g]);
        if (nb > 0) out[2 * nw + g] = dy[g].sum(0);
      }
    }
    const std::vector<int64_t> bias_dtypes = ctx->saved_data["bias_dtypes"].toIntVector();
    for (size_t g = 0; g < nb; ++g) {
      at::Tensor& db = out[x.size() + nw + g];
      db = db.to(static_cast<at::ScalarType>(bias_dtypes[g]));
    }
    out.insert(out.end(), {at::Tensor(), at::Tensor()});  // group_list, split_item
    return out;
  }
};

std::vector<at::Tensor> optionalList(c10::optional<at::TensorList> l) {
  return l.has_value() ? std::vector<at::Tensor>(l->begin(), l->end()) : std::vector<at::Tensor>{};
}

struct GroupedArgs {
  std::vector<at::Tensor> bias;
  std::vector<int64_t> group_list;
  int64_t split_item;
  GroupedQuant quant;
};

GroupedArgs checkedArgs(at::TensorList x, at::TensorList weight, c10::optional<at::TensorList> bias,
                        c10::optional<at::TensorList> scale, c10::optional<at::TensorList> offset,
                        c10::optional<at::TensorList> antiquant_scale, c10::optional<at::TensorList> antiquant_offset,
                        at::OptionalIntArrayRef group_list, c10::optional<int64_t> split_item,
                        c10::optional<at::ScalarType> output_dtype) {
  GroupedArgs a{optionalList(bias), {}, split_item.value_or(0), {}};
  a.quant = {optionalList(scale), optionalList(offset), optionalList(antiquant_scale), optionalList(antiquant_offset),
             output_dtype};
  if (group_list.has_value()) a.group_list.assign(group_list->begin(), group_list->end());
  checkGroups(x, weight, a.bias, a.group_list, a.split_item, a.quant);
  return a;
}

// The quantised paths have no backward (as torch_npu's): refuse an input that wants a gradient.
void checkNoGradient(at::TensorList x, const GroupedArgs& a) {
  if (!at::GradMode::is_enabled()) return;
  auto wants = [](const at::Tensor& t) { return t.defined() && t.requires_grad(); };
  bool any = std::any_of(x.begin(), x.end(), wants) || std::any_of(a.bias.begin(), a.bias.end(), wants);
  for (const auto* l : {&a.quant.scale, &a.quant.offset, &a.quant.antiquant_scale, &a.quant.antiquant_offset})
    any = any || std::any_of(l->begin(), l->end(), wants);
  TORCH_CHECK(!any, kOp,
              ": the quantised paths (scale / antiquant_scale) have no backward, as in torch_npu; run them under "
              "torch.no_grad() or on tensors that do not require grad");
}

}  // namespace

std::vector<at::Tensor> NPUCustomFunctions::npu_grouped_matmul(
    at::TensorList x, at::TensorList weight, c10::optional<at::TensorList> bias, c10::optional<at::TensorList> scale,
    c10::optional<at::TensorList> offset, c10::optional<at::TensorList> antiquant_scale,
    c10::optional<at::TensorList> antiquant_offset, at::OptionalIntArrayRef group_list,
    c10::optional<int64_t> split_item, c10::optional<at::ScalarType> output_dtype) {
  const GroupedArgs a = checkedArgs(x, weight, bias, scale, offset, antiquant_scale, antiquant_offset, group_list,
                                    split_item, output_dtype);
  return groupedMatmul(x, weight, a.bias, a.group_list, a.split_item, false, 0, a.quant);
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_grouped_matmul", [](at::TensorList x, at::TensorList weight, c10::optional<at::TensorList> bias,
                                  c10::optional<at::TensorList> scale, c10::optional<at::TensorList> offset,
                                  c10::optional<at::TensorList> antiquant_scale,
                                  c10::optional<at::TensorList> antiquant_offset, at::OptionalIntArrayRef group_list,
                                  c10::optional<int64_t> split_item, c10::optional<at::ScalarType> output_dtype) {
    const GroupedArgs a = checkedArgs(x, weight, bias, scale, offset, antiquant_scale, antiquant_offset, group_list,
                                      split_item, output_dtype);
    if (a.quant.any()) {
      checkNoGradient(x, a);
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      return groupedMatmul(x, weight, a.bias, a.group_list, a.split_item, false, 0, a.quant);
    }
    return GroupedMatmulFunction::apply(x, weight, at::TensorList(a.bias), a.group_list, a.split_item);
  });
}

}  // namespace native
}  // namespace at_npu
