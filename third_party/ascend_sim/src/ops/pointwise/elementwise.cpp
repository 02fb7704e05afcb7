#include "ops/pointwise/elementwise.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>

#include "aicore/thread_pool.h"
#include "common/dtype_simd.h"
#include "kernel/format_access.h"

namespace ascend_sim {

namespace {

template <typename T>
struct EngineOps;
template <>
struct EngineOps<float> {
  static constexpr aclDataType kNative = ACL_FLOAT;  // storage dtype equal to the compute domain
  static void load(aclDataType dt, const void* b, int64_t o, int64_t s, int64_t n, float* d, UnitCounters* c) {
    mteUnit().load_f32(dt, b, o, s, n, d, c);
  }
  static void store(aclDataType dt, void* b, int64_t o, int64_t n, const float* src, UnitCounters* c) {
    mteUnit().store_f32(dt, b, o, n, src, c);
  }
  static void map(FloatChunkFn fn, const float* const* in, int nin, float* out, int64_t n, const float* p,
                  const aclDataType* dts, UnitCounters* c) {
    vectorUnit().map_f32(fn, in, nin, out, n, p, dts, c);
  }
};
template <>
struct EngineOps<int64_t> {
  static constexpr aclDataType kNative = ACL_INT64;
  static void load(aclDataType dt, const void* b, int64_t o, int64_t s, int64_t n, int64_t* d, UnitCounters* c) {
    mteUnit().load_i64(dt, b, o, s, n, d, c);
  }
  static void store(aclDataType dt, void* b, int64_t o, int64_t n, const int64_t* src, UnitCounters* c) {
    mteUnit().store_i64(dt, b, o, n, src, c);
  }
  static void map(IntChunkFn fn, const int64_t* const* in, int nin, int64_t* out, int64_t n, const float* p,
                  const aclDataType* dts, UnitCounters* c) {
    vectorUnit().map_i64(fn, in, nin, out, n, p, dts, c);
  }
};

// Whether input `in` may be read in place while `out` is written: it does not
// overlap the output, or it is exactly the output (in-place ops, which read
// element i before writing it).
bool readableInPlace(const TensorArg& in, const TensorArg& out) {
  if (in.data == out.data) return in.shape == out.shape;
  return !buffersOverlap(in, out);
}

// Note [Elementwise operands in place]
// The engine stages each chunk of every operand through fp32 / int64 scratch
// (MTE load, Vector map, MTE store). An operand whose storage dtype already is
// the compute domain (fp32 for float math, int64 for integer math) and that is
// read with unit stride needs no staging: the Vector map reads it, or writes
// the output, in place. The MTE still accounts the same bytes (null buffers
// count only), so counters and simulated time do not change.
// Elements staged per step inside a block's range: two kChunk (the unit of
// the block split, which the cost depends on) so the per-step calls amortise,
// while the fp32 scratch of a binary op (3 x 8 KB) leaves half of a 48 KB L1
// to the streams (4 kChunk filled L1 and ran binary fp16 ops 30 % slower).
// Counters do not change: kChunk elements of every dtype are whole 256-byte
// repeats.
constexpr int64_t kStageChunk = 2 * kChunk;

// Note [fp16 overflow in the store]
// On a saturating chip (910A) every fp16 result beyond ±65504 becomes ±65504,
// a NaN becomes 0, and the device's sticky overflow flag is raised. The
// runtime can scan an op's fp16 outputs after it ran, but that is one more
// single-threaded pass over memory, as long as the op itself. The engine
// instead applies the rule to each chunk it has just stored (still in cache,
// on the block's own thread) and reports through ctx->overflow; the table
// kernels are registered with KernelDef::saturates_fp16_outputs so the
// runtime skips its scan. Same values, same flag, no extra pass.

// One value per block, value-initialised; on the stack for the usual block counts (a launch
// allocates nothing it can avoid: Note [Flat elementwise launches]).
template <typename T>
class PerBlock {
 public:
  explicit PerBlock(int64_t blocks) {
    if (blocks > kInline) heap_.resize(static_cast<size_t>(blocks));
    data_ = blocks > kInline ? heap_.data() : inline_;
  }
  PerBlock(const PerBlock&) = delete;  // data_ may point into this object
  PerBlock& operator=(const PerBlock&) = delete;
  T& operator[](int64_t b) { return data_[b]; }

