// Everything needed to launch one simulator op, owned by value so it can sit
// in the task queue after the Python thread moved on.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <c10/util/SmallVector.h>

#include "ascend_sim/acl.h"

namespace torch_npu {

struct AclTensorParam {
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;         // storage format
  c10::SmallVector<int64_t, 5> shape;       // storage shape
  aclFormat origin_format = ACL_FORMAT_ND;
  c10::SmallVector<int64_t, 5> origin_shape;
  void* data = nullptr;                     // device pointer (unused for host scalars)
  size_t bytes = 0;
  // For ACL_MEMTYPE_HOST inputs (scalars): the value's bytes.
  bool on_host = false;
  c10::SmallVector<uint8_t, 8> host_bytes;
};

using AclAttrValue = std::variant<bool, int64_t, float, std::string, std::vector<int64_t>,
                                  std::vector<float>, aclDataType>;

struct AclOpLaunch {
  std::string op_type;
  c10::SmallVector<AclTensorParam, 3> inputs;
  c10::SmallVector<AclTensorParam, 2> outputs;
  c10::SmallVector<std::pair<std::string, AclAttrValue>, 4> attrs;
  aclrtStream stream = nullptr;

  // Builds the ACL descriptors and calls aclopExecuteV2; returns its status.
  aclError execute() const;
};

}  // namespace torch_npu
