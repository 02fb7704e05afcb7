// EmbeddingBag against a double reference written here from the definition
// (Note [Embedding bags]): sum / mean / max, per-sample weights, padding_idx,
// include_last_offset, empty bags, int32 and int64 indices, fp32 and fp16,
// and the faults and validation errors.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "pointwise_test_util.h"

using namespace ascend_sim;
using namespace ascend_sim::test;

namespace {

constexpr int64_t kV = 7, kD = 5;
// Bags [0, 4), [4, 4) (empty), [4, 6), [6, 9): index 3 repeats, index 5 is the padding case.
const std::vector<int64_t> kIndices = {1, 3, 5, 3, 5, 5, 0, 6, 2};
const std::vector<int64_t> kOffsets = {0, 4, 4, 6};

struct Expected {
  std::vector<double> y;
  std::vector<int64_t> offset2bag, bag_size, max_indices;
};

Expected reference(const std::vector<float>& w, const std::vector<float>& psw, const std::string& mode,
                   int64_t padding_idx) {
  const int64_t bags = static_cast<int64_t>(kOffsets.size()), len = static_cast<int64_t>(kIndices.size());
  Expected e;
  e.y.assign(bags * kD, 0.0);
  e.offset2bag.assign(len, 0);
  e.bag_size.assign(bags, 0);
  e.max_indices.assign(mode == "max" ? bags * kD : bags, mode == "max" ? -1 : 0);
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t end = b + 1 < bags ? kOffsets[b + 1] : len;
    for (int64_t k = kOffsets[b]; k < end; ++k) {
      e.offset2bag[k] = b;
      const int64_t r = kIndices[k];
      if (r == padding_idx) continue;
      const bool first = e.bag_size[b]++ == 0;
      for (int64_t j = 0; j < kD; ++j) {
        const double v = w[r * kD + j];
        double& out = e.y[b * kD + j];
        if (mode == "max") {
          if (first || v > out) out = v, e.max_indices[b * kD + j] = r;
        } else {
          out += psw.empty() ? v : v * psw[k];
        }
      }
    }
    if (mode == "mean" && e.bag_size[b] > 0)
      for (int64_t j = 0; j < kD; ++j) e.y[b * kD + j] /= static_cast<double>(e.bag_size[b]);
  }
  return e;
}

struct Bag {
  HostTensor y, offset2bag, bag_size, max_indices;
  Bag(aclDataType dt, aclDataType it, int64_t bags, bool max)
      : y(dt, {bags, kD}), offset2bag(it, {static_cast<int64_t>(kIndices.size())}), bag_size(it, {bags}),
        max_indices(it, max ? Shape{bags, kD} : Shape{bags}) {}
};

}  // namespace

TEST(KernelEmbeddingBag, ModesPaddingAndPerSampleWeights) {
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (aclDataType it : {ACL_INT64, ACL_INT32})
      for (const char* mode : {"sum", "mean", "max"})
        for (int64_t padding_idx : {int64_t{-1}, int64_t{5}})
          for (bool with_psw : {false, true}) {
            if (with_psw && std::string(mode) != "sum") continue;
            SCOPED_TRACE(std::string(dtypeName(dt)) + " " + dtypeName(it) + " " + mode + " padding " +
                         std::to_string(padding_idx) + (with_psw ? " per-sample weights" : ""));
            const std::vector<float> wv = roundedTo(dt, randomFloats(kV * kD, -2, 2, 3));
            const std::vector<float> pv = with_psw ? roundedTo(dt, randomFloats(kIndices.size(), -1, 1, 4)) : std::vector<float>{};
            HostTensor w = HostTensor::floats(dt, {kV, kD}, wv);
            HostTensor idx = HostTensor::ints(it, {static_cast<int64_t>(kIndices.size())}, kIndices);
            HostTensor off = HostTensor::ints(it, {static_cast<int64_t>(kOffsets.size())}, kOffsets);
            HostTensor psw = HostTensor::floats(dt, {static_cast<int64_t>(kIndices.size())}, pv);
            Bag out(dt, it, static_cast<int64_t>(kOffsets.size()), std::string(mode) == "max");
            const AttrMap a = attrs({{"mode", std::string(mode)}, {"padding_idx", padding_idx}});
            if (with_psw)
              run(makeCall("EmbeddingBag", {&w, &idx, &off, &psw},
                           {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices}, a));
            else
              run(makeCall("EmbeddingBag", {&w, &idx, &off}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices}, a));
            const Expected e = reference(wv, pv, mode, padding_idx);
            expectNear(dt, out.y.toFloats(), e.y, 4, 1);
            EXPECT_EQ(out.offset2bag.toInts(), e.offset2bag);
            EXPECT_EQ(out.bag_size.toInts(), e.bag_size);
            EXPECT_EQ(out.max_indices.toInts(), e.max_indices);
          }
}

