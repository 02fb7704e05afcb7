// Kernel interface of the simulator: how an op type is validated, executed
// and costed. Internal to ascend_sim (not installed).
//
// Note [Kernel life cycle]
// aclopExecuteV2 (runtime side) builds an OpCall from the C descriptors,
// looks the KernelDef up by op type, and calls `validate` synchronously on the
// calling thread: a KernelError thrown there becomes the call's return code
// and error message. `validate` and `cost` run once per compiled plan (Note
// [Op plans] in runtime/compile_cache.h), so they must depend only on the
// call's dtypes, formats, shapes, attributes and LaunchContext. It then copies the OpCall into a stream task; on the
// stream's worker thread the runtime translates every device buffer to a
// host-accessible pointer (TensorArg::data), calls `compute`, and advances the
// stream's simulated clock by `cost`. A KernelError thrown by `compute` is a
// device fault: the stream records it and the next synchronize reports it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ascend_sim/acl.h"

namespace ascend_sim {

// An error with a specific ACL status code.
class KernelError : public std::runtime_error {
 public:
  KernelError(aclError code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  aclError code() const { return code_; }

 private:
  aclError code_;
};

struct TensorArg {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_ND;         // storage format
  std::vector<int64_t> shape;               // storage shape
  aclFormat origin_format = ACL_FORMAT_ND;  // logical format
  std::vector<int64_t> origin_shape;        // logical shape
  aclMemType placement = ACL_MEMTYPE_DEVICE;
  // Host-accessible data: set by the runtime before `compute` (for
  // ACL_MEMTYPE_HOST inputs it points at the runtime's copy). nullptr during
  // `validate`.
  void* data = nullptr;
  size_t bytes = 0;  // size of the data buffer

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

using AttrValue = std::variant<bool, int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, aclDataType>;

// Named attributes of one op call.
class AttrMap {
 public:
  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // Typed getters: throw KernelError(ACL_ERROR_OP_ATTR_NOT_MATCH) naming the
  // attribute when it is missing (no default given) or has another type.
  template <typename T>
  const T& get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end())
      throw KernelError(ACL_ERROR_OP_ATTR_NOT_MATCH, "missing required attribute '" + name + "'");
    const T* v = std::get_if<T>(&it->second);
    if (!v) throw KernelError(ACL_ERROR_OP_ATTR_NOT_MATCH, "attribute '" + name + "' has the wrong type");
    return *v;
  }
  template <typename T>
  T get(const std::string& name, T fallback) const {
    return has(name) ? get<T>(name) : fallback;
  }
  const std::map<std::string, AttrValue>& all() const { return values_; }

