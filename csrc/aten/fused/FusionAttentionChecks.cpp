// The argument checks of npu_fusion_attention(_grad) (FusionAttention.h).
#include <algorithm>
#include <array>

#include "FusionAttention.h"

namespace at_npu {
namespace native {
namespace {

constexpr std::array<const char*, 4> kLayouts = {"BSH", "SBH", "BNSD", "BSND"};

bool isRank3(const std::string& layout) { return layout == "BSH" || layout == "SBH"; }

// (batch, positions, heads or 0 for the 3-D layouts, hidden or head size).
std::array<int64_t, 4> splitOf(const char* op, const at::Tensor& t, const char* name, const std::string& layout) {
  const int64_t rank = isRank3(layout) ? 3 : 4;
  TORCH_CHECK(t.dim() == rank, op, ": ", name, " must be ", rank, "-D for input_layout ", layout, ", got shape ",
              t.sizes());
  const auto s = t.sizes();
  if (layout == "BSH") return {s[0], s[1], 0, s[2]};
  if (layout == "SBH") return {s[1], s[0], 0, s[2]};
  if (layout == "BSND") return {s[0], s[1], s[2], s[3]};
  return {s[0], s[2], s[1], s[3]};  // BNSD
}

void checkBroadcast(const char* op, const at::Tensor& t, const char* name, const FusionAttentionDims& g,
                    bool allow_2d) {
  const std::array<int64_t, 4> full = {g.b, g.n, g.sq, g.skv};
  bool ok = t.dim() == 4 || (allow_2d && t.dim() == 2);
  for (int64_t i = 0; ok && i < t.dim(); ++i) {
    const int64_t want = full[4 - t.dim() + i];
    ok = t.size(i) == want || t.size(i) == 1;
  }
  TORCH_CHECK(ok, op, ": ", name, " of shape ", t.sizes(), " does not broadcast to [B, N, Sq, Skv] = ",
              at::IntArrayRef(full.data(), 4), allow_2d ? " (or [Sq, Skv])" : "");
}

void checkSameDevice(const char* op, const at::Tensor& query, const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.device() == query.device(), op, ": ", name, " is on ", t.device(), " but query is on ",
              query.device());
}

FusionAttentionDims dimsOf(const char* op, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                           const FusionAttentionArgs& args) {
  const std::string& layout = args.input_layout;
  TORCH_CHECK(std::find(kLayouts.begin(), kLayouts.end(), layout) != kLayouts.end(), op,
              ": input_layout must be one of BSH, SBH, BNSD, BSND, got '", layout, "'");
  TORCH_CHECK(args.head_num > 0, op, ": ", args.heads_name, " must be positive, got ", args.head_num);
  const auto q = splitOf(op, query, "query", layout), k = splitOf(op, key, "key", layout);
  TORCH_CHECK(value.sizes() == key.sizes(), op, ": value of shape ", value.sizes(), " must have key's shape ",
              key.sizes());
  FusionAttentionDims g;
  g.b = q[0], g.sq = q[1], g.skv = k[1], g.n = args.head_num;
  if (isRank3(layout)) {
    TORCH_CHECK(q[3] % args.head_num == 0, op, ": ", args.heads_name, " ", args.head_num,
                " does not divide the hidden size ", q[3], " of query ", query.sizes());
    g.d = q[3] / args.head_num;
    TORCH_CHECK(g.d > 0 && k[3] % g.d == 0, op, ": the hidden size ", k[3], " of key ", key.sizes(),
                " is not a multiple of the head size ", g.d);
    g.n_kv = k[3] / g.d;
  } else {
    TORCH_CHECK(q[2] == args.head_num, op, ": query of shape ", query.sizes(), " has ", q[2], " heads but ",
                args.heads_name, " is ", args.head_num);
    TORCH_CHECK(k[3] == q[3], op, ": key of shape ", key.sizes(), " must have the head size ", q[3], " of query");
    g.d = q[3];
    g.n_kv = k[2];
  }
  TORCH_CHECK(k[0] == g.b, op, ": key of shape ", key.sizes(), " and query of shape ", query.sizes(),
              " have different batch sizes");
  TORCH_CHECK(g.n_kv > 0 && g.n % g.n_kv == 0, op, ": key/value have ", g.n_kv,
              " heads, which must divide the ", g.n, " query heads (grouped-query attention)");
  return g;
}

}  // namespace

FusionAttentionDims checkFusionAttention(const char* op, const at::Tensor& query, const at::Tensor& key,
                                         const at::Tensor& value, const FusionAttentionArgs& args,
                                         const c10::optional<at::Tensor>& pse,
                                         const c10::optional<at::Tensor>& padding_mask,
                                         const c10::optional<at::Tensor>& atten_mask, at::OptionalIntArrayRef prefix) {
  TORCH_CHECK(query.device().type() == c10::DeviceType::PrivateUse1, op, ": expected npu tensors, got query on ",
              query.device());
  checkSameDevice(op, query, key, "key");
  checkSameDevice(op, query, value, "value");
  const auto dtype = query.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16, op,
              ": query must be float32, float16 or bfloat16, got ", dtype);
  TORCH_CHECK(key.scalar_type() == dtype && value.scalar_type() == dtype, op,
              ": query, key and value must have one dtype, got ", dtype, ", ", key.scalar_type(), " and ",
              value.scalar_type());
  TORCH_CHECK(!given(padding_mask), op, ": padding_mask is not supported (as in torch_npu); use atten_mask");
  TORCH_CHECK(!prefix.has_value() || prefix->empty(), op,
              ": prefix is only used by sparse_mode 5 (prefix), which is not supported");
  TORCH_CHECK(args.sparse_mode == 0 || args.sparse_mode == 1, op, ": sparse_mode ", args.sparse_mode,
              " is not supported (0: atten_mask and the pre_tockens/next_tockens band, 1: atten_mask only)");
  TORCH_CHECK(args.keep_prob > 0.0 && args.keep_prob <= 1.0, op, ": keep_prob must be in (0, 1], got ",
              args.keep_prob);
  const FusionAttentionDims g = dimsOf(op, query, key, value, args);
  if (given(pse)) {
    checkSameDevice(op, query, *pse, "pse");
    TORCH_CHECK(pse->scalar_type() == dtype, op, ": pse must have query's dtype ", dtype, ", got ",
                pse->scalar_type());
    checkBroadcast(op, *pse, "pse", g, false);
  }
  if (given(atten_mask)) {
    checkSameDevice(op, query, *atten_mask, "atten_mask");
    TORCH_CHECK(atten_mask->scalar_type() == at::kBool || atten_mask->scalar_type() == at::kByte, op,
                ": atten_mask must be bool or uint8 (1 = masked out), got ", atten_mask->scalar_type());
    checkBroadcast(op, *atten_mask, "atten_mask", g, true);
  }
  return g;
}

void addFusionAttentionOperands(torch_npu::OpCommand& cmd, const FusionAttentionArgs& args,
                                const c10::optional<at::Tensor>& pse, const c10::optional<at::Tensor>& atten_mask) {
  if (given(pse)) cmd.Input(*pse);
  if (given(atten_mask)) cmd.Input(*atten_mask);
  cmd.Attr("head_num", args.head_num)
      .Attr("input_layout", args.input_layout)
      .Attr("scale_value", static_cast<float>(args.scale))
      .Attr("keep_prob", static_cast<float>(args.keep_prob))
      .Attr("pre_tockens", args.pre_tockens)
      .Attr("next_tockens", args.next_tockens)
      .Attr("inner_precise", args.inner_precise)
      .Attr("sparse_mode", args.sparse_mode)
      .Attr("seed", args.seed)
      .Attr("offset", args.offset)
      .Attr("has_pse", given(pse))
      .Attr("has_atten_mask", given(atten_mask));
}

}  // namespace native
}  // namespace at_npu