TEST(KernelEmbeddingBag, IncludeLastOffsetAndNoPositions) {
  // include_last_offset: offsets [0, 4, 4, 6, 9] are 4 bags, the last ending at 9 (= the "no" variant's bags).
  const std::vector<float> wv = randomFloats(kV * kD, -2, 2, 5);
  HostTensor w = HostTensor::floats(ACL_FLOAT, {kV, kD}, wv);
  HostTensor idx = HostTensor::ints(ACL_INT64, {9}, kIndices);
  HostTensor off = HostTensor::ints(ACL_INT64, {5}, {0, 4, 4, 6, 9});
  Bag out(ACL_FLOAT, ACL_INT64, 4, false);
  run(makeCall("EmbeddingBag", {&w, &idx, &off}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices},
               attrs({{"mode", std::string("sum")}, {"include_last_offset", true}})));
  expectNear(ACL_FLOAT, out.y.toFloats(), reference(wv, {}, "sum", -1).y, 4, 1);
  // no positions at all: every bag is empty
  HostTensor none = HostTensor::ints(ACL_INT64, {0}, {}), zeros = HostTensor::ints(ACL_INT64, {2}, {0, 0});
  HostTensor y(ACL_FLOAT, {2, kD}), o2b(ACL_INT64, {0}), size(ACL_INT64, {2}), mi(ACL_INT64, {2, kD});
  run(makeCall("EmbeddingBag", {&w, &none, &zeros}, {&y, &o2b, &size, &mi}, attrs({{"mode", std::string("max")}})));
  EXPECT_EQ(y.toFloats(), std::vector<float>(2 * kD, 0.0f));
  EXPECT_EQ(mi.toInts(), std::vector<int64_t>(2 * kD, -1));
}

TEST(KernelEmbeddingBag, FaultsAndValidation) {
  HostTensor w = HostTensor::floats(ACL_FLOAT, {kV, kD}, randomFloats(kV * kD, -1, 1, 6));
  HostTensor idx = HostTensor::ints(ACL_INT64, {9}, kIndices), off = HostTensor::ints(ACL_INT64, {4}, kOffsets);
  Bag out(ACL_FLOAT, ACL_INT64, 4, false);
  const AttrMap sum = attrs({{"mode", std::string("sum")}});
  HostTensor bad_idx = HostTensor::ints(ACL_INT64, {9}, {1, 3, 7, 3, 5, 5, 0, 6, 2});
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingBag", {&w, &bad_idx, &off}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices}, sum),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "index 7 is out of range for 7 embedding rows");
  HostTensor bad_off = HostTensor::ints(ACL_INT64, {4}, {0, 5, 4, 6});
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingBag", {&w, &idx, &bad_off}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices}, sum),
                      ACL_ERROR_RT_AICORE_EXCEPTION, "offsets[2] = 4 must be non-decreasing");
  HostTensor off32 = HostTensor::ints(ACL_INT32, {4}, kOffsets);
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingBag", {&w, &idx, &off32}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices}, sum),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "offsets");
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingBag", {&w, &idx, &off}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices},
                               attrs({{"mode", std::string("median")}})),
                      ACL_ERROR_OP_ATTR_NOT_MATCH, "\"median\"");
  HostTensor psw = HostTensor::floats(ACL_FLOAT, {9}, randomFloats(9, 0, 1, 7));
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingBag", {&w, &idx, &off, &psw}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices},
                               attrs({{"mode", std::string("mean")}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "only supported in mode \"sum\"");
  Bag max_out(ACL_FLOAT, ACL_INT64, 4, false);  // max_indices must be [B, D] in max mode
  EXPECT_KERNEL_ERROR(makeCall("EmbeddingBag", {&w, &idx, &off}, {&max_out.y, &max_out.offset2bag, &max_out.bag_size, &max_out.max_indices},
                               attrs({{"mode", std::string("max")}})),
                      ACL_ERROR_OP_INPUT_NOT_MATCH, "max_indices");
  const KernelCost c = kernel("EmbeddingBag").cost(makeCall("EmbeddingBag", {&w, &idx, &off}, {&out.y, &out.offset2bag, &out.bag_size, &out.max_indices}, sum));
  EXPECT_EQ(c.core, CoreType::kVector);
  EXPECT_GT(c.mte_bytes, 9 * kD * 4);
}
