#include "csrc/framework/DTypes.h"

#include <c10/util/Exception.h>

namespace torch_npu {

aclDataType toAclDataType(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return ACL_FLOAT;
    case c10::ScalarType::Half: return ACL_FLOAT16;
    case c10::ScalarType::BFloat16: return ACL_BF16;
    case c10::ScalarType::Double: return ACL_DOUBLE;
    case c10::ScalarType::Char: return ACL_INT8;
    case c10::ScalarType::Byte: return ACL_UINT8;
    case c10::ScalarType::Short: return ACL_INT16;
    case c10::ScalarType::Int: return ACL_INT32;
    case c10::ScalarType::Long: return ACL_INT64;
    case c10::ScalarType::Bool: return ACL_BOOL;
    case c10::ScalarType::ComplexFloat: return ACL_COMPLEX64;  // Note [complex64 on the NPU]
    default:
      TORCH_CHECK(false, "dtype ", type, " is not supported by the NPU backend");
  }
}

}  // namespace torch_npu
