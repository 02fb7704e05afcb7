// RandomChoiceWithMask (OPS.md "Random numbers"), on the AI CPU as CANN runs
// it: torch_npu's npu_random_choice_with_mask, which samples positive
// positions (e.g. anchors) for detector training.
//
// Note [RandomChoiceWithMask]
// Input x: bool, 1-D to 5-D. Attrs count (> 0), seed, seed2. Outputs
// y int32 [count, rank(x)] and mask bool [count]: the coordinates of
// min(count, number of true elements) true elements drawn without
// replacement, in random order (a partial Fisher-Yates shuffle of the true
// positions in row-major order), then zero rows with mask false. The draws
// come from the Philox stream of key (seed2 << 32 | seed): a nonzero seed or
// seed2 repeats the result; with both 0 each launch takes a fresh key from a
// per-process launch counter, as CANN picks a random one (the simulator's
// runs stay reproducible from process start).
#include <algorithm>
#include <atomic>
#include <utility>
#include <string>
#include <vector>

#include "kernel/aicpu_kernel.h"
#include "ops/random/philox.h"

namespace ascend_sim {
namespace {

void validateRandomChoiceWithMask(const OpCall& call) {
  checkArity(call, 1, 1, 2);
  const TensorArg& x = call.inputs[0];
  checkDtype(call, x, "input x", kBoolType);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank < 1 || rank > 5)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x must have 1 to 5 dimensions, got shape " + shapeToString(x.shape));
  const int64_t count = attrInt(call, "count");
  if (count <= 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr count must be positive, got " + std::to_string(count));
  checkDtype(call, call.outputs[0], "output y", dtBit(ACL_INT32));
  checkShapeEq(call, call.outputs[0], "output y", {count, rank}, "[count, rank of x]");
  checkDtype(call, call.outputs[1], "output mask", kBoolType);
  checkShapeEq(call, call.outputs[1], "output mask", {count}, "[count]");
  attrInt(call, "seed", 0);
  attrInt(call, "seed2", 0);
}

uint64_t keyOf(const OpCall& call) {
  static std::atomic<uint64_t> launches{0};
  const uint64_t seed = static_cast<uint32_t>(attrInt(call, "seed", 0));
  const uint64_t seed2 = static_cast<uint32_t>(attrInt(call, "seed2", 0));
  if (seed != 0 || seed2 != 0) return seed2 << 32 | seed;
  return 0x9E3779B97F4A7C15ull ^ launches.fetch_add(1, std::memory_order_relaxed);
}

void computeRandomChoiceWithMask(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const auto* flags = static_cast<const uint8_t*>(x.data);
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (flags[i]) positions.push_back(i);
  const int64_t count = call.outputs[0].shape[0], rank = static_cast<int64_t>(x.shape.size());
  const int64_t picked = std::min<int64_t>(count, static_cast<int64_t>(positions.size()));
  const uint64_t key = keyOf(call);
  for (int64_t k = 0; k < picked; ++k) {  // partial Fisher-Yates
    uint32_t r[4];
    philox4x32_10(static_cast<uint64_t>(k), key, r);
    const uint64_t span = positions.size() - static_cast<uint64_t>(k);
    const uint64_t draw = ((static_cast<uint64_t>(r[0]) << 32) | r[1]) % span;
    std::swap(positions[static_cast<size_t>(k)], positions[static_cast<size_t>(k + static_cast<int64_t>(draw))]);
  }
  std::vector<int64_t> coords(static_cast<size_t>(count * rank), 0);
  for (int64_t k = 0; k < picked; ++k) {
    int64_t flat = positions[static_cast<size_t>(k)];
    for (int64_t d = rank - 1; d >= 0; --d) {
      coords[static_cast<size_t>(k * rank + d)] = flat % x.shape[d];
      flat /= x.shape[d];
    }
  }
  storeInt(ACL_INT32, call.outputs[0].data, 0, count * rank, coords.data());
  auto* mask = static_cast<uint8_t*>(call.outputs[1].data);
  for (int64_t k = 0; k < count; ++k) mask[k] = k < picked;
}

KernelCost costRandomChoiceWithMask(const OpCall& call) {
  KernelCost c = aiCpuCost(call);
  c.flops = static_cast<double>(call.inputs[0].numel()) + 20.0 * static_cast<double>(call.outputs[1].numel());
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"RandomChoiceWithMask", &validateRandomChoiceWithMask,
                                     &computeRandomChoiceWithMask, &costRandomChoiceWithMask});

}  // namespace
}  // namespace ascend_sim
