// TransData (OPS.md "Layout"): moves a tensor from one data format to another
// (any pair of format_registry.h's formats, any dtype). Every logical element
// moves from its offset in the source layout to its offset in the destination
// layout (an exact permutation through the base layout: the bits are copied,
// never converted); storage elements of the destination that hold no logical
// element (pads) are zero, or a poison value when ASCEND_SIM_TRANSDATA_POISON=1
// (read at every execution, so tests can toggle it): NaN for float dtypes (incl. float64) and
// 0x7F bytes (0x7F, 0x7F7F7F7F, ...) for integer and bool dtypes, so a kernel
// that reads padding is caught.
#include <cstdlib>
#include <cstring>

#include "kernel/format_access.h"
#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

// Any dtype with a size: TransData copies bits, it never converts.
constexpr DtypeMask kTransDataTypes = kAllTypes | dtBit(ACL_INT16) | dtBit(ACL_UINT16) | dtBit(ACL_UINT32) |
                                      dtBit(ACL_UINT64) | dtBit(ACL_DOUBLE);

void checkTransDataArity(const OpCall& call) {
  if (call.inputs.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "expected 1 inputs, got " + std::to_string(call.inputs.size()));
  if (call.outputs.size() != 1)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH, "expected 1 outputs, got " + std::to_string(call.outputs.size()));
}

void validateTransData(const OpCall& call) {
  checkTransDataArity(call);
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  checkDtype(call, x, "input src", kTransDataTypes);
  checkSameDtype(call, x, "src", y, "output dst");
  const StorageMap a = storageMapOf(call, x, "input src");
  const StorageMap b = storageMapOf(call, y, "output dst");
  if (a.logical != b.logical)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "output dst origin shape " + shapeToString(y.origin_shape) + " (" + formatToString(y.origin_format) +
             ") does not match input src origin shape " + shapeToString(x.origin_shape) + " (" +
             formatToString(x.origin_format) + ")");
}

bool poisonEnabled() {
  const char* v = std::getenv("ASCEND_SIM_TRANSDATA_POISON");
  return v && *v && std::strcmp(v, "0") != 0;
}

// Fills n elements of dtype dt with the pad value (zero or poison).
void fillPads(aclDataType dt, void* data, int64_t n, bool poison) {
  const size_t size = dtypeSize(dt);
  if (!poison || n == 0) {
    std::memset(data, 0, static_cast<size_t>(n) * size);
    return;
  }
  switch (dt) {
    case ACL_FLOAT: {
      const uint32_t nan = 0x7FC00000u;
      for (int64_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(data) + i * 4, &nan, 4);
      return;
    }
    case ACL_DOUBLE: {
      const uint64_t nan = 0x7FF8000000000000ull;
      for (int64_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(data) + i * 8, &nan, 8);
      return;
    }
    case ACL_FLOAT16: case ACL_BF16: {
      const uint16_t nan = dt == ACL_FLOAT16 ? 0x7E00u : 0x7FC0u;
      for (int64_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(data) + i * 2, &nan, 2);
      return;
    }
    default:
      std::memset(data, 0x7F, static_cast<size_t>(n) * size);
  }
}

template <typename T>
void permute(const StorageMap& a, const void* src, const StorageMap& b, void* dst) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  forEachLogicalRow(a.logical, {&a, &b}, [&](int64_t, const int64_t* base, int64_t len, const int64_t* const* inner) {
    const T* sp = s + base[0];
    T* dp = d + base[1];
    const int64_t* si = inner[0];
    const int64_t* di = inner[1];
    for (int64_t i = 0; i < len; ++i) dp[di[i]] = sp[si[i]];
  });
}

void computeTransData(const OpCall& call) {
  const TensorArg& x = call.inputs[0];
  const TensorArg& y = call.outputs[0];
  const StorageMap a = storageMapOf(call, x, "input src");
  const StorageMap b = storageMapOf(call, y, "output dst");
  if (b.hasPads()) fillPads(y.dtype, y.data, b.storageNumel(), poisonEnabled());
  switch (dtypeSize(x.dtype)) {
    case 1: permute<uint8_t>(a, x.data, b, y.data); break;
    case 2: permute<uint16_t>(a, x.data, b, y.data); break;
    case 4: permute<uint32_t>(a, x.data, b, y.data); break;
    default: permute<uint64_t>(a, x.data, b, y.data); break;
  }
}

KernelCost costTransData(const OpCall& call) {
  // OPS.md (TransData) and Note [Op cost]: (src + dst storage bytes, padding included) / bandwidth x 1.25.
  // 1.25 is assumed (no published figure): strided C0-block access gets ~80 % of HBM bandwidth (docs/simulator.md §4.6).
  KernelCost c;
  c.core = CoreType::kVector;
  c.mte_bytes = 1.25 * (tensorBytes(call.inputs[0]) + tensorBytes(call.outputs[0]));
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"TransData", &validateTransData, &computeTransData, &costTransData,
                                     /*moves_data_only=*/true});

}  // namespace
}  // namespace ascend_sim
