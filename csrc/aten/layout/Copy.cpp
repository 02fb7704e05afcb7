// Note [NPU copy]
// _copy_from is the single entry point of every copy that involves an NPU
// tensor (Tensor.copy_, .to(), .cpu(), .npu(), contiguous(), clone()).
//  - host -> NPU: the source is snapshotted into a contiguous host tensor of
//    the destination dtype (so the caller may modify its tensor right away)
//    and sent by an asynchronous H2D memcpy task.
//  - NPU -> host: the source is made contiguous on the device, copied by a
//    D2H task, and the stream is synchronized before returning.
//  - NPU -> NPU: AsStrided (or Transpose/BroadcastTo, Note [Contiguous views
//    on the AI Core]) gathers a strided source, Cast converts dtypes and
//    ViewCopy scatters into a strided destination; a plain D2D memcpy is used
//    when both sides are dense.
//  - private formats (Note [Private formats and ordinary ops]): between two
//    whole storages of one private format, dtype and shape the storage bytes
//    are copied as they are (one D2D memcpy, no TransData); between two whole
//    storages of one private format and shape but different dtypes, one Cast
//    runs on the storages (format-agnostic, pads stay zero); into any other
//    private-format destination the base-format values of the source are
//    TransData'd into the destination's layout.
// _to_copy (tensor.to(dtype), .float(), .half()) of a whole private-format
// storage keeps its format, as torch_npu's does: an O2 step's fp16 FRACTAL_Z
// gradients become fp32 masters' gradients by one Cast each, not TransData,
// Cast and a base-format tensor.
// Copies between two NPU devices go through the host.
// clone() of a whole private-format storage keeps its format (see
// copyKeepsPrivateFormat) and is such a storage copy.
#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <ATen/ops/_to_copy_native.h>
#include <ATen/ops/clone_native.h>

#include <torch/library.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUStream.h"
#include "csrc/framework/ContiguousOpt.h"
#include "csrc/framework/CopyCommand.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"
#include "csrc/framework/NPUTensorFactory.h"

