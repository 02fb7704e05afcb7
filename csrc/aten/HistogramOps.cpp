// bincount and histc on the AI CPU's Bincount / Histogram kernels, and
// histogram (bin count or bin edges) composed of SearchSorted and Bincount.
// They read the data's range back first when they need it (a host
// synchronisation, as on every device): bincount to size its output (Note
// [Ops whose output size depends on the data]), histc and histogram when no
// range is given.
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/NPUTensorUtils.h"

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::bincount(const at::Tensor& self, const c10::optional<at::Tensor>& weights_opt,
                                        int64_t minlength) {
  TORCH_CHECK(self.dim() == 1 && at::isIntegralType(self.scalar_type(), /*includeBool=*/false),
              "bincount only supports 1-d non-negative integral inputs.");
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  const bool weighted = weights_opt.has_value() && weights_opt->defined();
  TORCH_CHECK(!weighted || (weights_opt->dim() == 1 && weights_opt->size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  if (self.numel() == 0) return at::zeros({minlength}, self.options().dtype(at::kLong));
  const auto range = at::aminmax(self);
  TORCH_CHECK(std::get<0>(range).item<int64_t>() >= 0, "bincount only supports 1-d non-negative integral inputs.");
  const int64_t size = std::max(minlength, std::get<1>(range).item<int64_t>() + 1);
  // PyTorch's result dtype: counts in int64, float32 weights summed in float32, others in float64.
  const auto type = !weighted ? at::kLong : weights_opt->scalar_type() == at::kFloat ? at::kFloat : at::kDouble;
  at::Tensor out = torch_npu::emptyNpu({size}, type, self.device());
  torch_npu::OpCommand cmd("Bincount");
  cmd.Input(self);
  if (weighted) cmd.Input(*weights_opt);
  cmd.Output(out).Attr("size", size).Run();
  return out;
}

at::Tensor& NPUNativeFunctions::histc_out(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                                          const at::Scalar& max, at::Tensor& out) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.histc: expected a floating point input, got ",
              self.scalar_type());
  TORCH_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got ", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && self.numel() > 0) {
    const auto range = at::aminmax(self);
    lo = std::get<0>(range).item<double>();
    hi = std::get<1>(range).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TORCH_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  TORCH_CHECK(lo < hi, "torch.histc: max must be larger than min");
  return torch_npu::runInto("Histogram", out, {bins}, self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self).Attr("bins", bins).Attr("min", static_cast<float>(lo)).Attr("max", static_cast<float>(hi));
  });
}
at::Tensor NPUNativeFunctions::histc(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                                     const at::Scalar& max) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return histc_out(self, bins, min, max, out);
}

namespace {

// Note [histogram from bin edges]
// An element v of self falls in bin i when edges[i] <= v < edges[i + 1]
// (the last bin includes its right edge): one SearchSorted (right) per
// element, like PyTorch's binary search (its linear-interpolation path for a
// bin count gives the same bins). Elements outside [edges[0], edges[bins]]
// and NaN get weight 0; Bincount then sums the weights per bin.
std::tuple<at::Tensor, at::Tensor> histogramOver(const at::Tensor& self, const at::Tensor& edges,
                                                 const c10::optional<at::Tensor>& weight, bool density) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.histogram: expected a floating point input, got ",
              self.scalar_type());
  TORCH_CHECK(edges.scalar_type() == self.scalar_type(), "torch.histogramdd: input tensor and bins tensors should "
              "have the same dtype, but got input with dtype ", self.scalar_type(), " and bins with dtype ",
              edges.scalar_type());
  TORCH_CHECK(edges.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ", edges.dim(),
              " dimensions in the bins tensor");
  const int64_t bins = edges.numel() - 1;
  TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  const bool weighted = weight.has_value() && weight->defined();
  TORCH_CHECK(!weighted || weight->sizes() == self.sizes(), "torch.histogramdd: if weight tensor is provided it "
              "should have the same shape as the input tensor, but got input with shape ", self.sizes(),
              " and weight with shape ", weight->sizes());
  TORCH_CHECK(!weighted || weight->scalar_type() == self.scalar_type(), "torch.histogramdd: if weight tensor is "
              "provided it should have the same dtype as the input tensor");
  const at::Tensor flat = self.reshape({-1});
  const at::Tensor inside = flat.ge(edges[0]).logical_and(flat.le(edges[bins]));
  const at::Tensor w = weighted ? weight->reshape({-1}).mul(inside) : inside.to(at::kFloat);
  const at::Tensor bin = at::searchsorted(edges, flat, false, /*right=*/true).sub(1).clamp(0, bins - 1);
  at::Tensor hist = at::bincount(bin, w.to(at::kFloat), bins).to(self.scalar_type());
  if (density) hist = hist.div(hist.sum().mul(edges.narrow(0, 1, bins).sub(edges.narrow(0, 0, bins))));
  return {hist, edges};
}

