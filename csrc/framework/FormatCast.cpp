#include "csrc/framework/FormatCast.h"

#include <ATen/ATen.h>
#include <c10/util/strides.h>

#include "csrc/framework/DTypes.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"
#include "csrc/framework/NPUTensorFactory.h"
#include "csrc/framework/OpCommand.h"

namespace torch_npu {
AclTensorParam wholeStorageParam(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  TORCH_INTERNAL_ASSERT(desc != nullptr, "NPU tensor without a storage descriptor");
  AclTensorParam p;
  p.dtype = toAclDataType(t.scalar_type());
  p.format = desc->npu_format;
  p.shape = desc->storage_sizes;
  p.origin_format = desc->origin_format;
  p.origin_shape = desc->base_sizes;
  p.data = t.storage().data();
  p.bytes = t.storage().nbytes();
  return p;
}

bool coversWholeStorage(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  return desc != nullptr && t.storage_offset() == 0 && t.is_contiguous() && t.sizes().equals(desc->base_sizes);
}

void describeBase(const at::Tensor& t, aclFormat base_format, AclTensorParam& p) {
  p.dtype = toAclDataType(t.scalar_type());
  p.format = p.origin_format = base_format;
  p.shape.assign(t.sizes().begin(), t.sizes().end());
  p.origin_shape.assign(t.sizes().begin(), t.sizes().end());
  p.data = t.numel() == 0 ? nullptr : t.data_ptr();
  p.bytes = t.nbytes();
}

namespace {

AclTensorParam baseParam(const at::Tensor& contiguous, aclFormat base_format) {
  AclTensorParam p;
  describeBase(contiguous, base_format, p);
  return p;
}

// A new base-format tensor holding the logical contents of t's whole storage.
at::Tensor wholeStorageAsBase(const at::Tensor& t) {
  const NPUStorageDesc* desc = storageDesc(t);
  const aclFormat base = desc->origin_format;
  at::Tensor out = makeNpuTensor(desc->base_sizes, c10::nullopt, t.scalar_type(), t.device().index(), base);
  OpCommand("TransData").InputRaw(wholeStorageParam(t), t).OutputRaw(baseParam(out, base), out).Run();
  return out;
}

}  // namespace

at::Tensor materializeBase(const at::Tensor& t) {
  if (!hasPrivateFormat(t)) return t;
  at::Tensor base = wholeStorageAsBase(t);
  if (coversWholeStorage(t)) return base;
  return base.as_strided(t.sizes(), t.strides(), t.storage_offset());
}

void writeThroughPrivate(const at::Tensor& dst, const at::Tensor& values) {
  TORCH_INTERNAL_ASSERT(hasPrivateFormat(dst) && values.scalar_type() == dst.scalar_type());
  const aclFormat base = storageDesc(dst)->origin_format;
  at::Tensor whole;
  if (coversWholeStorage(dst)) {
    whole = materializeBase(values).contiguous();
  } else {
    whole = wholeStorageAsBase(dst);
    whole.as_strided(dst.sizes(), dst.strides(), dst.storage_offset()).copy_(values);
  }
  OpCommand("TransData").InputRaw(baseParam(whole, base), whole).OutputRaw(wholeStorageParam(dst), dst).Run();
}

at::Tensor formatCast(const at::Tensor& t, aclFormat format) {
  at::Tensor out = makeNpuTensor(t.sizes(), c10::nullopt, t.scalar_type(), t.device().index(), format);
  if (isBaseFormat(format)) {
    out.copy_(t);
  } else {
    writeThroughPrivate(out, t);
  }
  return out;
}

void castStorageInPlace(const at::Tensor& t, aclFormat format) {
  auto* storage = dynamic_cast<NPUStorageImpl*>(t.storage().unsafeGetStorageImpl());
  TORCH_CHECK(storage != nullptr, "npu_format_cast_: the tensor's storage has no NPU storage descriptor");
  const auto& base_sizes = storage->desc.base_sizes;
  at::Tensor whole = at::empty({0}, t.options()).set_(t.storage(), 0, base_sizes, c10::contiguous_strides(base_sizes));
  at::Tensor cast = formatCast(whole, effectiveFormat(format, base_sizes));
  auto* cast_storage = static_cast<NPUStorageImpl*>(cast.storage().unsafeGetStorageImpl());
  storage->set_nbytes(cast_storage->nbytes());
  storage->set_data_ptr_noswap(cast_storage->set_data_ptr(c10::DataPtr(nullptr, t.device())));
  storage->desc = cast_storage->desc;
}

}  // namespace torch_npu
