// normal_ and uniform_ on the simulator's Philox kernels.
// See Note [NPU random numbers].
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUGenerator.h"

namespace at_npu {
namespace native {
namespace {

at::Tensor& randomFill(const char* op, const char* acl_op, at::Tensor& self, const char* a_name, float a,
                       const char* b_name, float b, const c10::optional<at::Generator>& generator) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), op, ": expected a floating point tensor, got ",
              self.scalar_type());
  const auto [seed, offset] = torch_npu::NPUGenerator::resolve(generator, self.device(), op)
                                  .reserve(static_cast<uint64_t>(self.numel()));
  return torch_npu::runInto(acl_op, self, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Attr("seed", static_cast<int64_t>(seed))
        .Attr("offset", static_cast<int64_t>(offset))
        .Attr(a_name, a)
        .Attr(b_name, b);
  });
}

// Integers uniformly in [from, to) on StatelessRandomUniformInt (a 64-bit
// draw per element when the range exceeds 2^32, else a 32-bit one).
at::Tensor& randomIntFill(at::Tensor& self, int64_t from, int64_t to, const c10::optional<at::Generator>& generator) {
  TORCH_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
  TORCH_CHECK(self.scalar_type() != at::kBool || (from >= 0 && to <= 2),
              "random_ on a bool tensor expects a range within [0, 2), got [", from, ", ", to, ")");
  const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  const uint64_t values_per_element = range > (uint64_t{1} << 32) ? 2 : 1;
  const auto [seed, offset] = torch_npu::NPUGenerator::resolve(generator, self.device(), "random_")
                                  .reserve(values_per_element * static_cast<uint64_t>(self.numel()));
  return torch_npu::runInto("StatelessRandomUniformInt", self, self.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Attr("seed", static_cast<int64_t>(seed))
                                  .Attr("offset", static_cast<int64_t>(offset))
                                  .Attr("from", from)
                                  .Attr("to", to);
                            });
}

// The largest value random_ draws when no upper bound is given (inclusive):
// 2^digits for floating types (every integer up to it is exact), the dtype's
// maximum for integers, 1 for bool — as PyTorch's random_.
int64_t randomUpperBound(const at::Tensor& self) {
  switch (self.scalar_type()) {
    case at::kFloat: return int64_t{1} << 24;
    case at::kHalf: return int64_t{1} << 11;
    case at::kBFloat16: return int64_t{1} << 8;
    case at::kDouble: return int64_t{1} << 53;
    case at::kBool: return 1;
    default:
      break;
  }
  int64_t max = 0;
  AT_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "random_", [&] { max = std::numeric_limits<scalar_t>::max(); });
  return max;
}

// random_'s range check: [from, to) must fit the dtype.
void checkRandomRange(const at::Tensor& self, int64_t from, int64_t to_inclusive) {
  const int64_t upper = randomUpperBound(self);
  TORCH_CHECK(to_inclusive <= upper, "random_ expects 'to' to be at most ", upper + (upper < INT64_MAX ? 1 : 0),
              " for dtype ", self.scalar_type(), ", but got to=", to_inclusive + 1);
  if (at::isIntegralType(self.scalar_type(), /*includeBool=*/false) && self.scalar_type() != at::kLong) {
    int64_t lowest = 0;
    AT_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "random_",
                               [&] { lowest = std::numeric_limits<scalar_t>::lowest(); });
    TORCH_CHECK(from >= lowest, "random_ expects 'from' to be at least ", lowest, " for dtype ", self.scalar_type(),
                ", but got from=", from);
  }
}

at::Tensor& randomInclusive(at::Tensor& self, int64_t from, int64_t to_inclusive,
                            const c10::optional<at::Generator>& generator) {
  checkRandomRange(self, from, to_inclusive);
  if (self.numel() == 0) return self;
  // [from, INT64_MAX] has no exclusive bound in int64: draw [from - 1, max) and shift.
  if (to_inclusive == INT64_MAX) {
    TORCH_CHECK(from > INT64_MIN, "random_: the full int64 range is not supported on the NPU backend");
    return randomIntFill(self, from - 1, to_inclusive, generator).add_(1);
  }
  return randomIntFill(self, from, to_inclusive + 1, generator);
}

}  // namespace

at::Tensor& NPUNativeFunctions::random_(at::Tensor& self, int64_t from, c10::optional<int64_t> to,
                                        c10::optional<at::Generator> generator) {
  if (to.has_value()) {
    TORCH_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    return randomInclusive(self, from, *to - 1, generator);
  }
  return randomInclusive(self, from, randomUpperBound(self), generator);
}

at::Tensor& NPUNativeFunctions::random_(at::Tensor& self, int64_t to, c10::optional<at::Generator> generator) {
  return random_(self, 0, to, generator);
}

at::Tensor& NPUNativeFunctions::random_(at::Tensor& self, c10::optional<at::Generator> generator) {
  return random_(self, 0, c10::nullopt, generator);
}

at::Tensor& NPUNativeFunctions::normal_(at::Tensor& self, double mean, double std,
                                        c10::optional<at::Generator> generator) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  return randomFill("normal_", "PhiloxRandomNormal", self, "mean", static_cast<float>(mean), "std",
                    static_cast<float>(std), generator);
}

at::Tensor& NPUNativeFunctions::uniform_(at::Tensor& self, double from, double to,
                                         c10::optional<at::Generator> generator) {
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  return randomFill("uniform_", "PhiloxRandomUniform", self, "from", static_cast<float>(from), "to",
                    static_cast<float>(to), generator);
}

// bernoulli_(p): StatelessBernoulli on the same Philox stream (dropout uses it).
at::Tensor& NPUNativeFunctions::bernoulli_(at::Tensor& self, double p, c10::optional<at::Generator> generator) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  const auto [seed, offset] = torch_npu::NPUGenerator::resolve(generator, self.device(), "bernoulli_")
                                  .reserve(static_cast<uint64_t>(self.numel()));
  return torch_npu::runInto("StatelessBernoulli", self, self.sizes(), self.scalar_type(),
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Attr("p", static_cast<float>(p))
                                  .Attr("seed", static_cast<int64_t>(seed))
                                  .Attr("offset", static_cast<int64_t>(offset));
                            });
}

}  // namespace native
}  // namespace at_npu
