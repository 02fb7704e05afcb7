// bincount and histc on the AI CPU's Bincount / Histogram kernels, and
// histogram (bin count or bin edges) composed of SearchSorted and Bincount.
// They read the data's range back first when they need it (a host
// synchronisation, as on every device): bincount to size its output (Note
// [Ops whose output size depends on the data]), histc and histogram when no
// range is given.
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

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
// histogram and histogramdd see their input as N points of D coordinates
// ([..., D], or the flattened input for D = 1). Coordinate d of a point falls
// in bin i when edges_d[i] <= v < edges_d[i + 1] (the last bin includes its
// right edge): one SearchSorted (right) per coordinate, like PyTorch's binary
// search (its linear-interpolation path for bin counts finds the same bins).
// A point with a coordinate outside its edges, or NaN, gets weight 0; the
// row-major index of the point's bin over all dims then goes through
// Bincount, which sums the weights per bin.
at::Tensor histogramOver(const at::Tensor& points, at::TensorList edges, const c10::optional<at::Tensor>& weight,
                         bool density) {
  TORCH_CHECK(at::isFloatingType(points.scalar_type()), "torch.histogram: expected a floating point input, got ",
              points.scalar_type());
  const int64_t dims = static_cast<int64_t>(edges.size());
  const bool weighted = weight.has_value() && weight->defined();
  TORCH_CHECK(!weighted || weight->numel() == points.size(0), "torch.histogramdd: if weight tensor is provided it "
              "should have the same shape as the input tensor excluding its innermost dimension, but got ",
              weight->numel(), " weights for ", points.size(0), " points");
  TORCH_CHECK(!weighted || weight->scalar_type() == points.scalar_type(), "torch.histogramdd: if weight tensor is "
              "provided it should have the same dtype as the input tensor");
  std::vector<int64_t> bins(dims);
  at::Tensor index, inside;
  for (int64_t d = 0; d < dims; ++d) {
    const at::Tensor& e = edges[d];
    TORCH_CHECK(e.scalar_type() == points.scalar_type(), "torch.histogramdd: input tensor and bins tensors should "
                "have the same dtype, but got input with dtype ", points.scalar_type(), " and bins for dimension ", d,
                " with dtype ", e.scalar_type());
    TORCH_CHECK(e.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ", e.dim(),
                " dimensions in the bins tensor for dimension ", d);
    bins[d] = e.numel() - 1;
    TORCH_CHECK(bins[d] > 0, "torch.histogram(): bins must be > 0, but got ", bins[d], " for dimension ", d);
    const at::Tensor v = points.select(1, d);
    const at::Tensor in = v.ge(e[0]).logical_and(v.le(e[bins[d]]));
    const at::Tensor bin = at::searchsorted(e, v, false, /*right=*/true).sub(1).clamp(0, bins[d] - 1);
    index = d == 0 ? bin : index.mul(bins[d]).add(bin);
    inside = d == 0 ? in : inside.logical_and(in);
  }
  const int64_t total = c10::multiply_integers(bins);
  const at::Tensor w = weighted ? weight->reshape({-1}).mul(inside) : inside.to(at::kFloat);
  at::Tensor hist = at::bincount(index, w.to(at::kFloat), total).to(points.scalar_type()).view(bins);
  if (density) {
    hist = hist.div(hist.sum());
    for (int64_t d = 0; d < dims; ++d) {
      std::vector<int64_t> shape(dims, 1);
      shape[d] = bins[d];
      hist = hist.div(edges[d].narrow(0, 1, bins[d]).sub(edges[d].narrow(0, 0, bins[d])).view(shape));
    }
  }
  return hist;
}

// self as N points of `dims` coordinates.
at::Tensor pointsOf(const at::Tensor& self, int64_t dims) {
  TORCH_CHECK(dims == 1 || self.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions, but "
              "got ", self.dim());
  return dims == 1 ? self.reshape({-1, 1}) : self.reshape({-1, self.size(-1)});
}

