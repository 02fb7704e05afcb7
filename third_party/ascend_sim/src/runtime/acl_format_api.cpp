// C API: the format table (aclsimGetFormatStorageShape, aclsimGetFormatName, aclsimGetFormatInfo), a thin
// wrapper over format/format_registry.h. The origin dims are the logical
// shape in the format's base order (ND, NCHW or NCDHW; NHWC takes NCHW dims).
#include <string>

#include "ascend_sim/acl_sim.h"
#include "format/format_registry.h"
#include "runtime/error_state.h"

using namespace ascend_sim;

extern "C" {

ASCEND_SIM_API aclError aclsimGetFormatStorageShape(aclFormat format, aclDataType dtype, int numOriginDims,
                                                 const int64_t* originDims, int* numStorageDims,
                                                 int64_t storageDims[ACL_MAX_DIM_CNT]) {
  return guardApi("aclsimGetFormatStorageShape", [&] {
    if (!numStorageDims || !storageDims)
      throwAcl(ACL_ERROR_INVALID_PARAM, "numStorageDims and storageDims must not be null");
    if (numOriginDims < 0 || numOriginDims > ACL_MAX_DIM_CNT)
      throwAcl(ACL_ERROR_INVALID_PARAM, "numOriginDims must be in [0, " + std::to_string(ACL_MAX_DIM_CNT) +
                                            "], got " + std::to_string(numOriginDims));
    if (numOriginDims > 0 && !originDims)
      throwAcl(ACL_ERROR_INVALID_PARAM, "originDims must not be null when numOriginDims > 0");
    const Shape origin(originDims, originDims + numOriginDims);
    Shape storage;
    std::string err;
    if (!formatStorageShape(format, dtype, origin, &storage, &err)) throwAcl(ACL_ERROR_INVALID_PARAM, err);
    if (storage.size() > ACL_MAX_DIM_CNT)  // cannot happen with the table's rank limits
      throwAcl(ACL_ERROR_INVALID_PARAM, "storage shape " + shapeToString(storage) + " has more than " +
                                            std::to_string(ACL_MAX_DIM_CNT) + " dims");
    *numStorageDims = static_cast<int>(storage.size());
    for (size_t i = 0; i < storage.size(); ++i) storageDims[i] = storage[i];
  });
}

ASCEND_SIM_API const char* aclsimGetFormatName(aclFormat format) {
  const FormatInfo* fi = findFormat(format);
  if (!fi)
    setRecentError("aclsimGetFormatName: unknown format " + std::to_string(static_cast<int>(format)) +
                   " (known formats: " + knownFormatList() + ")");
  return fi ? fi->name : nullptr;
}

ASCEND_SIM_API size_t aclsimGetFormatCount(void) { return allFormats().size(); }

ASCEND_SIM_API aclError aclsimGetFormatInfo(size_t index, aclsimFormatInfo* info) {
  return guardApi("aclsimGetFormatInfo", [&] {
    if (!info) throwAcl(ACL_ERROR_INVALID_PARAM, "info must not be null");
    const std::vector<FormatInfo>& rows = allFormats();
    if (index >= rows.size())
      throwAcl(ACL_ERROR_INVALID_PARAM, "format index " + std::to_string(index) + " is out of range: the table has " +
                                            std::to_string(rows.size()) + " formats");
    const FormatInfo& row = rows[index];
    *info = aclsimFormatInfo{row.format, row.name, row.base, row.padded ? 1 : 0, row.min_rank, row.max_rank};
  });
}

}  // extern "C"
