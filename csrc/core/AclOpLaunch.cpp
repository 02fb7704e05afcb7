#include "csrc/core/AclOpLaunch.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include <c10/util/ScopeExit.h>

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

// Note [Descriptors reused per thread]
// aclopExecuteV2 copies what it needs from its descriptors and data buffers during the call (so
// does CANN's), so a launching thread keeps them: descriptors in a cache keyed by everything a
// descriptor holds, data buffers in a list re-pointed with aclUpdateDataBufferAddr. A training
// step launches the same few hundred operand kinds again and again; creating and destroying them
// per launch was eight API calls and as many heap allocations for a binary op. A launch made while
// the thread's set is in use (not expected: kernels do not launch) gets a set of its own.
class LaunchDescriptors {
 public:
  void begin() {
    descs.clear();
    buffers.clear();
    // Bounded between launches, never during one (descs holds this launch's descriptors).
    if (cache_.size() >= kMaxCachedDescriptors) cache_.clear();
  }

  void add(const AclTensorParam& p) {
    void* data = p.data;
    size_t bytes = p.bytes;
    if (p.on_host) {
      data = const_cast<uint8_t*>(p.host_bytes.data());
      bytes = p.host_bytes.size();
    }
    descs.push_back(descriptorFor(p));
    if (buffers.size() == buffer_pool_.size()) buffer_pool_.emplace_back(aclCreateDataBuffer(data, bytes));
    aclDataBuffer* b = buffer_pool_[buffers.size()].get();
    aclUpdateDataBufferAddr(b, data, bytes);
    buffers.push_back(b);
  }

  c10::SmallVector<aclTensorDesc*, 4> descs;
  c10::SmallVector<aclDataBuffer*, 4> buffers;
  bool busy = false;

 private:
  struct Key {
    aclDataType dtype;
    aclFormat format;
    aclFormat origin_format;
    bool on_host;
    c10::SmallVector<int64_t, 5> shape;
    c10::SmallVector<int64_t, 5> origin_shape;
    bool operator==(const Key& o) const {
      return dtype == o.dtype && format == o.format && origin_format == o.origin_format && on_host == o.on_host &&
             shape == o.shape && origin_shape == o.origin_shape;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = static_cast<size_t>(k.dtype) * 1000003u ^ static_cast<size_t>(k.format) * 7919u ^
                 static_cast<size_t>(k.origin_format) * 131u ^ (k.on_host ? 1u : 0u);
      for (int64_t d : k.shape) h = h * 31u + static_cast<size_t>(d);
      for (int64_t d : k.origin_shape) h = h * 37u + static_cast<size_t>(d);
      return h;
    }
  };
  // Bounds the cache of a program that launches ever new shapes; a training step needs far fewer.
  static constexpr size_t kMaxCachedDescriptors = 4096;

  aclTensorDesc* descriptorFor(const AclTensorParam& p) {
    Key key{p.dtype, p.format, p.origin_format, p.on_host, p.shape, p.origin_shape};
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second.get();
    aclTensorDesc* d = aclCreateTensorDesc(p.dtype, static_cast<int>(p.shape.size()), p.shape.data(), p.format);
    if (p.origin_shape.size() != p.shape.size() ||
        !std::equal(p.origin_shape.begin(), p.origin_shape.end(), p.shape.begin())) {
      aclSetTensorOriginShape(d, static_cast<int>(p.origin_shape.size()), p.origin_shape.data());
    }
    aclSetTensorOriginFormat(d, p.origin_format);
    if (p.on_host) aclSetTensorPlaceMent(d, ACL_MEMTYPE_HOST);
    return cache_.emplace(std::move(key), std::unique_ptr<aclTensorDesc, DescDeleter>(d)).first->second.get();
  }

  std::unordered_map<Key, std::unique_ptr<aclTensorDesc, DescDeleter>, KeyHash> cache_;
  std::vector<std::unique_ptr<aclDataBuffer, BufferDeleter>> buffer_pool_;
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
  // Note [Descriptors reused per thread]
  thread_local LaunchDescriptors t_in, t_out;
  std::optional<LaunchDescriptors> own_in, own_out;  // only for a launch made while t_in/t_out are in use
  const bool reuse = !t_in.busy;
  LaunchDescriptors& in = reuse ? t_in : own_in.emplace();
  LaunchDescriptors& out = reuse ? t_out : own_out.emplace();
  in.busy = out.busy = true;
  const auto release = c10::make_scope_exit([&] { in.busy = out.busy = false; });
  in.begin();
  out.begin();
  for (const auto& p : inputs) in.add(p);
  for (const auto& p : outputs) out.add(p);
  std::unique_ptr<aclopAttr, AttrDeleter> attr;
  if (!attrs.empty()) {  // no attributes: no attribute object (aclopExecuteV2 takes a null one)
    attr.reset(aclopCreateAttr());
    for (const auto& [name, value] : attrs) setAttr(attr.get(), name, value);
  }
  return aclopExecuteV2(op_type.c_str(), static_cast<int>(in.descs.size()), in.descs.data(), in.buffers.data(),
                        static_cast<int>(out.descs.size()), out.descs.data(), out.buffers.data(), attr.get(), stream);
}

}  // namespace torch_npu
