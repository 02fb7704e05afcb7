// torch.npu.amp.autocast: mixed precision on the NPU.
//
// Note [NPU autocast]
// PyTorch 1.13 has autocast dispatch keys only for the CPU, CUDA and XPU,
// and none is mapped to PrivateUse1. The XPU key is unused by core 1.13, so
// the NPU hosts its autocast there: every NPU tensor carries AutocastXPU in
// its key set (csrc/framework/NPUTensorFactory.cpp; views inherit it), the
// key stays in the thread-local excluded set except inside
// torch.npu.amp.autocast (at::autocast::set_xpu_enabled), and the kernels
// below are registered on it. CPU tensors never carry the key, so CPU work
// inside an NPU autocast region is untouched. Every other operator falls
// through.
//
// The kernels are boxed: one per cast policy, whatever the operator's
// signature. They rewrite the tensor arguments on the stack (only NPU
// floating tensors, never float64, as CUDA's is_eligible) and call the
// operator again with AutocastXPU excluded, so the ops it decomposes into
// are not cast a second time. The policies and op lists are CUDA's in 1.13:
//   lower precision  matmuls, convolutions, RNN cells: cast to the autocast
//                    dtype (fp16, or bf16 on 910B chips);
//   fp32             ops that lose accuracy in fp16 (exp, log, pow, norms,
//                    losses, layer/group norm, softplus ...): cast to fp32;
//   fp32 opt dtype   reductions with a `dtype=` argument (sum, prod, cumsum,
//                    softmax ...): run with dtype=float32 when not given;
//   promote          ops mixing inputs (cat, stack, addcmul, index_put ...):
//                    cast to the widest floating dtype among them;
//   banned           binary_cross_entropy: an error naming the safe op.
// As on CUDA, fp32 leaf tensors that require grad (parameters) are cast once
// per autocast region and the copies are cached until the outermost region
// exits (torch.npu.amp.autocast calls clearAutocastCache).
// The low-precision dtype is process-wide, not thread-local: the autograd
// engine runs a backward called inside the region on its own threads, which
// inherit the dispatch-key state (the enabled AutocastXPU) but not c10's
// thread-local autocast dtypes (the XPU one defaults to bfloat16).
#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <atomic>
#include <unordered_map>

#include "csrc/aten/common/AutocastNPU.h"

namespace at_npu {
namespace native {
namespace {

// Cached low-precision copies of parameters: TensorImpl -> (weak ref, copy).
using CacheEntry = std::pair<c10::weak_intrusive_ptr<c10::TensorImpl>, at::Tensor>;
thread_local std::unordered_map<c10::TensorImpl*, CacheEntry> tls_cast_cache;
std::atomic<at::ScalarType> g_autocast_dtype{at::kHalf};

bool isEligible(const at::Tensor& t) {
  return t.defined() && t.device().type() == c10::DeviceType::PrivateUse1 && t.is_floating_point() &&
         t.scalar_type() != at::kDouble;
}

at::Tensor castTo(const at::Tensor& t, at::ScalarType dtype) {
  if (!isEligible(t) || t.scalar_type() == dtype) return t;
  const bool cacheable = dtype == npuAutocastDtype() && t.scalar_type() == at::kFloat &&
                         t.requires_grad() && t.is_leaf() && !t.is_view() && at::autocast::is_autocast_cache_enabled();
  if (!cacheable) return t.to(dtype);
  auto it = tls_cast_cache.find(t.unsafeGetTensorImpl());
  if (it != tls_cast_cache.end() && !it->second.first.expired()) return it->second.second;
  at::Tensor cast = t.to(dtype);
  tls_cast_cache.erase(t.unsafeGetTensorImpl());
  tls_cast_cache.emplace(t.unsafeGetTensorImpl(),
                         CacheEntry(c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()), cast));
  return cast;
}

// Applies `fn` to every tensor argument on the stack (tensors, optional
// tensors and tensor lists).
template <typename Fn>
void forEachTensorArgument(const c10::OperatorHandle& op, torch::jit::Stack* stack, Fn fn) {
  const size_t num_args = op.schema().arguments().size();
  for (size_t i = stack->size() - num_args; i < stack->size(); ++i) {
    c10::IValue& v = (*stack)[i];
    if (v.isTensor()) {
      v = fn(v.toTensor());
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> list = v.toTensorList();
      c10::List<at::Tensor> cast;
      cast.reserve(list.size());
      for (const at::Tensor& t : list) cast.push_back(fn(t));
      v = cast;
    } else if (v.isList()) {  // Tensor?[] (index_put's indices): casting only touches floating tensors
      c10::List<c10::IValue> list = v.toList();
      for (size_t k = 0; k < list.size(); ++k) {
        const c10::IValue e = list.get(k);
        if (e.isTensor()) list.set(k, fn(e.toTensor()));
      }
    }
  }
}

bool anyEligible(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  bool any = false;
  forEachTensorArgument(op, stack, [&](const at::Tensor& t) {
    any = any || isEligible(t);
    return t;
  });
  return any;
}

void callWithoutAutocast(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastXPU);
  op.callBoxed(stack);
}

void lowerPrecision(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::ScalarType dtype = npuAutocastDtype();
  forEachTensorArgument(op, stack, [&](const at::Tensor& t) { return castTo(t, dtype); });
  callWithoutAutocast(op, stack);
}

void fp32(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  forEachTensorArgument(op, stack, [&](const at::Tensor& t) { return castTo(t, at::kFloat); });
  callWithoutAutocast(op, stack);
}

// Reductions with a `dtype` argument: float32 accumulation unless one was given.
void fp32OptDtype(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const auto& args = op.schema().arguments();
  const size_t base = stack->size() - args.size();
  if (anyEligible(op, stack)) {
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].name() == "dtype" && (*stack)[base + i].isNone()) (*stack)[base + i] = at::kFloat;
  }
  callWithoutAutocast(op, stack);
}

