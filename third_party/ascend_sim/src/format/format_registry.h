// Data formats of the simulated device (docs/formats.md): one table row per
// ACL format with its name, base format, rank rules, storage-shape function
// and element-offset function. Internal to ascend_sim (not installed); the
// functions are exported (ASCEND_SIM_API) so the GoogleTest suites can call
// them directly.
//
// Note [Logical, canonical and storage shapes]
// - The *logical* shape is the tensor's origin shape in the order of its base
//   layout (ND, NCHW or NCDHW). logicalShape() converts an origin shape given
//   in NHWC order (origin_format == NHWC) to NCHW order; every other origin
//   format is taken as is. A logical index is a row-major index of it.
// - The *canonical* shape is the logical shape as the format's row sees it:
//   4-D formats (NHWC, NC1HWC0, FRACTAL_Z) lift rank < 4 with the first dim as
//   C: [C]->[1,C,1,1], [C,H]->[1,C,H,1], [C,H,W]->[1,C,H,W]. Lifting only
//   inserts size-1 dims, so the row-major order of the elements is unchanged.
// - The *storage* shape is what a descriptor of that format carries.
// Row functions take the canonical shape and the format's C0 (16, or 32 for
// FRACTAL_NZ with 1-byte dtypes). Every offset function of this table is
// separable: off(idx) = sum over dims d of off(idx_d * e_d). StorageMap relies
// on it and turns a format into one small offset table per logical dim.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "common/shape.h"

namespace ascend_sim {

struct FormatInfo {
  aclFormat format;       // ACL enum value
  const char* name;       // "NC1HWC0"
  aclFormat base;         // ND, NCHW or NCDHW: the layout logical shapes are given in
  bool padded;            // private format: storage has C0 tiles (pads) -> validated, TransData only
  int min_rank, max_rank; // logical ranks the format holds
  int lift_rank;          // 4: rank < 4 is lifted (see the Note); 0: no lifting
  // Storage shape of a canonical shape.
  Shape (*storage)(const Shape& canon, int64_t c0);
  // Storage offset (elements) of canonical index idx (canon.size() entries).
  int64_t (*offset)(const int64_t* idx, const Shape& canon, int64_t c0);
};

// Every format of the table, in enum order.
ASCEND_SIM_API const std::vector<FormatInfo>& allFormats();
// The row of `f`, or nullptr for a format the simulator does not model.
ASCEND_SIM_API const FormatInfo* findFormat(aclFormat f);
// "NCHW(0), NHWC(1), ND(2), ..." for error messages.
ASCEND_SIM_API std::string knownFormatList();
// "NC1HWC0", or "format 77" for an unknown value.
ASCEND_SIM_API std::string formatToString(aclFormat f);
// NC1HWC0, FRACTAL_Z, FRACTAL_NZ, NDC1HWC0, FRACTAL_Z_3D.
ASCEND_SIM_API bool isPrivateFormat(aclFormat f);
// C0 of `f` for dtype `dt`: 32 for FRACTAL_NZ with a 1-byte dtype (int8, uint8, bool), else 16.
ASCEND_SIM_API int64_t formatC0(aclFormat f, aclDataType dt);

// Origin shape (in origin_format's order) -> logical shape (base order).
ASCEND_SIM_API Shape logicalShape(aclFormat origin_format, const Shape& origin_shape);

// Storage shape of a tensor with logical shape `logical` in format `f`.
// Returns false and sets *err (unknown format, rank the format cannot hold,
// negative dim, unknown dtype for FRACTAL_NZ) instead of throwing.
ASCEND_SIM_API bool formatStorageShape(aclFormat f, aclDataType dt, const Shape& logical, Shape* out,
                                       std::string* err);

// Closed-form storage offset of one logical element (idx has logical.size()
// entries). Requires formatStorageShape(f, dt, logical) to succeed. For tests
// and random access; bulk access should use StorageMap.
ASCEND_SIM_API int64_t formatElementOffset(aclFormat f, aclDataType dt, const Shape& logical,
                                           const int64_t* idx);

}  // namespace ascend_sim
