// OpCommand: the one way ops in csrc/aten reach the device.
//
//   OpCommand("Add").Input(self).Input(other).Output(result).Run();
//
// Operands are resolved in Run(). Inputs are made contiguous (by the NPU's
// own AsStrided op) and kept alive until the launch is queued; outputs must
// be contiguous NPU tensors of the launch device. Tensors stored in a private
// format are read and written through a base-format copy (see Note [Private
// formats and ordinary ops]) unless the op is FormatAgnostic() and all its
// tensor operands share one private format, in which case the op runs on the
// storages directly (see OPS.md, "format-agnostic elementwise ops"). Ops that
// understand a format pass exact descriptors with InputRaw/OutputRaw.
// Run() hands a self-contained AclOpLaunch to the device's task queue (see
// Note [Task queue]) on the current stream.
#pragma once

#include <functional>
#include <type_traits>

#include <ATen/Tensor.h>
#include <c10/core/Scalar.h>

#include "csrc/core/AclOpLaunch.h"

namespace torch_npu {

class OpCommand {
 public:
  explicit OpCommand(std::string op_type);
  // torch_npu's spelling, for extensions: OpCommand cmd; cmd.Name("Add").Input(x)...Run();
  OpCommand() = default;
  OpCommand& Name(const std::string& op_type);

  OpCommand& Input(const at::Tensor& t);
  // A 0-d host input (CANN "const" input) holding `value` converted to `dtype`.
  OpCommand& InputScalar(const c10::Scalar& value, c10::ScalarType dtype);
  OpCommand& Input(const c10::Scalar& value, c10::ScalarType dtype) { return InputScalar(value, dtype); }
  OpCommand& Output(const at::Tensor& t);
  // Exact descriptors (format, storage and origin shapes) for `keep`'s memory.
  OpCommand& InputRaw(AclTensorParam param, const at::Tensor& keep);
  OpCommand& OutputRaw(AclTensorParam param, const at::Tensor& keep);
  // Operands of ops that understand some private formats (Conv2D: NC1HWC0
  // activations, FRACTAL_Z filters): a whole-storage tensor in one of
  // `formats` is passed as stored; anything else is passed in its base format.
  OpCommand& InputKeepFormat(const at::Tensor& t, std::initializer_list<aclFormat> formats);
  OpCommand& OutputKeepFormat(const at::Tensor& t, std::initializer_list<aclFormat> formats);
  // The op computes element by element and may run on private formats.
  OpCommand& FormatAgnostic() {
    format_agnostic_ = true;
    return *this;
  }

  OpCommand& Attr(const std::string& name, bool v) { return addAttr(name, v); }
  OpCommand& Attr(const std::string& name, int64_t v) { return addAttr(name, v); }
  OpCommand& Attr(const std::string& name, float v) { return addAttr(name, v); }
  // Any other integer type (int, size_t, uint32_t, ...) is an int64 attribute and any other floating type
  // a float one, as CANN's attribute types are, so that Attr("axis", 1) and Attr("n", v.size()) compile.
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  OpCommand& Attr(const std::string& name, T v) {
    return addAttr(name, static_cast<int64_t>(v));
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  OpCommand& Attr(const std::string& name, T v) {
    return addAttr(name, static_cast<float>(v));
  }
  OpCommand& Attr(const std::string& name, const char* v) { return addAttr(name, std::string(v)); }
  OpCommand& Attr(const std::string& name, std::string v) { return addAttr(name, std::move(v)); }
  OpCommand& Attr(const std::string& name, c10::IntArrayRef v) {
    return addAttr(name, std::vector<int64_t>(v.begin(), v.end()));
  }
  OpCommand& Attr(const std::string& name, std::vector<float> v) { return addAttr(name, std::move(v)); }
  OpCommand& Attr(const std::string& name, c10::ScalarType dtype);

  // torch_npu's hook for a launch the command does not describe, such as an Ascend C kernel's
  // ACLRT_LAUNCH_KERNEL: Run() queues `func` on the device's task queue, in order with every other
  // launch, instead of a CANN op; a non-zero return is the launch's error, reported like an op's.
  // Name() then names the launch in errors, op records and the profiler; operands are not needed.
  using PROC_FUNC = std::function<int()>;
  OpCommand& SetCustomHandler(PROC_FUNC func);

  // Launches the op, or nothing when any output has no elements (Note [Launches
  // with an empty output]).
  void Run();

 private:
  // An operand before Run(): a tensor to resolve, or a ready descriptor.
  struct Operand {
    at::Tensor tensor;
    c10::optional<AclTensorParam> param;
    bool keep_format = false;  // passed as stored (InputKeepFormat/OutputKeepFormat)
  };

  OpCommand& addAttr(const std::string& name, AclAttrValue v);
  // The op type for messages ("<unnamed OpCommand>" before Name()).
  std::string opName() const { return launch_.op_type.empty() ? "<unnamed OpCommand>" : launch_.op_type; }
  void checkDevice(const at::Tensor& t, const char* role, size_t index);
  bool runsOnPrivateStorage() const;
  void runCustomHandler();
  // Describe an operand into `p` (Note [Operands resolved in place]); the operand is spent.
  void resolveInput(Operand& in, bool native, AclTensorParam& p);
  void resolveOutput(Operand& out, bool native, AclTensorParam& p);

  AclOpLaunch launch_;
  c10::SmallVector<Operand, 3> inputs_;
  c10::SmallVector<Operand, 2> outputs_;
  c10::SmallVector<at::Tensor, 4> keep_alive_;  // tensors made by Run() for the launch, until it is queued
  // (private-format output, base-format temporary the op writes)
  c10::SmallVector<std::pair<at::Tensor, at::Tensor>, 1> write_backs_;
  c10::optional<c10::Device> device_;
  bool format_agnostic_ = false;
  PROC_FUNC custom_handler_;       // SetCustomHandler
  bool check_registered_ = false;  // named by Name(): Run() checks the simulator has the op
  // Note [Launches with an empty output]
  // An op with an output of no elements is not launched at all: there is
  // nothing to compute, and no kernel need handle zero-size outputs. This also
  // skips the op's other outputs, so an op whose outputs can be empty on their
  // own (a padded result beside a count, say) must write those others itself
  // when one is empty, e.g. npu_nms_v4 with max_output_size 0.
  bool empty_output_ = false;
};

}  // namespace torch_npu
