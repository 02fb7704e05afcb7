#include "csrc/core/AclOpLaunch.h"

#include <memory>

namespace torch_npu {
namespace {

struct DescDeleter {
  void operator()(aclTensorDesc* d) const { aclDestroyTensorDesc(d); }
};
struct BufferDeleter {
  void operator()(aclDataBuffer* b) const { aclDestroyDataBuffer(b); }
};
struct AttrDeleter {
  void operator()(aclopAttr* a) const { aclopDestroyAttr(a); }
};

// Inline room for the usual operand counts: a launch allocates no lists.
struct AclTensors {
  c10::SmallVector<std::unique_ptr<aclTensorDesc, DescDeleter>, 4> desc_owners;
  c10::SmallVector<std::unique_ptr<aclDataBuffer, BufferDeleter>, 4> buffer_owners;
  c10::SmallVector<aclTensorDesc*, 4> descs;
  c10::SmallVector<aclDataBuffer*, 4> buffers;

  void add(const AclTensorParam& p) {
    aclTensorDesc* d = aclCreateTensorDesc(p.dtype, static_cast<int>(p.shape.size()),
                                           p.shape.data(), p.format);
    if (p.origin_shape.size() != p.shape.size() ||
        !std::equal(p.origin_shape.begin(), p.origin_shape.end(), p.shape.begin())) {
      aclSetTensorOriginShape(d, static_cast<int>(p.origin_shape.size()), p.origin_shape.data());
    }
    aclSetTensorOriginFormat(d, p.origin_format);
    void* data = p.data;
    size_t bytes = p.bytes;
    if (p.on_host) {
      aclSetTensorPlaceMent(d, ACL_MEMTYPE_HOST);
      data = const_cast<uint8_t*>(p.host_bytes.data());
      bytes = p.host_bytes.size();
    }
    desc_owners.emplace_back(d);
    buffer_owners.emplace_back(aclCreateDataBuffer(data, bytes));
    descs.push_back(d);
    buffers.push_back(buffer_owners.back().get());
  }
};

void setAttr(aclopAttr* attr, const std::string& name, const AclAttrValue& value) {
  const char* n = name.c_str();
  if (auto* b = std::get_if<bool>(&value)) {
    aclopSetAttrBool(attr, n, *b ? 1 : 0);
  } else if (auto* i = std::get_if<int64_t>(&value)) {
    aclopSetAttrInt(attr, n, *i);
  } else if (auto* f = std::get_if<float>(&value)) {
    aclopSetAttrFloat(attr, n, *f);
  } else if (auto* s = std::get_if<std::string>(&value)) {
    aclopSetAttrString(attr, n, s->c_str());
  } else if (auto* li = std::get_if<std::vector<int64_t>>(&value)) {
    aclopSetAttrListInt(attr, n, static_cast<int>(li->size()), li->data());
  } else if (auto* lf = std::get_if<std::vector<float>>(&value)) {
    aclopSetAttrListFloat(attr, n, static_cast<int>(lf->size()), lf->data());
  } else if (auto* dt = std::get_if<aclDataType>(&value)) {
    aclopSetAttrDataType(attr, n, *dt);
  }
}

}  // namespace

aclError AclOpLaunch::execute() const {
  AclTensors in, out;
  for (const auto& p : inputs) in.add(p);
  for (const auto& p : outputs) out.add(p);
  std::unique_ptr<aclopAttr, AttrDeleter> attr(aclopCreateAttr());
  for (const auto& [name, value] : attrs) setAttr(attr.get(), name, value);
  return aclopExecuteV2(op_type.c_str(), static_cast<int>(in.descs.size()), in.descs.data(),
                        in.buffers.data(), static_cast<int>(out.descs.size()), out.descs.data(),
                        out.buffers.data(), attr.get(), stream);
}

}  // namespace torch_npu