 private:
  static constexpr int64_t kInline = 64;
  T inline_[kInline] = {};
  std::vector<T> heap_;
  T* data_;
};

// Note [Copies without a map]
// A Cast is a load in the input's dtype, the identity on the Vector unit and
// a store in the output's dtype. On the host the identity pass is a copy of
// every chunk between two scratch buffers (about 2 % of a BERT-base autocast
// step's host time, measured with perf). The engine skips it:
// the store reads the loaded chunk (or the input in place), and an fp32
// output is loaded into directly. The Vector unit still accounts its
// repeats (a map with no function counts only), so the cost is unchanged.
template <typename T>
void copyChunk(const T* const* in, T* o, int64_t n, const float*) {
  if (o != in[0]) std::memcpy(o, in[0], static_cast<size_t>(n) * sizeof(T));
}
}  // namespace

void copyChunkF32(const float* const* in, float* o, int64_t n, const float* p) { copyChunk<float>(in, o, n, p); }
void copyChunkI64(const int64_t* const* in, int64_t* o, int64_t n, const float* p) { copyChunk<int64_t>(in, o, n, p); }

namespace {

template <typename T>
constexpr auto copyChunkOf() {
  if constexpr (std::is_same_v<T, float>) {
    return &copyChunkF32;
  } else {
    return &copyChunkI64;
  }
}

template <typename T, typename Fn>
void runEngine(const TensorArg* const* ins, int nin, const TensorArg& out, Fn fn, const float* params,
               const LaunchContext* ctx, UnitCounters* total) {
  using Ops = EngineOps<T>;
  // Note [Flat elementwise launches]: when every input has the output's shape (read with unit
  // stride) or is a single element (broadcast: stride 0), a block's range is one run. That is what
  // the general walk below finds too (it coalesces such a space into one dimension), without its
  // per-call vectors: most launches of a training step are flat, and many are tiny.
  bool flat = true;
  int64_t flat_strides[5] = {1, 1, 1, 1, 1};
  for (int k = 0; k < nin; ++k) {
    if (ins[k]->shape == out.shape) continue;
    flat = flat && numelOf(ins[k]->shape) == 1;
    flat_strides[k + 1] = 0;
  }
  std::vector<Shape> strides;
  if (!flat) {
    strides.push_back(contiguousStrides(out.shape));
    for (int k = 0; k < nin; ++k) strides.push_back(broadcastStrides(ins[k]->shape, out.shape));
  }
  aclDataType dts[5];
  for (int k = 0; k < nin; ++k) dts[k] = ins[k]->dtype;
  dts[nin] = out.dtype;
  bool execute = out.data != nullptr;
  for (int k = 0; k < nin; ++k) execute = execute && ins[k]->data != nullptr;
  bool in_native[4] = {};
  for (int k = 0; k < nin; ++k)
    in_native[k] = execute && ins[k]->dtype == Ops::kNative && readableInPlace(*ins[k], out);
  const bool out_native = execute && out.dtype == Ops::kNative;
  // Note [Copies without a map]: a copy into another dtype skips the Vector pass; one from a
  // staged input into the native output loads straight into the output.
  const bool copy = execute && nin == 1 && fn == copyChunkOf<T>() && ins[0]->data != out.data;
  const bool load_into_out = copy && out_native && !in_native[0] && !buffersOverlap(*ins[0], out);
  const int64_t numel = numelOf(out.shape);
  const LaunchContext defaults;
  const int64_t blocks = elementwiseBlocks(numel, (ctx ? *ctx : defaults).vector_cores);
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  PerBlock<UnitCounters> cnt(blocks);
  const bool saturate_fp16 = execute && out.dtype == ACL_FLOAT16 && ctx && ctx->fp16_saturation;
  PerBlock<uint8_t> overflowed(blocks);  // per block: no shared writes
  auto block_fn = [&](int64_t b) {
    const int64_t lo = std::min(numel, b * chunks / blocks * kChunk);
    const int64_t hi = std::min(numel, (b + 1) * chunks / blocks * kChunk);
    static thread_local std::vector<T> scratch;  // Note [Reused scratch] (kernel/scratch.h)
    if (execute && scratch.size() < static_cast<size_t>(kStageChunk) * (nin + 1))
      scratch.resize(static_cast<size_t>(kStageChunk) * (nin + 1));
    T* staged[4] = {};
    T* res_staged = execute ? scratch.data() : nullptr;
    for (int k = 0; k < nin; ++k) staged[k] = execute ? scratch.data() + kStageChunk * (k + 1) : nullptr;
    UnitCounters& c = cnt[b];
    auto run = [&](const int64_t* off, int64_t len, const int64_t* st) {
      for (int64_t i = 0; i < len; i += kStageChunk) {
        const int64_t m = len - i < kStageChunk ? len - i : kStageChunk;
        const T* in_ptrs[4] = {};
        for (int k = 0; k < nin; ++k) {
          const int64_t o = off[k + 1] + i * st[k + 1];
          if (load_into_out) {
            Ops::load(ins[k]->dtype, ins[k]->data, o, st[k + 1], m, static_cast<T*>(out.data) + off[0] + i, &c);
            in_ptrs[k] = static_cast<const T*>(out.data) + off[0] + i;
          } else if (in_native[k] && st[k + 1] == 1) {
            in_ptrs[k] = static_cast<const T*>(ins[k]->data) + o;
            Ops::load(ins[k]->dtype, nullptr, o, 1, m, nullptr, &c);  // account only
          } else {
            Ops::load(ins[k]->dtype, ins[k]->data, o, st[k + 1], m, staged[k], &c);
            in_ptrs[k] = staged[k];
          }
        }
        // A staged first input is overwritten by the result (chunk functions allow o == in[k], see
        // Note [Elementwise operands in place]): one scratch buffer less to keep in L1.
        T* res = out_native ? static_cast<T*>(out.data) + off[0] + i
                            : (nin > 0 && in_ptrs[0] == staged[0] ? staged[0] : res_staged);
        if (copy && (load_into_out || !out_native)) {
          res = const_cast<T*>(in_ptrs[0]);                          // read by the store only
          Ops::map(nullptr, in_ptrs, nin, res, m, params, dts, &c);  // account only
        } else {
          Ops::map(execute ? fn : nullptr, in_ptrs, nin, res, m, params, dts, &c);
        }
        uint16_t* const f16_out = saturate_fp16 ? static_cast<uint16_t*>(out.data) + off[0] + i : nullptr;
        if constexpr (std::is_same_v<T, float>) {
          if (f16_out) {  // convert and saturate in one pass
            Ops::store(out.dtype, nullptr, off[0] + i, m, res, &c);  // account only
            if (simd::floatsToHalvesSaturating(res, m, f16_out)) overflowed[b] = 1;
            continue;
          }
        }
        Ops::store(out.dtype, out_native ? nullptr : out.data, off[0] + i, m, res, &c);
        if (f16_out && vectorUnit().fp16_overflow(f16_out, m, true)) overflowed[b] = 1;
      }
    };
    if (!flat) return forEachInnerRunInRange(out.shape, strides, lo, hi, run);
    if (lo >= hi) return;
    int64_t offsets[5];
    for (int k = 0; k <= nin; ++k) offsets[k] = lo * flat_strides[k];
    run(offsets, hi - lo, flat_strides);
  };
  if (execute)
    parallelFor(blocks, numel, block_fn);
  else
    for (int64_t b = 0; b < blocks; ++b) block_fn(b);
  if (total)
    for (int64_t b = 0; b < blocks; ++b) total->add(cnt[b]);
  if (saturate_fp16 && ctx->overflow)
    for (int64_t b = 0; b < blocks; ++b) *ctx->overflow = *ctx->overflow || overflowed[b];
}

std::map<std::string, const ElementwiseSpec*>& specTable() {
  static auto* table = new std::map<std::string, const ElementwiseSpec*>();  // leaked: static-init safe
  return *table;
}

const ElementwiseSpec& specOf(const OpCall& call) { return *specTable().at(call.op_type); }

std::map<std::string, KernelDef>& complexVariants() {
  static auto* variants = new std::map<std::string, KernelDef>();  // leaked: static-init safe
  return *variants;
}

// The complex variant that runs `call` (Note [Complex variants of table ops]), or nullptr.
const KernelDef* complexVariantOf(const OpCall& call) {
  bool complex = false;
  for (const TensorArg& t : call.inputs) complex = complex || isComplexDtype(t.dtype);
  for (const TensorArg& t : call.outputs) complex = complex || isComplexDtype(t.dtype);
  if (!complex) return nullptr;
  const auto it = complexVariants().find(call.op_type);
  return it == complexVariants().end() ? nullptr : &it->second;
}

// Index of the first value (non-condition) input.
int firstValue(const ElementwiseSpec& s) { return s.cond_input == 0 ? 1 : 0; }

void readParams(const OpCall& call, const ElementwiseSpec& s, float* params) {
  for (int i = 0; i < kElementwiseParams; ++i) {
    const FloatAttr& a = s.attrs[i];
    if (!a.name) continue;
    params[i] = a.required ? attrFloat(call, a.name) : attrFloat(call, a.name, a.fallback);
  }
  const EnumAttr& e = s.enum_attr;
  if (e.name) {
    const std::string v = attrString(call, e.name, e.values[0]);
    std::string list;
    for (int i = 0; i < 4 && e.values[i]; ++i) {
      if (v == e.values[i]) {
        params[e.slot] = static_cast<float>(i);
        return;
      }
      list += std::string(list.empty() ? "\"" : ", \"") + e.values[i] + "\"";
    }
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + e.name + "' is \"" + v + "\"; expected one of " + list);
  }
}

void validateElementwise(const OpCall& call) {
  if (const KernelDef* complex = complexVariantOf(call)) return complex->validate(call);
  const ElementwiseSpec& s = specOf(call);
  const FormatMode mode = checkArityAnyFormat(call, s.num_inputs, s.num_inputs, 1);
  const TensorArg& y = call.outputs[0];
  const std::string yname = std::string("output ") + s.names[s.num_inputs];
  const int v0 = firstValue(s);
  const TensorArg& x0 = call.inputs[v0];
  checkDtype(call, x0, std::string("input ") + s.names[v0], s.dtypes);
  Shape bshape;
  for (int k = 0; k < s.num_inputs; ++k) {
    const TensorArg& x = call.inputs[k];
    if (k == s.cond_input) {
      checkDtype(call, x, std::string("input ") + s.names[k], kBoolType);
    } else {
      checkSameDtype(call, x0, s.names[v0], x, s.names[k]);
    }
    if (mode == FormatMode::kLogical) continue;  // equal logical shapes, checked above
    checkBroadcast(call, x, s.names[k], y);
    Shape next;
    broadcastShapes(bshape, x.shape, &next);
    bshape = next;
  }
  switch (s.out) {
    case OutDtype::kSame: checkSameDtype(call, x0, s.names[v0], y, yname); break;
    case OutDtype::kBool: checkDtype(call, y, yname, kBoolType); break;
    case OutDtype::kAny: checkDtype(call, y, yname, s.dtypes); break;  // Cast: any dtype it reads
  }
  if (mode != FormatMode::kLogical && bshape != y.shape)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         yname + " shape " + shapeToString(y.shape) +
             " does not equal the broadcast shape " + shapeToString(bshape) + " of the inputs");
  float params[kElementwiseParams] = {};
  readParams(call, s, params);
}

