// C API: tensor descriptors, data buffers, attributes and aclopExecuteV2.
//
// Note [Launching an op]
// aclopExecuteV2 works in two halves (see Note [Kernel life cycle] in
// kernel/kernel.h). On the calling thread: check the arguments, find the
// kernel, build the OpCall, check every buffer (size against the descriptor;
// device buffers inside a live allocation of the stream's device), capture the
// launch context (precision mode, saturation, core counts), find or compile
// the plan (`validate` + `cost`, cached: Note [Op plans]), copy
// ACL_MEMTYPE_HOST inputs into the task. On the stream's worker: point every
// TensorArg::data at host-accessible memory, run `compute`, apply the fp16
// overflow semantics, and advance the stream clock by the modelled duration.
// Descriptors, buffers and attributes may be destroyed as soon as the call
// returns: the task owns copies of everything it needs.
#include <cstring>
#include <memory>
#include <sstream>

#include "ascend_sim/acl_sim.h"
#include "aicore/units.h"
#include "common/dtype.h"
#include "format/format_registry.h"
#include "runtime/compile_cache.h"
#include "runtime/compile_options.h"
#include "runtime/error_state.h"
#include "runtime/op_descriptors.h"
#include "runtime/op_dump.h"
#include "runtime/runtime.h"

using namespace ascend_sim;

namespace {

std::string shapeString(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? "," : "") << s[i];
  os << ']';
  return os.str();
}

void checkDims(int numDims, const int64_t* dims) {
  if (numDims < 0) throwAcl(ACL_ERROR_INVALID_PARAM, "numDims must be >= 0, got " + std::to_string(numDims));
  if (numDims > 0 && !dims) throwAcl(ACL_ERROR_INVALID_PARAM, "dims must not be null when numDims > 0");
  for (int i = 0; i < numDims; ++i)
    if (dims[i] < 0)
      throwAcl(ACL_ERROR_INVALID_PARAM, "dimension " + std::to_string(i) + " is negative (" + std::to_string(dims[i]) + ")");
}

aclopAttr* checkedAttr(aclopAttr* attr, const char* name) {
  if (!attr) throwAcl(ACL_ERROR_INVALID_PARAM, "attr must not be null");
  if (!name || !*name) throwAcl(ACL_ERROR_INVALID_PARAM, "attribute name must not be null or empty");
  return attr;
}

// Everything a queued op needs once the descriptors are gone.
struct OpLaunch {
  const KernelDef* kernel = nullptr;
  OpCall call;                              // TensorArg::data are nullptr here
  std::vector<void*> input_views;           // host-accessible address per input
  std::vector<void*> output_views;          // host-accessible address per output
  std::vector<std::vector<char>> host_copies;  // ACL_MEMTYPE_HOST inputs
  double duration_us = 0;
  std::shared_ptr<const OpPlan> plan;       // compiled plan (runtime/compile_cache.h)
  std::shared_ptr<const std::string> scope;  // the host's scope at the launch (Note [Op dump])
};

// Fills call->ctx from the device state at launch (Note [Precision mode capture]).
void captureLaunchContext(Runtime& rt, OpCall* call) {
  const ChipConfig& chip = rt.chip();
  call->ctx.precision = currentPrecisionMode(chip);
  call->ctx.fp16_saturation = chip.fp16_saturation;
  call->ctx.high_performance = highPerformanceFor(call->op_type);
  call->ctx.cube_cores = chip.cube_cores;
  call->ctx.vector_cores = chip.vector_cores;
}

// fp16 overflow semantics after an op ran (docs/simulated_device.md, "Chip
// preset and numerics"): every fp16 output is checked by the Vector unit; on a saturation-mode chip inf/NaN
// results become ±65504 / 0 and the device's sticky flag is raised (also when
// the kernel reported an overflowing fp16 intermediate). IEEE chips keep the
// values and never raise the flag. Kernels that only move data
// (KernelDef::moves_data_only) are exempt: a copy does no arithmetic.
// Returns whether it raised the flag.
bool applyFp16Overflow(const OpCall& call, bool kernel_overflow) {
  if (!call.ctx.fp16_saturation) return false;
  bool any = kernel_overflow;
  for (const TensorArg& t : call.outputs)
    if (t.dtype == ACL_FLOAT16 && t.data)
      any = vectorUnit().fp16_overflow(static_cast<uint16_t*>(t.data), t.numel(), true) || any;
  if (any) Runtime::get().device(call.device).raiseOverflow();
  return any;
}