void promote(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  at::ScalarType widest = npuAutocastDtype();
  forEachTensorArgument(op, stack, [&](const at::Tensor& t) {
    if (isEligible(t)) widest = at::promote_types(widest, t.scalar_type());
    return t;
  });
  forEachTensorArgument(op, stack, [&](const at::Tensor& t) { return castTo(t, widest); });
  callWithoutAutocast(op, stack);
}

void banned(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK(false, op.schema().name(),
              " is unsafe to autocast on the NPU (torch.npu.amp.autocast): torch.nn.functional.binary_cross_entropy "
              "and torch.nn.BCELoss take probabilities whose fp16 rounding breaks the loss. Use "
              "torch.nn.functional.binary_cross_entropy_with_logits or torch.nn.BCEWithLogitsLoss, which combine "
              "the sigmoid and the loss and are safe to autocast.");
}

template <void (*Kernel)(const c10::OperatorHandle&, torch::jit::Stack*)>
void registerAll(torch::Library& m, std::initializer_list<const char*> names) {
  for (const char* name : names) m.impl(name, torch::CppFunction::makeFromBoxedFunction<Kernel>());
}

}  // namespace

void clearAutocastCache() { tls_cast_cache.clear(); }

at::ScalarType npuAutocastDtype() { return g_autocast_dtype.load(std::memory_order_relaxed); }

void setNpuAutocastDtype(at::ScalarType dtype) { g_autocast_dtype.store(dtype); }

TORCH_LIBRARY_IMPL(_, AutocastXPU, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

TORCH_LIBRARY_IMPL(aten, AutocastXPU, m) {
  registerAll<&lowerPrecision>(
      m, {"_convolution.deprecated", "_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
          "conv_transpose2d.input", "conv_transpose3d.input", "convolution", "conv1d.padding", "conv2d.padding",
          "conv3d.padding", "prelu", "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv", "linear", "addbmm",
          "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell",
          "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"});
  registerAll<&fp32>(
      m, {"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
          "sinh", "tan", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar", "softplus", "layer_norm",
          "native_layer_norm", "group_norm", "norm.Scalar", "norm.ScalarOpt_dim", "frobenius_norm",
          "frobenius_norm.dim", "nuclear_norm", "nuclear_norm.dim", "cosine_similarity", "poisson_nll_loss",
          "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div", "l1_loss",
          "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss", "multilabel_margin_loss",
          "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "binary_cross_entropy_with_logits",
          "dist", "pdist", "cdist", "renorm", "logsumexp", "linalg_vector_norm", "linalg_matrix_norm"});
  registerAll<&fp32OptDtype>(m, {"prod", "prod.dim_int", "softmax.int", "log_softmax.int", "cumprod", "cumsum",
                                 "sum", "sum.dim_IntList"});
  registerAll<&promote>(m, {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "grid_sampler",
                            "index_put", "tensordot", "scatter_add", "stack", "cat"});
  registerAll<&banned>(m, {"binary_cross_entropy"});
}

}  // namespace native
}  // namespace at_npu