// Note [fp16 ops on their bits]
// An op that is exact on fp16 bit patterns (Relu keeps x or writes +0) can
// skip the fp32 staging when all its value operands and its output are fp16
// of one shape: the spec's hfn runs on the bits, chunk by chunk in the same
// block split, and the chip's fp16 saturation is applied to each stored
// chunk as the engine does (Note [fp16 overflow in the store]). The results,
// NaNs included (hfn quiets them as the fp32 round trip does), are those of
// the fp32 path; the cost is accounted by the same walk as before.
bool runHalfNative(const ElementwiseSpec& s, const TensorArg* const* ins, const TensorArg& out,
                   const LaunchContext* ctx) {
  if (!s.hfn || out.dtype != ACL_FLOAT16 || out.data == nullptr || s.cond_input >= 0) return false;
  for (int k = 0; k < s.num_inputs; ++k)
    if (ins[k]->dtype != ACL_FLOAT16 || ins[k]->shape != out.shape || ins[k]->data == nullptr ||
        !readableInPlace(*ins[k], out))
      return false;
  const int64_t numel = numelOf(out.shape);
  const LaunchContext defaults;
  const int64_t blocks = elementwiseBlocks(numel, (ctx ? *ctx : defaults).vector_cores);
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  const bool saturate = ctx && ctx->fp16_saturation;
  std::vector<uint8_t> overflowed(static_cast<size_t>(blocks), 0);
  parallelFor(blocks, numel, [&](int64_t b) {
    const int64_t lo = std::min(numel, b * chunks / blocks * kChunk);
    const int64_t hi = std::min(numel, (b + 1) * chunks / blocks * kChunk);
    for (int64_t i = lo; i < hi; i += kStageChunk) {
      const int64_t m = std::min(kStageChunk, hi - i);
      const uint16_t* in_ptrs[4] = {};
      for (int k = 0; k < s.num_inputs; ++k) in_ptrs[k] = static_cast<const uint16_t*>(ins[k]->data) + i;
      uint16_t* o = static_cast<uint16_t*>(out.data) + i;
      s.hfn(in_ptrs, o, m);
      if (saturate && vectorUnit().fp16_overflow(o, m, true)) overflowed[b] = 1;
    }
  });
  if (saturate && ctx->overflow)
    for (uint8_t o : overflowed) *ctx->overflow = *ctx->overflow || o;
  return true;
}