 private:
  std::map<std::string, AttrValue> values_;
};

// How the Cube treats fp32 operands (aclSetCompileopt(ACL_PRECISION_MODE),
// docs/simulated_device.md). Captured into each OpCall at launch; kernels called
// directly (tests) get kMustKeepOriginDtype, i.e. plain fp32.
enum class PrecisionMode {
  kMustKeepOriginDtype = 0,  // "must_keep_origin_dtype": fp32 stays fp32 (910B2 default)
  kAllowFp32ToFp16 = 1,      // "allow_fp32_to_fp16": fp32 cube operands rounded to fp16 (910A default)
  kForceFp16 = 2,            // "force_fp16": as above, and the cube result is rounded through fp16
};

// Device state a kernel may depend on, captured by the runtime when the op is
// launched (never read from globals inside a kernel, so a queued op keeps the
// settings of its launch). The defaults are what direct kernel calls get.
struct LaunchContext {
  PrecisionMode precision = PrecisionMode::kMustKeepOriginDtype;
  bool fp16_saturation = false;  // the chip saturates fp16 (910A)
  // ACL_OP_SELECT_IMPL_MODE selects this op's high_performance implementation
  // (Note [Implementation modes] in runtime/compile_options.h).
  bool high_performance = false;
  int cube_cores = 32;           // simulated cores the kernel may split over
  int vector_cores = 32;
  // Set to true by a kernel (during compute) when an fp16 intermediate that
  // is not an fp16 output overflowed; the runtime ORs it into the device's
  // sticky overflow flag. May be null.
  bool* overflow = nullptr;
};

struct OpCall {
  std::string op_type;
  std::vector<TensorArg> inputs;
  std::vector<TensorArg> outputs;
  AttrMap attrs;
  int32_t device = 0;
  LaunchContext ctx;
};

// Which engine of the AI Core does the work (profiling / cost model).
enum class CoreType { kAiCore, kCube, kVector, kAiCpu, kDma };

// Work counters of one op execution, from which the cost model derives time.
struct KernelCost {
  CoreType core = CoreType::kVector;
  double cube_macs = 0;      // multiply-accumulates on the Cube (padded to 16x16x16 tiles)
  double cube_int8_macs = 0;  // int8 x int8 ones (padded to 16x32x16 tiles), at ChipConfig::cube_int8_speedup
  double vector_bytes = 0;   // bytes processed by the Vector unit
  double mte_bytes = 0;      // bytes moved between HBM and on-chip buffers
  double flops = 0;          // useful floating point operations (for reporting)
  // Vector repeats counted by the Vector unit; 0 = derive from vector_bytes
  // (ceil(vector_bytes / 256)).
  double vector_repeats = 0;
  // Simulated cores the work is split over (block dim); 0 = all cores of the
  // engine. The cost model divides by the cores actually used.
  uint32_t block_dim = 0;
  // Dependent steps of a recurrent kernel (DynamicRNN): each step's Cube
  // product needs the previous step's Vector result, so the Cube and Vector
  // times add up instead of overlapping, plus one core barrier per step
  // (Note [Op cost] in cost/cost_model.h). 0 = independent work.
  uint32_t serial_steps = 0;
};

struct KernelDef {
  const char* op_type;
  // Checks inputs/outputs/attributes; throws KernelError with a message that
  // names the op and says what is wrong (shape, dtype, format, attribute).
  void (*validate)(const OpCall& call);
  // Computes outputs from inputs; all TensorArg::data are valid.
  void (*compute)(const OpCall& call);
  // Work counters (called after validate succeeded).
  KernelCost (*cost)(const OpCall& call);
  // The kernel only moves elements (copies, layouts, gathers): no arithmetic,
  // so fp16 saturation does not apply to its outputs (an inf or NaN being
  // copied stays what it is). Optional, default false.
  bool moves_data_only = false;
  // The kernel applies the chip's fp16 saturation to its fp16 outputs itself
  // (while they are still in cache) and reports overflow through
  // ctx.overflow, so the runtime skips its own scan of those outputs (Note
  // [fp16 overflow in the store] in ops/pointwise/elementwise.cpp). Optional, default false.
  bool saturates_fp16_outputs = false;
};

// Registry (lazily created, deliberately leaked so kernels registered from
// static initialisers in any translation unit are safe).
// Exported (ASCEND_SIM_API) so the GoogleTest suites can call kernels directly.
ASCEND_SIM_API void registerKernel(const KernelDef& def);
ASCEND_SIM_API const KernelDef* findKernel(std::string_view op_type);
ASCEND_SIM_API std::vector<std::string> registeredOpTypes();

struct KernelRegistrar {
  explicit KernelRegistrar(const KernelDef& def) { registerKernel(def); }
};

#define ASCEND_SIM_CONCAT_INNER(a, b) a##b
#define ASCEND_SIM_CONCAT(a, b) ASCEND_SIM_CONCAT_INNER(a, b)
// ASCEND_SIM_REGISTER_KERNEL(KernelDef{"Add", &validateAdd, &computeAdd, &costAdd});
#define ASCEND_SIM_REGISTER_KERNEL(...) \
  static ::ascend_sim::KernelRegistrar ASCEND_SIM_CONCAT(kernel_registrar_, __LINE__)(__VA_ARGS__)

}  // namespace ascend_sim
