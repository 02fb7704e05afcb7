#include "csrc/framework/OpCommand.h"

#include <algorithm>
#include <cstring>

#include "ascend_sim/acl_sim.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/NPUStream.h"
#include "csrc/core/TaskQueue.h"
#include "csrc/framework/DTypes.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"

namespace torch_npu {
namespace {

// A plain operand: contiguous, in the default base format of its rank.
void describePlain(const at::Tensor& t, AclTensorParam& p) { describeBase(t, defaultBaseFormat(t.dim()), p); }

template <typename T>
void storeScalar(const c10::Scalar& value, c10::SmallVector<uint8_t, 8>& out) {
  const T v = value.to<T>();
  out.resize(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
}

// FRACTAL_NZ's C0 depends on the element size (32 for 1-byte dtypes).
int c0Class(const at::Tensor& t) { return t.element_size() == 1 ? 1 : 0; }

}  // namespace

OpCommand::OpCommand(std::string op_type) { launch_.op_type = std::move(op_type); }

OpCommand& OpCommand::Name(const std::string& op_type) {
  TORCH_CHECK(!op_type.empty(), "OpCommand::Name: the op type is empty");
  TORCH_CHECK(launch_.op_type.empty() || launch_.op_type == op_type, "OpCommand::Name(\"", op_type,
              "\"): this command already runs \"", launch_.op_type, "\"; use one OpCommand per op");
  launch_.op_type = op_type;
  check_registered_ = true;
  return *this;
}

OpCommand& OpCommand::SetCustomHandler(PROC_FUNC func) {
  TORCH_CHECK(func, "OpCommand::SetCustomHandler: the handler of ", opName(), " is empty");
  custom_handler_ = std::move(func);
  return *this;
}

// A custom handler's launch: queued like an op, on the device of its operands or the current one.
void OpCommand::runCustomHandler() {
  TORCH_CHECK(inputs_.empty() && outputs_.empty(), "NPU op ", launch_.op_type,
              ": a command with a custom handler takes no Input or Output (the handler launches the work)");
  const c10::DeviceIndex device = device_ ? device_->index() : current_device();
  TaskQueue::forDevice(device).enqueue(
      CallTask{launch_.op_type, [handler = std::move(custom_handler_)] { return static_cast<aclError>(handler()); }});
}

void OpCommand::checkDevice(const at::Tensor& t, const char* role, size_t index) {
  TORCH_CHECK(t.defined(), "NPU op ", opName(), ": ", role, " ", index, " is undefined");
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, "NPU op ", opName(), ": ", role, " ", index, " is on ",
              t.device(), ", but the op runs on the NPU; move the tensor with .npu() or .to('npu')");
  if (!device_) {
    device_ = t.device();
  } else {
    TORCH_CHECK(*device_ == t.device(), "Expected all tensors to be on the same device, but found ",
                "at least two devices, ", *device_, " and ", t.device(), " (NPU op ", opName(), ", ", role, " ", index,
                ")");
  }
}

OpCommand& OpCommand::Input(const at::Tensor& t) {
  checkDevice(t, "input", inputs_.size());
  inputs_.push_back(Operand{t, c10::nullopt});
  return *this;
}

OpCommand& OpCommand::InputScalar(const c10::Scalar& value, c10::ScalarType dtype) {
  AclTensorParam p;
  p.dtype = toAclDataType(dtype);
  p.on_host = true;
  switch (dtype) {
    case c10::ScalarType::Float: storeScalar<float>(value, p.host_bytes); break;
    case c10::ScalarType::Half: storeScalar<c10::Half>(value, p.host_bytes); break;
    case c10::ScalarType::BFloat16: storeScalar<c10::BFloat16>(value, p.host_bytes); break;
    case c10::ScalarType::Double: storeScalar<double>(value, p.host_bytes); break;
    case c10::ScalarType::Char: storeScalar<int8_t>(value, p.host_bytes); break;
    case c10::ScalarType::Byte: storeScalar<uint8_t>(value, p.host_bytes); break;
    case c10::ScalarType::Short: storeScalar<int16_t>(value, p.host_bytes); break;
    case c10::ScalarType::Int: storeScalar<int32_t>(value, p.host_bytes); break;
    case c10::ScalarType::Long: storeScalar<int64_t>(value, p.host_bytes); break;
    case c10::ScalarType::Bool: storeScalar<bool>(value, p.host_bytes); break;
    case c10::ScalarType::ComplexFloat: storeScalar<c10::complex<float>>(value, p.host_bytes); break;
    default: TORCH_CHECK(false, "NPU op ", opName(), ": scalar dtype ", dtype, " is not supported");
  }
  p.bytes = p.host_bytes.size();
  inputs_.push_back(Operand{at::Tensor(), std::move(p)});
  return *this;
}

OpCommand& OpCommand::Output(const at::Tensor& t) {
  checkDevice(t, "output", outputs_.size());
  TORCH_CHECK(t.is_contiguous(), "NPU op ", opName(), ": output ", outputs_.size(), " is not contiguous (sizes ",
              t.sizes(), ", strides ", t.strides(), "); allocate outputs with at::empty or call .contiguous()");
  if (t.numel() == 0) empty_output_ = true;
  outputs_.push_back(Operand{t, c10::nullopt});
  return *this;
}

OpCommand& OpCommand::InputRaw(AclTensorParam param, const at::Tensor& keep) {
  checkDevice(keep, "input", inputs_.size());
  keep_alive_.push_back(keep);
  inputs_.push_back(Operand{at::Tensor(), std::move(param)});
  return *this;
}

OpCommand& OpCommand::OutputRaw(AclTensorParam param, const at::Tensor& keep) {
  checkDevice(keep, "output", outputs_.size());
  if (keep.numel() == 0) empty_output_ = true;
  keep_alive_.push_back(keep);
  outputs_.push_back(Operand{at::Tensor(), std::move(param)});
  return *this;
}

namespace {
bool keepsFormat(const at::Tensor& t, std::initializer_list<aclFormat> formats) {
  if (!hasPrivateFormat(t) || !coversWholeStorage(t)) return false;
  const aclFormat f = npuFormatOf(t);
  return std::find(formats.begin(), formats.end(), f) != formats.end();
}
}  // namespace

OpCommand& OpCommand::InputKeepFormat(const at::Tensor& t, std::initializer_list<aclFormat> formats) {
  checkDevice(t, "input", inputs_.size());
  inputs_.push_back(Operand{t, c10::nullopt, keepsFormat(t, formats)});
  return *this;
}

OpCommand& OpCommand::OutputKeepFormat(const at::Tensor& t, std::initializer_list<aclFormat> formats) {
  checkDevice(t, "output", outputs_.size());
  if (t.numel() == 0) empty_output_ = true;
  outputs_.push_back(Operand{t, c10::nullopt, keepsFormat(t, formats)});
  return *this;
}

OpCommand& OpCommand::Attr(const std::string& name, c10::ScalarType dtype) {
  return addAttr(name, toAclDataType(dtype));
}

OpCommand& OpCommand::addAttr(const std::string& name, AclAttrValue v) {
  launch_.attrs.emplace_back(name, std::move(v));
  return *this;
}

bool OpCommand::runsOnPrivateStorage() const {
  if (!format_agnostic_) return false;
  const at::Tensor* first = nullptr;
  // False if `t` breaks the rule "all tensor operands share one private format".
  auto fits = [&](const at::Tensor& t) {
    if (!hasPrivateFormat(t) || !coversWholeStorage(t)) return false;
    if (first == nullptr) {
      first = &t;
      return true;
    }
    return npuFormatOf(t) == npuFormatOf(*first) && t.sizes().equals(first->sizes()) &&
           (npuFormatOf(t) != ACL_FORMAT_FRACTAL_NZ || c0Class(t) == c0Class(*first));
  };
  for (const Operand& in : inputs_) {
    if (in.tensor.defined() && in.tensor.dim() > 0 && !fits(in.tensor)) return false;  // 0-d: scalars
  }
  for (const Operand& out : outputs_) {
    if (out.tensor.defined() && !fits(out.tensor)) return false;
  }
  return first != nullptr;
}

// Note [Operands resolved in place]
// Run() describes each operand straight into the launch's own parameter list, and an operand that
// is already a contiguous base-format tensor is described as it is: inputs_/outputs_ keep it alive
// until the launch is queued, so only tensors made here (a base-format or contiguous copy) join
// keep_alive_. A launch of small tensors costs about as much as its bookkeeping, so the common case
// copies no parameter and takes no extra reference.
void OpCommand::resolveInput(Operand& in, bool native, AclTensorParam& p) {
  if (in.param) {
    p = std::move(*in.param);
    return;
  }
  const at::Tensor& t = in.tensor;
  if ((native && t.dim() > 0) || in.keep_format) {
    p = wholeStorageParam(t);
    return;
  }
  if (!hasPrivateFormat(t) && t.is_contiguous()) {
    describePlain(t, p);
    return;
  }
  at::Tensor c = materializeBase(t);
  if (!c.is_contiguous()) c = c.contiguous();
  describePlain(c, p);
  keep_alive_.push_back(std::move(c));
}

void OpCommand::resolveOutput(Operand& out, bool native, AclTensorParam& p) {
  if (out.param) {
    p = std::move(*out.param);
    return;
  }
  const at::Tensor& t = out.tensor;
  if (native || out.keep_format) {
    p = wholeStorageParam(t);
  } else if (hasPrivateFormat(t)) {
    at::Tensor temp = at::empty(t.sizes(), t.options());
    describePlain(temp, p);
    write_backs_.emplace_back(t, std::move(temp));
  } else {
    describePlain(t, p);
  }
}

void OpCommand::Run() {
  TORCH_CHECK(!launch_.op_type.empty(), "OpCommand::Run: no op type; call Name(\"OpType\") first");
  if (custom_handler_) return runCustomHandler();
  // Extensions name their ops: an unknown one fails here, where the caller is, not at a later synchronize.
  TORCH_CHECK(!check_registered_ || aclsimIsOpRegistered(launch_.op_type.c_str()) != 0, "OpCommand::Name(\"",
              launch_.op_type,
              "\"): the simulated NPU has no op of that type (CANN op types and their operands: "
              "third_party/ascend_sim/OPS.md)");
  TORCH_CHECK(device_.has_value(), "NPU op ", launch_.op_type, " has no NPU tensor operand: give it an Input or ",
              "Output on the NPU");
  if (empty_output_) return;  // nothing to compute
  const bool native = runsOnPrivateStorage();
  // Note [Operands resolved in place]
  for (Operand& in : inputs_) resolveInput(in, native, launch_.inputs.emplace_back());
  for (Operand& out : outputs_) resolveOutput(out, native, launch_.outputs.emplace_back());
  launch_.stream = currentStreamHandle(device_->index());
  TaskQueue::forDevice(device_->index()).enqueue(std::move(launch_));
  keep_alive_.clear();
  for (auto& [target, temp] : write_backs_) writeThroughPrivate(target, temp);
  write_backs_.clear();
}

}  // namespace torch_npu