void runSpec(const ElementwiseSpec& s, const TensorArg* const* ins, const TensorArg& out, const float* params,
             const LaunchContext* ctx) {
  if (runHalfNative(s, ins, out, ctx)) return;
  if (isFloatDtype(ins[firstValue(s)]->dtype))
    runElementwiseFloat(ins, s.num_inputs, out, s.ffn, params, ctx);
  else
    runElementwiseInt(ins, s.num_inputs, out, s.ifn, params, ctx);
}

// Private-format operands through logical order: every operand that is not
// 0-d is gathered into a packed row-major copy, the op runs on those as ND,
// and the result is scattered into y's storage with zero pads. Used when the
// storage shapes differ (FRACTAL_NZ C0 by dtype) and for integer ops that may
// fault, so that only logical elements can fault (integer FloorDiv would meet
// x2 = 0 in the pads). Inputs are copied before y is written: in-place safe.
void computeLogical(const OpCall& call, const ElementwiseSpec& s, const float* params) {
  std::vector<TensorArg> args(call.inputs.begin(), call.inputs.end());
  std::vector<std::vector<uint8_t>> bufs(args.size() + 1);
  // a: t as a packed ND tensor of its logical shape, backed by buf.
  auto pack = [&](const TensorArg& t, TensorArg* a, std::vector<uint8_t>* buf, const std::string& who) {
    StorageMap m = storageMapOf(call, t, who);
    buf->resize(static_cast<size_t>(m.logicalNumel()) * dtypeSize(t.dtype) + 1);
    a->format = ACL_FORMAT_ND;
    a->shape = m.logical;
    a->data = buf->data();
    a->bytes = buf->size() - 1;
    return m;
  };
  const TensorArg* ins[4];
  for (size_t k = 0; k < args.size(); ++k) {
    const TensorArg& t = call.inputs[k];
    if (!t.shape.empty()) {
      const StorageMap m = pack(t, &args[k], &bufs[k], "input " + std::to_string(k));
      gatherLogical(t, m, args[k].data);
    }
    ins[k] = &args[k];
  }
  TensorArg out = call.outputs[0];
  const StorageMap mo = pack(call.outputs[0], &out, &bufs.back(), "output 0");
  runSpec(s, ins, out, params, &call.ctx);
  scatterLogical(call.outputs[0], mo, out.data);
}

