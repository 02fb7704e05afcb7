// Definitions behind the opaque op-execution handles of acl.h.
#pragma once

#include <cstdint>
#include <vector>

#include "ascend_sim/acl.h"
#include "kernel/kernel.h"

struct aclTensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;
  std::vector<int64_t> shape;  // storage shape
  bool has_origin_format = false;
  aclFormat origin_format = ACL_FORMAT_ND;
  bool has_origin_shape = false;
  std::vector<int64_t> origin_shape;
  aclMemType placement = ACL_MEMTYPE_DEVICE;
};

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct aclopAttr {
  ascend_sim::AttrMap attrs;
};
