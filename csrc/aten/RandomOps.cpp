// normal_ and uniform_ on the simulator's Philox kernels.
// See Note [NPU random numbers].
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/NPUTensorUtils.h"
#include "csrc/core/NPUGenerator.h"

namespace at_npu {
namespace native {
namespace {

void checkGenerator(const c10::optional<at::Generator>& generator, const char* op) {
  TORCH_CHECK(!generator.has_value() || !generator->defined(), op,
              ": explicit torch.Generator objects are not supported on the NPU backend yet; seed the device "
              "generator with torch.npu.manual_seed(seed) (or torch.manual_seed) instead");
}

at::Tensor& randomFill(const char* acl_op, at::Tensor& self, const char* a_name, float a, const char* b_name,
                       float b) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), acl_op, ": expected a floating point tensor, got ",
              self.scalar_type());
  const auto [seed, offset] =
      torch_npu::NPUGenerator::forDevice(self.device().index()).reserve(static_cast<uint64_t>(self.numel()));
  return torch_npu::runInto(acl_op, self, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("seed", static_cast<int64_t>(seed))
        .Attr("offset", static_cast<int64_t>(offset))
        .Attr(a_name, a)
        .Attr(b_name, b);
  });
}

}  // namespace

at::Tensor& NPUNativeFunctions::normal_(at::Tensor& self, double mean, double std,
                                        c10::optional<at::Generator> generator) {
  checkGenerator(generator, "normal_");
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  return randomFill("PhiloxRandomNormal", self, "mean", static_cast<float>(mean), "std", static_cast<float>(std));
}

at::Tensor& NPUNativeFunctions::uniform_(at::Tensor& self, double from, double to,
                                         c10::optional<at::Generator> generator) {
  checkGenerator(generator, "uniform_");
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  return randomFill("PhiloxRandomUniform", self, "from", static_cast<float>(from), "to", static_cast<float>(to));
}

// bernoulli_(p): StatelessBernoulli on the same Philox stream (dropout uses it).
at::Tensor& NPUNativeFunctions::bernoulli_(at::Tensor& self, double p, c10::optional<at::Generator> generator) {
  checkGenerator(generator, "bernoulli_");
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  const auto [seed, offset] =
      torch_npu::NPUGenerator::forDevice(self.device().index()).reserve(static_cast<uint64_t>(self.numel()));
  return torch_npu::runInto("StatelessBernoulli", self, self.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Attr("p", static_cast<float>(p))
                                  .Attr("seed", static_cast<int64_t>(seed))
                                  .Attr("offset", static_cast<int64_t>(offset));
                            });
}

}  // namespace native
}  // namespace at_npu