namespace at_npu {
namespace native {
namespace {

bool isNpu(const at::Tensor& t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

// The whole storage of `t` as a flat contiguous tensor (for AsStrided/ViewCopy).
at::Tensor flatStorage(const at::Tensor& t) {
  const int64_t numel = static_cast<int64_t>(t.storage().nbytes() / t.itemsize());
  return at::empty({0}, t.options()).set_(t.storage(), 0, {numel}, {1});
}

void enqueueCopy(void* dst, const void* src, size_t bytes, aclrtMemcpyKind kind, c10::DeviceIndex device,
                 std::shared_ptr<void> staging = nullptr) {
  torch_npu::CopyCommand(dst, src, bytes, kind, device).KeepAlive(std::move(staging)).Run();
}

// Gathers the (possibly strided, expanded) NPU tensor `src` into the
// contiguous NPU tensor `out` of the same dtype.
// Permutations and expansions of a dense block take the AI Core (Note
// [Contiguous views on the AI Core]); other views AsStrided on the AI CPU.
void gatherInto(const at::Tensor& src, const at::Tensor& out) {
  if (torch_npu::gatherWithAiCoreOps(src, out)) return;
  RECORD_FUNCTION("contiguous_d_AsStrided", std::vector<c10::IValue>({src}));
  torch_npu::OpCommand("AsStrided")
      .Input(flatStorage(src))
      .Output(out)
      .Attr("size", src.sizes())
      .Attr("stride", src.strides())
      .Attr("storage_offset", src.storage_offset())
      .Run();
}

at::Tensor contiguousOnNpu(const at::Tensor& src) {
  if (src.is_contiguous()) return src;
  at::Tensor out = torch_npu::emptyNpuLike(src);
  gatherInto(src, out);
  return out;
}

// Writes the contiguous NPU tensor `src` (same sizes and dtype) into `dst`.
void scatterInto(const at::Tensor& src, const at::Tensor& dst) {
  if (dst.is_contiguous()) {
    enqueueCopy(dst.data_ptr(), src.data_ptr(), dst.nbytes(), ACL_MEMCPY_DEVICE_TO_DEVICE, dst.device().index());
    return;
  }
  at::Tensor flat = flatStorage(dst);
  RECORD_FUNCTION("contiguous_d_ViewCopy", std::vector<c10::IValue>({dst}));
  torch_npu::OpCommand("ViewCopy")
      .Input(src)
      .Output(flat)
      .Attr("size", dst.sizes())
      .Attr("dst_stride", dst.strides())
      .Attr("dst_storage_offset", dst.storage_offset())
      .Run();
}

// True if dst and src are whole storages of one private format and logical
// shape on one device (their dtypes may differ).
bool wholePrivateStoragesOfOneLayout(const at::Tensor& dst, const at::Tensor& src) {
  if (!isNpu(src) || !isNpu(dst) || src.device() != dst.device()) return false;
  if (!torch_npu::hasPrivateFormat(src) || !torch_npu::hasPrivateFormat(dst)) return false;
  if (!torch_npu::coversWholeStorage(src) || !torch_npu::coversWholeStorage(dst)) return false;
  const torch_npu::NPUStorageDesc* s = torch_npu::storageDesc(src);
  const torch_npu::NPUStorageDesc* d = torch_npu::storageDesc(dst);
  return s->npu_format == d->npu_format && s->base_sizes == d->base_sizes;
}

// True if dst and src are whole storages laid out identically (one private
// format, dtype and shape, on one device): a byte copy of the storage is an
// exact copy of the tensor.
bool sameWholePrivateStorage(const at::Tensor& dst, const at::Tensor& src) {
  return src.scalar_type() == dst.scalar_type() && wholePrivateStoragesOfOneLayout(dst, src) &&
         torch_npu::storageDesc(src)->storage_sizes == torch_npu::storageDesc(dst)->storage_sizes &&
         src.storage().nbytes() == dst.storage().nbytes();
}

// True if dst and src are whole storages of one private format and shape on
// one device that differ in dtype only: one format-agnostic Cast converts them.
bool castableWholePrivateStorage(const at::Tensor& dst, const at::Tensor& src) {
  return src.scalar_type() != dst.scalar_type() && wholePrivateStoragesOfOneLayout(dst, src);
}

// Copies the whole storage of src into dst (see sameWholePrivateStorage).
void copyWholeStorage(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.storage().is_alias_of(src.storage()) || dst.storage().nbytes() == 0) return;  // onto itself, or nothing
  const c10::DeviceIndex device = dst.device().index();
  torch_npu::DeviceSwitch guard(device);
  enqueueCopy(dst.storage().data(), src.storage().data(), dst.storage().nbytes(), ACL_MEMCPY_DEVICE_TO_DEVICE,
              device);
}

void copyNpuToNpu(const at::Tensor& dst, const at::Tensor& src) {
  const bool overlap = dst.storage().is_alias_of(src.storage());
  const bool dense_dst = dst.is_contiguous() && !overlap;
  const bool same_dtype = dst.scalar_type() == src.scalar_type();
  at::Tensor s = src;
  if (!s.is_contiguous()) {
    if (dense_dst && same_dtype) {
      gatherInto(s, dst);
      return;
    }
    s = contiguousOnNpu(s);
  }
  if (!same_dtype) {
    at::Tensor cast = dense_dst ? dst : torch_npu::emptyNpuLike(s, dst.scalar_type());
    torch_npu::OpCommand("Cast").Input(s).Output(cast).Attr("dst_type", dst.scalar_type()).Run();
    if (cast.is_same(dst)) return;
    s = cast;
  }
  if (s.is_same(dst)) return;
  scatterInto(s, dst);
}

void copyHostToNpu(const at::Tensor& dst, const at::Tensor& src) {
  at::Tensor host = src.to(dst.scalar_type()).contiguous();
  if (host.storage().is_alias_of(src.storage())) host = host.clone();  // snapshot, see Note [NPU copy]
  const c10::DeviceIndex device = dst.device().index();
  at::Tensor target = dst.is_contiguous() ? dst : torch_npu::emptyNpuLike(dst);
  auto keep = std::make_shared<at::Tensor>(host);
  enqueueCopy(target.data_ptr(), host.data_ptr(), host.nbytes(), ACL_MEMCPY_HOST_TO_DEVICE, device, keep);
  if (!target.is_same(dst)) scatterInto(target, dst);
}

void copyNpuToHost(const at::Tensor& dst, const at::Tensor& src) {
  const c10::DeviceIndex device = src.device().index();
  at::Tensor s = contiguousOnNpu(src);
  const bool direct = dst.is_contiguous() && dst.scalar_type() == s.scalar_type();
  at::Tensor host = direct ? dst : at::empty(s.sizes(), s.options().device(at::kCPU));
  enqueueCopy(host.data_ptr(), s.data_ptr(), s.nbytes(), ACL_MEMCPY_DEVICE_TO_HOST, device);
  torch_npu::getCurrentNPUStream(device).synchronize();
  if (!direct) dst.copy_(host);
}

// Note [Conjugate and negative views in copies]
// x.conj() of a complex tensor and the negative views autograd makes (x.conj().imag) are lazy: they
// share the raw data of x and carry a flag that ops resolve. A copy must write the values, not the
// raw data. Conjugation and negation are involutions that commute, so the destination's raw data
// (its flags toggled off) receives the source's raw data, then is conjugated where the two conj
// flags differ and negated where the two neg flags differ: the destination then reads back the
// source's values. (resolve_conj itself copies, so it cannot be used here: it would recurse.)
// PyTorch's Conjugate and Negative dispatch keys would otherwise materialize a flagged operand of
// _copy_from with clone(), which copies through _copy_from again, forever: _copy_from falls
// through those keys (as copy_ does), and this kernel resolves the flags itself.
bool hasLazyBits(const at::Tensor& t) { return t.is_conj() || t.is_neg(); }

at::Tensor rawView(const at::Tensor& t) {
  at::Tensor raw = t.is_conj() ? t.conj() : t;
  return raw.is_neg() ? raw._neg_view() : raw;
}

}  // namespace

at::Tensor NPUNativeFunctions::_copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  TORCH_CHECK(dst.defined(), "copy_: the destination is undefined");
  if (dst.numel() == 0) return dst;
  if (hasLazyBits(self) || hasLazyBits(dst)) {  // Note [Conjugate and negative views in copies]
    at::Tensor raw_dst = rawView(dst);
    _copy_from(rawView(self), raw_dst, non_blocking);
    if (self.is_conj() != dst.is_conj()) at::conj_physical_(raw_dst);
    if (self.is_neg() != dst.is_neg()) raw_dst.neg_();
    return dst;
  }
  if (sameWholePrivateStorage(dst, self)) {
    copyWholeStorage(dst, self);
    return dst;
  }
  if (castableWholePrivateStorage(dst, self)) {
    torch_npu::DeviceSwitch guard(dst.device().index());
    torch_npu::OpCommand("Cast").Input(self).Output(dst).Attr("dst_type", dst.scalar_type()).FormatAgnostic().Run();
    return dst;
  }
  // See Note [Private formats and ordinary ops].
  const at::Tensor source = isNpu(self) ? torch_npu::materializeBase(self) : self;
  if (isNpu(dst) && torch_npu::hasPrivateFormat(dst)) {
    if (isNpu(source) && source.device() == dst.device() && source.scalar_type() == dst.scalar_type() &&
        source.sizes().equals(dst.sizes())) {
      torch_npu::writeThroughPrivate(dst, source);  // TransData straight from the source's values
      return dst;
    }
    at::Tensor values = at::empty(dst.sizes(), dst.options());
    _copy_from(source, values, non_blocking);
    torch_npu::writeThroughPrivate(dst, values);
    return dst;
  }
  at::Tensor src = source.sizes() == dst.sizes() ? source : source.expand(dst.sizes());
  if (isNpu(src) && isNpu(dst)) {
    if (src.device() == dst.device()) {
      torch_npu::DeviceSwitch guard(dst.device().index());
      copyNpuToNpu(dst, src);
    } else {
      dst.copy_(src.cpu());  // between two NPUs via the host
    }
  } else if (isNpu(dst)) {
    torch_npu::DeviceSwitch guard(dst.device().index());
    copyHostToNpu(dst, src);
  } else {
    TORCH_CHECK(dst.device().is_cpu(), "copy_: cannot copy from ", src.device(), " to ", dst.device());
    torch_npu::DeviceSwitch guard(src.device().index());
    copyNpuToHost(dst, src);
  }
  return dst;
}

at::Tensor NPUNativeFunctions::clone(const at::Tensor& self, c10::optional<at::MemoryFormat> memory_format) {
  if (!torch_npu::copyKeepsPrivateFormat(self, memory_format)) return at::native::clone(self, memory_format);
  at::Tensor out = torch_npu::makeNpuTensor(self.sizes(), c10::nullopt, self.scalar_type(), self.device().index(),
                                            torch_npu::npuFormatOf(self));
  if (sameWholePrivateStorage(out, self)) {
    copyWholeStorage(out, self);
  } else {
    out.copy_(self);  // a storage of unusual size: through the logical values
  }
  return out;
}

at::Tensor NPUNativeFunctions::_to_copy(const at::Tensor& self, c10::optional<at::ScalarType> dtype,
                                        c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                                        c10::optional<bool> pin_memory, bool non_blocking,
                                        c10::optional<at::MemoryFormat> memory_format) {
  // A device without an index means the current one, as in PyTorch's _to_copy.
  const bool same_device =
      !device.has_value() ||
      (device->type() == c10::DeviceType::PrivateUse1 &&
       (device->has_index() ? device->index() : torch_npu::current_device()) == self.device().index());
  const bool same_place = same_device && layout.value_or(at::kStrided) == at::kStrided && !pin_memory.value_or(false);
  if (same_place && !self.has_names() && torch_npu::copyKeepsPrivateFormat(self, memory_format)) {
    at::Tensor out = torch_npu::makeNpuTensor(self.sizes(), c10::nullopt, dtype.value_or(self.scalar_type()),
                                              self.device().index(), torch_npu::npuFormatOf(self));
    _copy_from(self, out, non_blocking);  // a storage copy, or one Cast on the storages
    return out;
  }
  return at::native::_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format);
}

at::Tensor NPUNativeFunctions::_copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  dst.resize_(self.sizes());
  return _copy_from(self, dst, false);
}

}  // namespace native
}  // namespace at_npu

TORCH_LIBRARY_IMPL(aten, Conjugate, m) { m.impl("_copy_from", torch::CppFunction::makeFallthrough()); }
TORCH_LIBRARY_IMPL(aten, Negative, m) { m.impl("_copy_from", torch::CppFunction::makeFallthrough()); }