TensorArg makeArg(const aclTensorDesc* d, const aclDataBuffer* b) {
  TensorArg t;
  t.dtype = d->dtype;
  t.format = d->format;
  t.shape = d->shape;
  t.origin_format = d->has_origin_format ? d->origin_format : d->format;
  t.origin_shape = d->has_origin_shape ? d->origin_shape : d->shape;
  t.placement = d->placement;
  t.bytes = b->size;
  return t;
}

// A descriptor in a private format (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...) must
// carry the storage shape the format gives its origin shape (docs/formats.md).
// Base formats are not checked (their origin shape defaults to the storage shape).
void checkStorageFormat(const std::string& op, const char* role, int index, const TensorArg& t) {
  if (!isPrivateFormat(t.format)) return;
  const std::string who = op + ": " + role + " " + std::to_string(index);
  Shape expect;
  std::string err;
  if (!formatStorageShape(t.format, t.dtype, logicalShape(t.origin_format, t.origin_shape), &expect, &err))
    throwAcl(ACL_ERROR_OP_INPUT_NOT_MATCH, who + " in format " + formatToString(t.format) + " with origin shape " +
                                               shapeString(t.origin_shape) + ": " + err +
                                               " (set the logical shape with aclSetTensorOriginShape)");
  if (expect != t.shape)
    throwAcl(ACL_ERROR_OP_INPUT_NOT_MATCH, who + " in format " + formatToString(t.format) + " with origin shape " +
                                               shapeString(t.origin_shape) + " must have storage shape " +
                                               shapeString(expect) + ", but its descriptor has " + shapeString(t.shape));
}

// Checks one tensor's buffer; returns the host-accessible address (device
// buffers) or the host pointer (host buffers).
void* checkBuffer(const std::string& op, const char* role, int index, const TensorArg& t, const aclDataBuffer* b,
                  int device, bool is_output) {
  // Built only for a message: this check runs for every operand of every launch.
  const auto who = [&] { return op + ": " + role + " " + std::to_string(index); };
  const size_t item = dtypeSize(t.dtype);
  if (item == 0)
    throwAcl(ACL_ERROR_OP_UNSUPPORTED_DTYPE, who() + " has unknown dtype " + std::to_string(static_cast<int>(t.dtype)));
  const size_t need = static_cast<size_t>(t.numel()) * item;
  const aclError mismatch = is_output ? ACL_ERROR_OP_OUTPUT_NOT_MATCH : ACL_ERROR_OP_INPUT_NOT_MATCH;
  if (b->size < need)
    throwAcl(mismatch, who() + " buffer has " + std::to_string(b->size) + " bytes but its descriptor " +
                           shapeString(t.shape) + " needs " + std::to_string(need) + " bytes");
  if (b->size == 0) return b->data;
  if (!b->data) throwAcl(ACL_ERROR_INVALID_PARAM, who() + " buffer data is null but its size is " + std::to_string(b->size));
  Runtime& rt = Runtime::get();
  Device* owner = rt.deviceOwning(b->data);
  if (t.placement == ACL_MEMTYPE_HOST) {
    if (is_output) throwAcl(ACL_ERROR_OP_OUTPUT_NOT_MATCH, who() + " is placed in host memory; outputs must be device memory");
    if (owner)
      throwAcl(ACL_ERROR_RT_INVALID_MEMORY, who() + " is placed in host memory but its buffer " + ptrString(b->data) +
                                                " is device memory");
    return b->data;
  }
  if (!owner)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, who() + " buffer " + ptrString(b->data) + " (" + std::to_string(b->size) +
                                              " bytes) is not device memory");
  if (owner->id() != device)
    throwAcl(ACL_ERROR_RT_INVALID_MEMORY, who() + " buffer " + ptrString(b->data) + " is on device " +
                                              std::to_string(owner->id()) + " but the stream runs on device " +
                                              std::to_string(device));
  return owner->arena().hostView(b->data, b->size);
}