void computeElementwise(const OpCall& call) {
  if (const KernelDef* complex = complexVariantOf(call)) return complex->compute(call);
  const ElementwiseSpec& s = specOf(call);
  float params[kElementwiseParams] = {};
  readParams(call, s, params);
  const TensorArg* ins[4];
  for (int k = 0; k < s.num_inputs; ++k) ins[k] = &call.inputs[k];
  switch (formatModeOf(call)) {
    case FormatMode::kBase:
      runSpec(s, ins, call.outputs[0], params, &call.ctx);
      return;
    case FormatMode::kStorage:
      if (s.int_may_fault && !isFloatDtype(call.inputs[firstValue(s)].dtype)) {
        computeLogical(call, s, params);  // a pad must not fault
        return;
      }
      runSpec(s, ins, call.outputs[0], params, &call.ctx);
      zeroOutputPads(call);
      return;
    case FormatMode::kLogical:
      computeLogical(call, s, params);
      return;
  }
}

}  // namespace

void zeroOutputPads(const OpCall& call) {
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    const TensorArg& t = call.outputs[i];
    if (!isPrivateFormat(t.format) || t.data == nullptr) continue;
    zeroPads(t, storageMapOf(call, t, "output " + std::to_string(i)));
  }
}

int64_t elementwiseBlocks(int64_t numel, int cores) {
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  return std::max<int64_t>(1, std::min<int64_t>(chunks, std::max(cores, 1)));
}

