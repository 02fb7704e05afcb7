#include "csrc/framework/FormatHelper.h"

#include <atomic>

#include <c10/util/Exception.h>

#include "csrc/core/NPUException.h"
#include "csrc/core/SimulatorExtensions.h"
#include "csrc/framework/DTypes.h"
#include "csrc/framework/NPUStorageImpl.h"

namespace torch_npu {
namespace {

constexpr aclFormat kKnownFormats[] = {ACL_FORMAT_NCHW,      ACL_FORMAT_NHWC,       ACL_FORMAT_ND,
                                       ACL_FORMAT_NC1HWC0,   ACL_FORMAT_FRACTAL_Z,  ACL_FORMAT_FRACTAL_NZ,
                                       ACL_FORMAT_NCDHW,     ACL_FORMAT_NDC1HWC0,   ACL_FRACTAL_Z_3D};

bool isFiveDimFormat(aclFormat f) {
  return f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NDC1HWC0 || f == ACL_FRACTAL_Z_3D;
}

bool isFourDimFormat(aclFormat f) {
  return f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_NC1HWC0 || f == ACL_FORMAT_FRACTAL_Z;
}

}  // namespace

namespace {
std::atomic<bool> g_allow_internal_format{true};
}  // namespace

bool allowInternalFormat() { return g_allow_internal_format.load(std::memory_order_relaxed); }
void setAllowInternalFormat(bool allow) { g_allow_internal_format = allow; }

bool isBaseFormat(aclFormat format) {
  return format == ACL_FORMAT_ND || format == ACL_FORMAT_NCHW || format == ACL_FORMAT_NCDHW;
}

aclFormat baseFormatOf(aclFormat format) {
  if (isFiveDimFormat(format)) return ACL_FORMAT_NCDHW;
  if (isFourDimFormat(format)) return ACL_FORMAT_NCHW;
  return ACL_FORMAT_ND;
}

aclFormat defaultBaseFormat(size_t rank) {
  return rank == 4 ? ACL_FORMAT_NCHW : (rank == 5 ? ACL_FORMAT_NCDHW : ACL_FORMAT_ND);
}

std::string formatName(aclFormat format) {
  const char* name = sim::formatName(format);
  return name ? name : "UNKNOWN(" + std::to_string(static_cast<int>(format)) + ")";
}

aclFormat checkFormatId(int64_t acl_format) {
  for (aclFormat f : kKnownFormats) {
    if (f == acl_format) return f;
  }
  std::string valid;
  for (aclFormat f : kKnownFormats) {
    valid += (valid.empty() ? "" : ", ") + formatName(f) + "=" + std::to_string(static_cast<int>(f));
  }
  TORCH_CHECK(false, "npu format ", acl_format, " is not a valid format id; valid formats are: ", valid);
}

aclFormat effectiveFormat(aclFormat requested, at::IntArrayRef sizes) {
  const size_t rank = sizes.size();
  if (requested == ACL_FORMAT_FRACTAL_NZ && rank < 2) return ACL_FORMAT_ND;
  if (isBaseFormat(requested)) return defaultBaseFormat(rank);
  TORCH_CHECK(!isFourDimFormat(requested) || rank <= 4, "cannot cast a ", rank, "-D tensor of shape ", sizes,
              " to ", formatName(requested), ": the format holds tensors of at most 4 dimensions");
  TORCH_CHECK(!isFiveDimFormat(requested) || rank == 5, "cannot cast a ", rank, "-D tensor of shape ", sizes,
              " to ", formatName(requested), ": the format needs a 5-D (NCDHW) tensor");
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