// "Add: msg" unless the kernel already named the op.
std::string withOpPrefix(const std::string& op, const std::string& msg) {
  if (msg.compare(0, op.size() + 1, op + ":") == 0) return msg;
  return op + ": " + msg;
}

double runOp(const std::shared_ptr<OpLaunch>& launch, int stream_id) {
  OpCall& call = launch->call;  // a launch runs once: its call receives the data pointers
  size_t host_copy = 0;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    TensorArg& t = call.inputs[i];
    if (t.placement == ACL_MEMTYPE_HOST)
      t.data = launch->host_copies[host_copy++].data();
    else
      t.data = launch->input_views[i];
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) call.outputs[i].data = launch->output_views[i];
  OpDump& dump = OpDump::get();
  std::unique_ptr<OpDump::Pending> dumped =
      dump.active() ? dump.begin(call, launch->scope ? *launch->scope : std::string()) : nullptr;
  bool overflow = false;
  call.ctx.overflow = &overflow;
  launch->kernel->compute(call);
  bool raised = false;
  if (launch->kernel->saturates_fp16_outputs) {
    raised = overflow && call.ctx.fp16_saturation;
    if (raised) Runtime::get().device(call.device).raiseOverflow();
  } else if (!launch->kernel->moves_data_only) {
    raised = applyFp16Overflow(call, overflow);
  }
  if (dumped) dump.end(std::move(dumped), call, stream_id, raised);
  return launch->duration_us;
}

}  // namespace

extern "C" {

ASCEND_SIM_API aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t* dims,
                                                  aclFormat format) {
  aclTensorDesc* out = nullptr;
  guardApi("aclCreateTensorDesc", [&] {
    checkDims(numDims, dims);
    if (dataType != ACL_DT_UNDEFINED && dtypeSize(dataType) == 0)
      throwAcl(ACL_ERROR_INVALID_PARAM, "unknown dtype " + std::to_string(static_cast<int>(dataType)));
    auto d = std::make_unique<aclTensorDesc>();
    d->dtype = dataType;
    d->format = format;
    d->shape.assign(dims, dims + numDims);
    out = d.release();
  });
  return out;
}

ASCEND_SIM_API void aclDestroyTensorDesc(const aclTensorDesc* desc) { delete desc; }

ASCEND_SIM_API aclError aclSetTensorOriginShape(aclTensorDesc* desc, int numDims, const int64_t* dims) {
  return guardApi("aclSetTensorOriginShape", [&] {
    if (!desc) throwAcl(ACL_ERROR_INVALID_PARAM, "desc must not be null");
    checkDims(numDims, dims);
    desc->origin_shape.assign(dims, dims + numDims);
    desc->has_origin_shape = true;
  });
}

ASCEND_SIM_API aclError aclSetTensorOriginFormat(aclTensorDesc* desc, aclFormat format) {
  return guardApi("aclSetTensorOriginFormat", [&] {
    if (!desc) throwAcl(ACL_ERROR_INVALID_PARAM, "desc must not be null");
    desc->origin_format = format;
    desc->has_origin_format = true;
  });
}

ASCEND_SIM_API aclError aclSetTensorPlaceMent(aclTensorDesc* desc, aclMemType memType) {
  return guardApi("aclSetTensorPlaceMent", [&] {
    if (!desc) throwAcl(ACL_ERROR_INVALID_PARAM, "desc must not be null");
    if (memType != ACL_MEMTYPE_DEVICE && memType != ACL_MEMTYPE_HOST)
      throwAcl(ACL_ERROR_INVALID_PARAM, "unknown memory type " + std::to_string(static_cast<int>(memType)));
    desc->placement = memType;
  });
}

