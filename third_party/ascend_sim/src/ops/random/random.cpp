// PhiloxRandomUniform and PhiloxRandomNormal (OPS.md "Creation").
//
// Note [Philox streams]
// Element i of the output takes lane i % 4 of Philox4x32-10 (Salmon et al.,
// Random123) with key = seed (k0 = low 32 bits, k1 = high 32 bits) and counter
// = (offset + i / 4) as a 128-bit number (c0 = low, c1 = high 32 bits of the
// 64-bit value, c2 = c3 = 0). A 32-bit draw u becomes a uniform in [0, 1) as
// (u >> 8) * 2^-24. Uniform maps it to from + v * (to - from) in fp32.
// Normal pairs elements 2k and 2k+1 (which share one Philox block) and applies
// Box–Muller in fp32: u1 = 1 - v(2k) in (0, 1], u2 = v(2k+1),
// r = sqrt(-2 ln u1); z(2k) = r cos(2 pi u2), z(2k+1) = r sin(2 pi u2);
// y = mean + std * z. The bits depend only on (seed, offset, i): results are
// the same for any chunking or thread count, and a caller advances `offset`
// by ceil(numel / 4) to get the next independent stream.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernel/op_utils.h"
#include "ops/random/philox.h"

namespace ascend_sim {
namespace {

constexpr int64_t kBlockElems = 4096;  // output elements generated per chunk (multiple of 4)

bool isNormal(const OpCall& call) { return call.op_type == "PhiloxRandomNormal"; }

void validateRandom(const OpCall& call) {
  checkArity(call, 0, 0, 1);
  checkDtype(call, call.outputs[0], "output y", kFloatTypes | dtBit(ACL_DOUBLE));  // float64: fp32 draws, widened
  attrInt(call, "seed");
  attrInt(call, "offset", 0);
  if (isNormal(call)) {
    if (attrFloat(call, "std", 1.0f) < 0)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "attribute 'std' must be >= 0, got " + std::to_string(attrFloat(call, "std", 1.0f)));
  } else if (!(attrFloat(call, "from", 0.0f) <= attrFloat(call, "to", 1.0f))) {
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'from' (" + std::to_string(attrFloat(call, "from", 0.0f)) +
             ") must not exceed 'to' (" + std::to_string(attrFloat(call, "to", 1.0f)) + ")");
  }
}

void computeRandom(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const uint64_t seed = static_cast<uint64_t>(attrInt(call, "seed"));
  const uint64_t offset = static_cast<uint64_t>(attrInt(call, "offset", 0));
  const bool normal = isNormal(call);
  const float a = normal ? attrFloat(call, "mean", 0.0f) : attrFloat(call, "from", 0.0f);
  const float b = normal ? attrFloat(call, "std", 1.0f) : attrFloat(call, "to", 1.0f) - a;
  const int64_t n = y.numel();
  std::vector<float> v(static_cast<size_t>(kBlockElems));
  for (int64_t i0 = 0; i0 < n; i0 += kBlockElems) {
    const int64_t m = std::min(kBlockElems, n - i0);
    for (int64_t j = 0; j < m; j += 4) {
      uint32_t r[4];
      philox4x32_10(offset + static_cast<uint64_t>((i0 + j) / 4), seed, r);
      for (int lane = 0; lane < 4; lane += 2) {
        float* dst = &v[j + lane];
        const float u1 = philoxUnit(r[lane]), u2 = philoxUnit(r[lane + 1]);
        if (normal) {
          const float rad = std::sqrt(-2.0f * std::log(1.0f - u1));
          const float theta = 6.2831853071795864769f * u2;
          dst[0] = a + b * (rad * std::cos(theta));
          dst[1] = a + b * (rad * std::sin(theta));
        } else {
          dst[0] = a + u1 * b;
          dst[1] = a + u2 * b;
        }
      }
    }
    storeFloat(y.dtype, y.data, i0, m, v.data());
  }
}

KernelCost costRandom(const OpCall& call) {
  KernelCost c = vectorCost(call);
  c.flops = 20.0 * static_cast<double>(call.outputs[0].numel());  // ~Philox rounds per element
  return c;
}

// StatelessBernoulli (OPS.md "More elementwise"): y_i = (v_i < p) where v_i
// is element i of PhiloxRandomUniform(seed, offset, from 0, to 1), i.e. the
// same Philox stream (Note [Philox streams]); written as 0/1 (false/true) in
// y's dtype. p = 0 gives all zeros, p = 1 all ones.
void validateBernoulli(const OpCall& call) {
  checkArity(call, 0, 0, 1);
  checkDtype(call, call.outputs[0], "output y", kAllTypes);
  attrInt(call, "seed");
  attrInt(call, "offset", 0);
  const float p = attrFloat(call, "p");
  if (!(p >= 0.0f && p <= 1.0f))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute 'p' must be in [0, 1], got " + std::to_string(p));
}

void computeBernoulli(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const uint64_t seed = static_cast<uint64_t>(attrInt(call, "seed"));
  const uint64_t offset = static_cast<uint64_t>(attrInt(call, "offset", 0));
  const float p = attrFloat(call, "p");
  const int64_t n = y.numel();
  std::vector<int64_t> v(static_cast<size_t>(kBlockElems));
  for (int64_t i0 = 0; i0 < n; i0 += kBlockElems) {
    const int64_t m = std::min(kBlockElems, n - i0);
    for (int64_t j = 0; j < m; j += 4) {
      uint32_t r[4];
      philox4x32_10(offset + static_cast<uint64_t>((i0 + j) / 4), seed, r);
      for (int lane = 0; lane < 4 && j + lane < m; ++lane) v[j + lane] = philoxUnit(r[lane]) < p ? 1 : 0;
    }
    storeInt(y.dtype, y.data, i0, m, v.data());
  }
}

// StatelessRandomUniformInt (OPS.md "Creation"): y_i = from + (u_i mod range)
// with range = to - from (1 <= range <= 2^64 - 1, as uint64). For ranges of
// at most 2^32, u_i is the 32-bit lane i % 4 of Philox block (offset + i / 4)
// (the uniform stream's draw); for wider ranges u_i is the 64-bit value of the
// lanes (2k, 2k + 1), k = i % 2, of block (offset + i / 2). The modulo bias
// is that of PyTorch's CPU random_ (which also reduces a draw modulo the
// range). Integers are computed in int64 and stored in y's dtype; float y
// gets the integer values.
void validateRandomInt(const OpCall& call) {
  checkArity(call, 0, 0, 1);
  checkDtype(call, call.outputs[0], "output y", kAllTypes);
  attrInt(call, "seed");
  attrInt(call, "offset", 0);
  const int64_t from = attrInt(call, "from"), to = attrInt(call, "to");
  if (!(from < to))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "attribute 'from' (" + std::to_string(from) + ") must be less than 'to' (" + std::to_string(to) + ")");
}

