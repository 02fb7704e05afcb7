#include "csrc/framework/FormatHelper.h"

#include <array>
#include <atomic>

#include <c10/util/Exception.h>

#include "csrc/core/NPUException.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/framework/DTypes.h"
#include "csrc/framework/NPUStorageImpl.h"

namespace torch_npu {
namespace {

// The simulator's row of `format`, or null for an id it does not model. Every new NPU tensor asks
// (effectiveFormat, isBaseFormat), so the rows are indexed by id once rather than searched per call.
const sim::FormatRow* rowOf(aclFormat format) {
  constexpr int kMaxId = 64;  // ACL format ids are small (FRACTAL_Z_3D is 33)
  static const std::array<const sim::FormatRow*, kMaxId> by_id = [] {
    std::array<const sim::FormatRow*, kMaxId> index{};
    for (const sim::FormatRow& row : sim::formatTable()) {
      TORCH_INTERNAL_ASSERT(row.format >= 0 && row.format < kMaxId, "format id ", static_cast<int>(row.format),
                            " outside the plugin's index");
      index[row.format] = &row;
    }
    return index;
  }();
  return format >= 0 && format < kMaxId ? by_id[format] : nullptr;
}

std::atomic<bool> g_allow_internal_format{true};

}  // namespace

bool allowInternalFormat() { return g_allow_internal_format.load(std::memory_order_relaxed); }
void setAllowInternalFormat(bool allow) { g_allow_internal_format = allow; }

bool isBaseFormat(aclFormat format) {
  const sim::FormatRow* row = rowOf(format);
  return row && row->base == format;
}

aclFormat baseFormatOf(aclFormat format) {
  const sim::FormatRow* row = rowOf(format);
  return row ? row->base : ACL_FORMAT_ND;
}

aclFormat defaultBaseFormat(size_t rank) {
  return rank == 4 ? ACL_FORMAT_NCHW : (rank == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND);
}

std::string formatName(aclFormat format) {
  const char* name = sim::formatName(format);
  return name ? name : "UNKNOWN(" + std::to_string(static_cast<int>(format)) + ")";
}

aclFormat checkFormatId(int64_t acl_format) {
  if (rowOf(static_cast<aclFormat>(acl_format))) return static_cast<aclFormat>(acl_format);
  std::string valid;
  for (const sim::FormatRow& row : sim::formatTable()) {
    valid += (valid.empty() ? "" : ", ") + row.name + "=" + std::to_string(static_cast<int>(row.format));
  }
  TORCH_CHECK(false, "npu format ", acl_format, " is not a valid format id; valid formats are: ", valid);
}

aclFormat effectiveFormat(aclFormat requested, at::IntArrayRef sizes) {
  const size_t rank = sizes.size();
  // torch_npu's rule, not the table's: FRACTAL_NZ on a vector or a scalar stays ND.
  if (requested == ACL_FORMAT_FRACTAL_NZ && rank < 2) return ACL_FORMAT_ND;
  if (isBaseFormat(requested)) return defaultBaseFormat(rank);
  const sim::FormatRow* row = rowOf(requested);
  TORCH_CHECK(row, "npu format ", static_cast<int>(requested), " is not a valid format id");
  const auto r = static_cast<int>(rank);
  if (row->min_rank == row->max_rank) {
    TORCH_CHECK(r == row->max_rank, "cannot cast a ", rank, "-D tensor of shape ", sizes, " to ", row->name,
                ": the format needs a ", row->max_rank, "-D (", formatName(row->base), ") tensor");
  }
  TORCH_CHECK(r <= row->max_rank, "cannot cast a ", rank, "-D tensor of shape ", sizes, " to ", row->name,
              ": the format holds tensors of at most ", row->max_rank, " dimensions");
  TORCH_CHECK(r >= row->min_rank, "cannot cast a ", rank, "-D tensor of shape ", sizes, " to ", row->name,
              ": the format holds tensors of at least ", row->min_rank, " dimensions");
  return requested;
}

std::vector<int64_t> storageSizes(aclFormat format, c10::ScalarType dtype, at::IntArrayRef sizes) {
  if (isBaseFormat(format)) return sizes.vec();
  return sim::formatStorageShape(format, toAclDataType(dtype), sizes);
}

aclFormat npuFormatOf(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  return desc ? desc->npu_format : ACL_FORMAT_ND;
}

bool hasPrivateFormat(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  return desc != nullptr && !isBaseFormat(desc->npu_format);
}

}  // namespace torch_npu