ASCEND_SIM_API aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  aclDataBuffer* out = nullptr;
  guardApi("aclCreateDataBuffer", [&] { out = new aclDataBuffer{data, size}; });
  return out;
}

ASCEND_SIM_API aclError aclUpdateDataBufferAddr(aclDataBuffer* dataBuffer, void* data, size_t size) {
  return guardApi("aclUpdateDataBufferAddr", [&] {
    if (!dataBuffer) throwAcl(ACL_ERROR_INVALID_PARAM, "dataBuffer must not be null");
    dataBuffer->data = data;
    dataBuffer->size = size;
  });
}

ASCEND_SIM_API aclError aclDestroyDataBuffer(const aclDataBuffer* buffer) {
  return guardApi("aclDestroyDataBuffer", [&] {
    if (!buffer) throwAcl(ACL_ERROR_INVALID_PARAM, "buffer must not be null");
    delete buffer;
  });
}

ASCEND_SIM_API aclopAttr* aclopCreateAttr(void) {
  aclopAttr* out = nullptr;
  guardApi("aclopCreateAttr", [&] { out = new aclopAttr(); });
  return out;
}

ASCEND_SIM_API void aclopDestroyAttr(const aclopAttr* attr) { delete attr; }

ASCEND_SIM_API aclError aclopSetAttrBool(aclopAttr* attr, const char* name, uint8_t value) {
  return guardApi("aclopSetAttrBool", [&] { checkedAttr(attr, name)->attrs.set(name, value != 0); });
}

ASCEND_SIM_API aclError aclopSetAttrInt(aclopAttr* attr, const char* name, int64_t value) {
  return guardApi("aclopSetAttrInt", [&] { checkedAttr(attr, name)->attrs.set(name, value); });
}

ASCEND_SIM_API aclError aclopSetAttrFloat(aclopAttr* attr, const char* name, float value) {
  return guardApi("aclopSetAttrFloat", [&] { checkedAttr(attr, name)->attrs.set(name, value); });
}

ASCEND_SIM_API aclError aclopSetAttrString(aclopAttr* attr, const char* name, const char* value) {
  return guardApi("aclopSetAttrString", [&] {
    if (!value) throwAcl(ACL_ERROR_INVALID_PARAM, "value of attribute '" + std::string(name ? name : "") + "' is null");
    checkedAttr(attr, name)->attrs.set(name, std::string(value));
  });
}

ASCEND_SIM_API aclError aclopSetAttrListInt(aclopAttr* attr, const char* name, int numValues, const int64_t* values) {
  return guardApi("aclopSetAttrListInt", [&] {
    checkedAttr(attr, name);
    if (numValues < 0 || (numValues > 0 && !values))
      throwAcl(ACL_ERROR_INVALID_PARAM, "bad list for attribute '" + std::string(name) + "': " +
                                            std::to_string(numValues) + " values at " + ptrString(values));
    attr->attrs.set(name, std::vector<int64_t>(values, values + numValues));
  });
}

ASCEND_SIM_API aclError aclopSetAttrListFloat(aclopAttr* attr, const char* name, int numValues, const float* values) {
  return guardApi("aclopSetAttrListFloat", [&] {
    checkedAttr(attr, name);
    if (numValues < 0 || (numValues > 0 && !values))
      throwAcl(ACL_ERROR_INVALID_PARAM, "bad list for attribute '" + std::string(name) + "': " +
                                            std::to_string(numValues) + " values at " + ptrString(values));
    attr->attrs.set(name, std::vector<float>(values, values + numValues));
  });
}

ASCEND_SIM_API aclError aclopSetAttrDataType(aclopAttr* attr, const char* name, aclDataType value) {
  return guardApi("aclopSetAttrDataType", [&] { checkedAttr(attr, name)->attrs.set(name, value); });
}

ASCEND_SIM_API int aclsimIsOpRegistered(const char* opType) {
  return opType && findKernel(opType) != nullptr ? 1 : 0;
}