// bins + 1 evenly spaced edges over [lo, hi], computed on the host from the two range scalars.
at::Tensor evenEdges(double lo, double hi, int64_t bins, const at::Tensor& self) {
  TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  std::vector<float> e(static_cast<size_t>(bins + 1));
  for (int64_t i = 0; i <= bins; ++i) e[i] = static_cast<float>(i == bins ? hi : lo + (hi - lo) * i / bins);
  return at::tensor(e).to(self.device(), self.scalar_type());
}

std::tuple<at::Tensor&, at::Tensor&> writeHistogram(const std::tuple<at::Tensor, at::Tensor>& r, at::Tensor& hist,
                                                    at::Tensor& bin_edges) {
  at::native::resize_output(hist, std::get<0>(r).sizes());
  at::native::resize_output(bin_edges, std::get<1>(r).sizes());
  hist.copy_(std::get<0>(r));
  bin_edges.copy_(std::get<1>(r));
  return {hist, bin_edges};
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::histogram_out(const at::Tensor& self, const at::Tensor& bins,
                                                                       const c10::optional<at::Tensor>& weight,
                                                                       bool density, at::Tensor& hist,
                                                                       at::Tensor& bin_edges) {
  return writeHistogram(histogram(self, bins, weight, density), hist, bin_edges);
}
std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::histogram_out(const at::Tensor& self, int64_t bins,
                                                                       c10::optional<at::ArrayRef<double>> range,
                                                                       const c10::optional<at::Tensor>& weight,
                                                                       bool density, at::Tensor& hist,
                                                                       at::Tensor& bin_edges) {
  return writeHistogram(histogram(self, bins, range, weight, density), hist, bin_edges);
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::histogram(const at::Tensor& self, const at::Tensor& bins,
                                                                 const c10::optional<at::Tensor>& weight,
                                                                 bool density) {
  return histogramOver(self, bins, weight, density);
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::histogram(const at::Tensor& self, int64_t bins,
                                                                 c10::optional<at::ArrayRef<double>> range,
                                                                 const c10::optional<at::Tensor>& weight,
                                                                 bool density) {
  double lo = 0, hi = 1;  // PyTorch's range of an empty input
  if (range.has_value()) {
    TORCH_CHECK(range->size() == 2, "torch.histogramdd: for a 1-dimensional input tensor, range should have 2 "
                "elements, but got ", range->size());
    lo = (*range)[0];
    hi = (*range)[1];
  } else if (self.numel() > 0) {
    const auto extrema = at::aminmax(self);
    lo = std::get<0>(extrema).item<double>();
    hi = std::get<1>(extrema).item<double>();
  }
  TORCH_CHECK(lo <= hi, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ", hi,
              " for dimension 0");
  TORCH_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogramdd: dimension 0's range [", lo, ", ", hi,
              "] is not finite");
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return histogramOver(self, evenEdges(lo, hi, bins, self), weight, density);
}

}  // namespace native
}  // namespace at_npu