void computeRandomInt(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const uint64_t seed = static_cast<uint64_t>(attrInt(call, "seed"));
  const uint64_t offset = static_cast<uint64_t>(attrInt(call, "offset", 0));
  const int64_t from = attrInt(call, "from");
  const uint64_t range = static_cast<uint64_t>(attrInt(call, "to")) - static_cast<uint64_t>(from);
  const bool wide = range > (uint64_t{1} << 32);
  const int64_t per_block = wide ? 2 : 4;
  const int64_t n = y.numel();
  std::vector<int64_t> v(static_cast<size_t>(kBlockElems));
  for (int64_t i0 = 0; i0 < n; i0 += kBlockElems) {
    const int64_t m = std::min(kBlockElems, n - i0);
    for (int64_t j = 0; j < m; j += per_block) {
      uint32_t r[4];
      philox4x32_10(offset + static_cast<uint64_t>((i0 + j) / per_block), seed, r);
      for (int64_t k = 0; k < per_block && j + k < m; ++k) {
        const uint64_t u = wide ? (static_cast<uint64_t>(r[2 * k + 1]) << 32 | r[2 * k]) : r[k];
        v[j + k] = static_cast<int64_t>(static_cast<uint64_t>(from) + u % range);
      }
    }
    storeInt(y.dtype, y.data, i0, m, v.data());
  }
}

// StatelessRandperm (OPS.md "Creation"), an AI CPU op: y = a random
// permutation of 0..n-1 (n = y's length) by Fisher-Yates, from the top:
// for i = n-1 .. 1, swap y[i] with y[j], j = u_k mod (i + 1), where u_k is
// draw k = n-1-i of the Philox stream (lane k % 4 of block offset + k / 4).
// The modulo bias is negligible for n << 2^32 (n must be below 2^31).
void validateRandperm(const OpCall& call) {
  checkArity(call, 0, 0, 1);
  checkDtype(call, call.outputs[0], "output y", kIndexTypes);
  if (call.outputs[0].shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output y shape " + shapeToString(call.outputs[0].shape) + " must be 1-D");
  if (call.outputs[0].numel() >= (int64_t{1} << 31))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "output y must have fewer than 2^31 elements");
  attrInt(call, "seed");
  attrInt(call, "offset", 0);
}

void computeRandperm(const OpCall& call) {
  const TensorArg& y = call.outputs[0];
  const uint64_t seed = static_cast<uint64_t>(attrInt(call, "seed"));
  const uint64_t offset = static_cast<uint64_t>(attrInt(call, "offset", 0));
  const int64_t n = y.numel();
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  uint32_t block[4] = {0, 0, 0, 0};
  for (int64_t i = n - 1, k = 0; i >= 1; --i, ++k) {
    if (k % 4 == 0) philox4x32_10(offset + static_cast<uint64_t>(k / 4), seed, block);
    const int64_t j = static_cast<int64_t>(block[k % 4] % static_cast<uint32_t>(i + 1));
    std::swap(perm[i], perm[j]);
  }
  storeInt(y.dtype, y.data, 0, n, perm.data());
}

KernelCost costRandperm(const OpCall& call) {
  KernelCost c;
  c.core = CoreType::kAiCpu;
  c.mte_bytes = 2 * tensorBytes(call.outputs[0]);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"StatelessRandperm", &validateRandperm, &computeRandperm, &costRandperm});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"StatelessRandomUniformInt", &validateRandomInt, &computeRandomInt,
                                     &costRandom});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"StatelessBernoulli", &validateBernoulli, &computeBernoulli, &costRandom});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PhiloxRandomUniform", &validateRandom, &computeRandom, &costRandom});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"PhiloxRandomNormal", &validateRandom, &computeRandom, &costRandom});

}  // namespace
}  // namespace ascend_sim