ASCEND_SIM_API aclError aclopExecuteV2(const char* opType, int numInputs, aclTensorDesc* inputDesc[],
                                       aclDataBuffer* inputs[], int numOutputs, aclTensorDesc* outputDesc[],
                                       aclDataBuffer* outputs[], aclopAttr* attr, aclrtStream stream) {
  return guardApi("aclopExecuteV2", [&] {
    if (!opType || !*opType) throwAcl(ACL_ERROR_INVALID_PARAM, "opType must not be null or empty");
    const std::string op = opType;
    if (numInputs < 0 || numOutputs < 0)
      throwAcl(ACL_ERROR_INVALID_PARAM, op + ": negative tensor count (numInputs " + std::to_string(numInputs) +
                                            ", numOutputs " + std::to_string(numOutputs) + ")");
    if (numInputs > 0 && (!inputDesc || !inputs))
      throwAcl(ACL_ERROR_INVALID_PARAM, op + ": inputDesc and inputs must not be null when numInputs > 0");
    if (numOutputs > 0 && (!outputDesc || !outputs))
      throwAcl(ACL_ERROR_INVALID_PARAM, op + ": outputDesc and outputs must not be null when numOutputs > 0");
    for (int i = 0; i < numInputs; ++i)
      if (!inputDesc[i] || !inputs[i])
        throwAcl(ACL_ERROR_INVALID_PARAM, op + ": input " + std::to_string(i) + " has a null descriptor or buffer");
    for (int i = 0; i < numOutputs; ++i)
      if (!outputDesc[i] || !outputs[i])
        throwAcl(ACL_ERROR_INVALID_PARAM, op + ": output " + std::to_string(i) + " has a null descriptor or buffer");

    const KernelDef* kernel = findKernel(op);
    if (!kernel) throwAcl(ACL_ERROR_OP_NOT_FOUND, "no kernel for op type '" + op + "' in the simulated NPU");

    Runtime& rt = Runtime::get();
    std::shared_ptr<Stream> s = rt.stream(stream);
    auto launch = std::make_shared<OpLaunch>();
    launch->kernel = kernel;
    OpCall& call = launch->call;
    call.op_type = op;
    call.device = s->device();
    if (attr) call.attrs = attr->attrs;
    call.inputs.reserve(static_cast<size_t>(numInputs));
    call.outputs.reserve(static_cast<size_t>(numOutputs));
    launch->input_views.reserve(static_cast<size_t>(numInputs));
    launch->output_views.reserve(static_cast<size_t>(numOutputs));
    for (int i = 0; i < numInputs; ++i) {
      TensorArg t = makeArg(inputDesc[i], inputs[i]);
      checkStorageFormat(op, "input", i, t);
      void* p = checkBuffer(op, "input", i, t, inputs[i], call.device, false);
      if (t.placement == ACL_MEMTYPE_HOST) {
        const char* src = static_cast<const char*>(p);
        launch->host_copies.emplace_back(src, src + inputs[i]->size);
        p = nullptr;
      }
      launch->input_views.push_back(p);
      call.inputs.push_back(std::move(t));
    }
    for (int i = 0; i < numOutputs; ++i) {
      TensorArg t = makeArg(outputDesc[i], outputs[i]);
      checkStorageFormat(op, "output", i, t);
      launch->output_views.push_back(checkBuffer(op, "output", i, t, outputs[i], call.device, true));
      call.outputs.push_back(std::move(t));
    }

    captureLaunchContext(rt, &call);
    try {
      launch->plan = findOrCompilePlan(kernel, call, rt.cost());  // validate + cost, cached
    } catch (const KernelError& e) {
      throw KernelError(e.code(), withOpPrefix(op, e.what()));
    } catch (const AclError& e) {
      throw AclError(e.code(), withOpPrefix(op, e.what()));
    }
    launch->duration_us = launch->plan->duration_us;
    launch->scope = currentHostTag().scope;
    Task task{TaskKind::kOp, op, [launch](Stream& on) { return runOp(launch, on.id()); }};
    task.detail = launch->plan->detail;
    task.may_run_on_submitter = true;  // Note [Ops run on the submitting thread of an idle stream]
    s->submit(std::move(task));
  });
}

}  // extern "C"