void runElementwiseFloat(const TensorArg* const* ins, int nin, const TensorArg& out, FloatChunkFn fn,
                         const float* params, const LaunchContext* ctx, UnitCounters* cnt) {
  runEngine<float>(ins, nin, out, fn, params, ctx, cnt);
}

void runElementwiseInt(const TensorArg* const* ins, int nin, const TensorArg& out, IntChunkFn fn,
                       const float* params, const LaunchContext* ctx, UnitCounters* cnt) {
  runEngine<int64_t>(ins, nin, out, fn, params, ctx, cnt);
}

KernelCost elementwiseCost(const OpCall& call) {
  if (const KernelDef* complex = complexVariantOf(call)) return complex->cost(call);
  // Storage shapes differing by C0: every operand's storage streamed once.
  if (formatModeOf(call) == FormatMode::kLogical) return vectorCost(call);
  return elementwiseWalkCost(call);
}

KernelCost elementwiseWalkCost(const OpCall& call) {
  OpCall plan = call;  // account-only walk: no data
  for (TensorArg& t : plan.inputs) t.data = nullptr;
  for (TensorArg& t : plan.outputs) t.data = nullptr;
  const int nin = static_cast<int>(plan.inputs.size());
  const TensorArg* ins[4] = {};
  for (int k = 0; k < nin && k < 4; ++k) ins[k] = &plan.inputs[k];
  // The float and the integer engines count the same bytes and repeats: either will do.
  UnitCounters u;
  runElementwiseFloat(ins, std::min(nin, 4), plan.outputs[0], nullptr, nullptr, &plan.ctx, &u);
  KernelCost c;
  c.core = CoreType::kVector;
  c.vector_repeats = u.vector_repeats;
  c.vector_bytes = u.vector_repeats * static_cast<double>(vectorUnit().bytes_per_repeat);
  c.mte_bytes = u.mte_in_bytes + u.mte_out_bytes;
  c.flops = static_cast<double>(plan.outputs[0].numel());
  c.block_dim = static_cast<uint32_t>(elementwiseBlocks(plan.outputs[0].numel(), plan.ctx.vector_cores));
  return c;
}

void registerComplexVariant(const KernelDef& variant) { complexVariants()[variant.op_type] = variant; }

void registerElementwiseSpecs(const ElementwiseSpec* specs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    specTable()[specs[i].op] = &specs[i];
    KernelDef def{specs[i].op, &validateElementwise, &computeElementwise, &elementwiseCost};
    def.saturates_fp16_outputs = true;  // Note [fp16 overflow in the store]
    registerKernel(def);
  }
}

}  // namespace ascend_sim