// The bins + 1 evenly spaced edges of each dim, over `range` or the data's
// own range (read back; [0, 1] for no data; an empty range widened by 0.5
// each way, as PyTorch does), computed on the host from those scalars.
std::vector<at::Tensor> evenEdges(const at::Tensor& points, at::IntArrayRef bins,
                                  c10::optional<at::ArrayRef<double>> range) {
  const int64_t dims = points.size(1);
  TORCH_CHECK(static_cast<int64_t>(bins.size()) == dims, "torch.histogramdd: expected ", dims,
              " sequences of bin edges for a ", dims, "-dimensional histogram but got ", bins.size());
  TORCH_CHECK(!range || static_cast<int64_t>(range->size()) == 2 * dims, "torch.histogramdd: for a ", dims,
              "-dimensional input tensor, range should have ", 2 * dims, " elements, but got ", range->size());
  std::vector<double> lo(dims, 0), hi(dims, 1);
  if (range) {
    for (int64_t d = 0; d < dims; ++d) {
      lo[d] = (*range)[2 * d];
      hi[d] = (*range)[2 * d + 1];
    }
  } else if (points.numel() > 0) {
    const auto extrema = at::aminmax(points, 0);
    const at::Tensor mins = std::get<0>(extrema).to(at::kCPU, at::kDouble);
    const at::Tensor maxs = std::get<1>(extrema).to(at::kCPU, at::kDouble);
    for (int64_t d = 0; d < dims; ++d) {
      lo[d] = mins[d].item<double>();
      hi[d] = maxs[d].item<double>();
    }
  }
  std::vector<at::Tensor> edges;
  for (int64_t d = 0; d < dims; ++d) {
    TORCH_CHECK(lo[d] <= hi[d], "torch.histogramdd: min should not exceed max, but got min ", lo[d], " max ", hi[d],
                " for dimension ", d);
    TORCH_CHECK(std::isfinite(lo[d]) && std::isfinite(hi[d]), "torch.histogramdd: dimension ", d, "'s range [",
                lo[d], ", ", hi[d], "] is not finite");
    TORCH_CHECK(bins[d] > 0, "torch.histogram(): bins must be > 0, but got ", bins[d], " for dimension ", d);
    const double l = lo[d] == hi[d] ? lo[d] - 0.5 : lo[d], h = lo[d] == hi[d] ? hi[d] + 0.5 : hi[d];
    std::vector<float> e(static_cast<size_t>(bins[d] + 1));
    for (int64_t i = 0; i <= bins[d]; ++i) e[i] = static_cast<float>(i == bins[d] ? h : l + (h - l) * i / bins[d]);
    edges.push_back(at::tensor(e).to(points.device(), points.scalar_type()));
  }
  return edges;
}

std::tuple<at::Tensor&, at::Tensor&> writeHistogram(const at::Tensor& h, const at::Tensor& e, at::Tensor& hist,
                                                    at::Tensor& bin_edges) {
  at::native::resize_output(hist, h.sizes());
  at::native::resize_output(bin_edges, e.sizes());
  hist.copy_(h);
  bin_edges.copy_(e);
  return {hist, bin_edges};
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::histogram(const at::Tensor& self, const at::Tensor& bins,
                                                                 const c10::optional<at::Tensor>& weight,
                                                                 bool density) {
  return {histogramOver(pointsOf(self, 1), {bins}, weight, density), bins};
}
std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::histogram(const at::Tensor& self, int64_t bins,
                                                                 c10::optional<at::ArrayRef<double>> range,
                                                                 const c10::optional<at::Tensor>& weight,
                                                                 bool density) {
  const at::Tensor points = pointsOf(self, 1);
  const auto edges = evenEdges(points, {bins}, range);
  return {histogramOver(points, edges, weight, density), edges[0]};
}
std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::histogram_out(const at::Tensor& self, const at::Tensor& bins,
                                                                       const c10::optional<at::Tensor>& weight,
                                                                       bool density, at::Tensor& hist,
                                                                       at::Tensor& bin_edges) {
  const auto r = histogram(self, bins, weight, density);
  return writeHistogram(std::get<0>(r), std::get<1>(r), hist, bin_edges);
}
std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::histogram_out(const at::Tensor& self, int64_t bins,
                                                                       c10::optional<at::ArrayRef<double>> range,
                                                                       const c10::optional<at::Tensor>& weight,
                                                                       bool density, at::Tensor& hist,
                                                                       at::Tensor& bin_edges) {
  const auto r = histogram(self, bins, range, weight, density);
  return writeHistogram(std::get<0>(r), std::get<1>(r), hist, bin_edges);
}

::std::vector<at::Tensor> NPUNativeFunctions::_histogramdd_bin_edges(const at::Tensor& self, at::IntArrayRef bins,
                                                                    c10::optional<at::ArrayRef<double>> range,
                                                                    const c10::optional<at::Tensor>& /*weight*/,
                                                                    bool /*density*/) {
  return evenEdges(pointsOf(self, static_cast<int64_t>(bins.size())), bins, range);
}
at::Tensor NPUNativeFunctions::_histogramdd_from_bin_cts(const at::Tensor& self, at::IntArrayRef bins,
                                                         c10::optional<at::ArrayRef<double>> range,
                                                         const c10::optional<at::Tensor>& weight, bool density) {
  const at::Tensor points = pointsOf(self, static_cast<int64_t>(bins.size()));
  return histogramOver(points, evenEdges(points, bins, range), weight, density);
}
at::Tensor NPUNativeFunctions::_histogramdd_from_bin_tensors(const at::Tensor& self, at::TensorList bins,
                                                             const c10::optional<at::Tensor>& weight, bool density) {
  return histogramOver(pointsOf(self, static_cast<int64_t>(bins.size())), bins, weight, density);
}

}  // namespace native
}  // namespace at_npu
