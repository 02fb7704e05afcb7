#include "kernel/op_utils.h"

#include <algorithm>

#include "aicore/units.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"

namespace ascend_sim {

void fail(const OpCall& call, aclError code, const std::string& msg) {
  throw KernelError(code, call.op_type + ": " + msg);
}

namespace {
bool isBaseFormat(aclFormat f) {
  return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC ||
         f == ACL_FORMAT_NCDHW;
}
void checkFormat(const OpCall& call, const TensorArg& t, const char* kind, size_t i) {
  if (!isBaseFormat(t.format))
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT,
         std::string(kind) + " " + std::to_string(i) + " has private format " +
             std::to_string(static_cast<int>(t.format)) +
             "; only ND/NCHW/NHWC/NCDHW are supported (TransData it first)");
  for (int64_t d : t.shape)
    if (d < 0)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           std::string(kind) + " " + std::to_string(i) + " has negative dim in shape " +
               shapeToString(t.shape));
}
}  // namespace

namespace {
void checkCounts(const OpCall& call, size_t min_in, size_t max_in, size_t num_out) {
  if (call.inputs.size() < min_in || call.inputs.size() > max_in) {
    std::string want = min_in == max_in ? std::to_string(min_in)
                                        : std::to_string(min_in) + ".." + std::to_string(max_in);
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "expected " + want + " inputs, got " + std::to_string(call.inputs.size()));
  }
  if (call.outputs.size() != num_out)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "expected " + std::to_string(num_out) + " outputs, got " +
             std::to_string(call.outputs.size()));
}

std::string operandName(const char* kind, size_t i) { return std::string(kind) + " " + std::to_string(i); }
std::string formatDesc(aclFormat f) {
  return formatToString(f) + " (format " + std::to_string(static_cast<int>(f)) + ")";
}
}  // namespace

void checkArity(const OpCall& call, size_t min_in, size_t max_in, size_t num_out) {
  checkCounts(call, min_in, max_in, num_out);
  for (size_t i = 0; i < call.inputs.size(); ++i) checkFormat(call, call.inputs[i], "input", i);
  for (size_t i = 0; i < call.outputs.size(); ++i) checkFormat(call, call.outputs[i], "output", i);
}

FormatMode checkArityAnyFormat(const OpCall& call, size_t min_in, size_t max_in, size_t num_out,
                               bool inputs_are_scalars) {
  checkCounts(call, min_in, max_in, num_out);
  // The operands the format rule applies to: outputs, and inputs that are not scalars.
  struct Operand {
    const TensorArg* t;
    const char* kind;
    size_t i;
  };
  std::vector<Operand> ops, scalars;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const TensorArg& t = call.inputs[i];
    (inputs_are_scalars || t.shape.empty() ? scalars : ops).push_back({&t, "input", i});
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) ops.push_back({&call.outputs[i], "output", i});
  const Operand* priv = nullptr;
  for (const Operand& o : ops)
    if (isPrivateFormat(o.t->format)) {
      priv = &o;
      break;
    }
  if (!priv) {  // base formats only: the plain row-major rule
    for (const Operand& o : ops) checkFormat(call, *o.t, o.kind, o.i);
    for (const Operand& o : scalars) checkFormat(call, *o.t, o.kind, o.i);
    return FormatMode::kBase;
  }
  const aclFormat f = priv->t->format;
  bool same = true;
  for (const Operand& o : ops) same = same && o.t->format == f;
  if (!same) {
    std::string list;
    for (const Operand& o : ops)
      list += (list.empty() ? "" : ", ") + operandName(o.kind, o.i) + " is " + formatDesc(o.t->format);
    fail(call, ACL_ERROR_OP_UNSUPPORTED_FORMAT,
         "all operands must share one format to run on a private format (0-d inputs excepted), but " + list +
             "; TransData them to one format first");
  }
  for (const Operand& o : scalars) checkFormat(call, *o.t, o.kind, o.i);  // scalars: base formats
  // Storage shapes must match the origin shapes (the runtime checks this at
  // launch too; direct kernel calls rely on this check), logical shapes must
  // agree (no broadcasting), and storage shapes must agree (same C0).
  std::vector<StorageMap> maps;
  for (const Operand& o : ops) maps.push_back(storageMapOf(call, *o.t, operandName(o.kind, o.i)));
  const Operand& ref = ops.back();  // an output
  const StorageMap& rm = maps.back();
  for (size_t k = 0; k < ops.size(); ++k) {
    const Operand& o = ops[k];
    if (maps[k].logical != rm.logical)
      fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
           operandName(o.kind, o.i) + " origin shape " + shapeToString(o.t->origin_shape) + " does not match " +
               operandName(ref.kind, ref.i) + " origin shape " + shapeToString(ref.t->origin_shape) +
               "; operands in private format " + formatToString(f) + " must have equal origin shapes (no broadcasting)");
  }
  for (const StorageMap& m : maps)
    if (m.storage != rm.storage) return FormatMode::kLogical;  // C0 differs by dtype
  return FormatMode::kStorage;
}

FormatMode formatModeOf(const OpCall& call) {
  const TensorArg* ref = call.outputs.empty() ? nullptr : &call.outputs[0];
  if (!ref || !isPrivateFormat(ref->format)) return FormatMode::kBase;
  for (const TensorArg& t : call.outputs)
    if (t.shape != ref->shape) return FormatMode::kLogical;
  for (const TensorArg& t : call.inputs)
    if (!t.shape.empty() && t.shape != ref->shape) return FormatMode::kLogical;
  return FormatMode::kStorage;
}

void checkDtype(const OpCall& call, const TensorArg& t, const std::string& name, DtypeMask allowed) {
  unsigned v = static_cast<unsigned>(t.dtype);
  if (t.dtype == ACL_DT_UNDEFINED || v >= 32 || !(allowed & (1u << v))) {
    std::string list;
    for (unsigned b = 0; b < 32; ++b)
      if (allowed & (1u << b)) list += std::string(list.empty() ? "" : ", ") +
                                       dtypeName(static_cast<aclDataType>(b));
    fail(call, ACL_ERROR_OP_UNSUPPORTED_DTYPE,
         name + " dtype " + dtypeName(t.dtype) + " is not supported (supported: " +
             list + ")");
  }
}

void checkOneValue(const OpCall& call, const TensorArg& t, const std::string& name, DtypeMask allowed) {
  checkDtype(call, t, name, allowed);
  if (t.numel() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, name + " must hold one value, got shape " + shapeToString(t.shape));
}

void checkSameDtype(const OpCall& call, const TensorArg& a, const std::string& aname,
                    const TensorArg& b, const std::string& bname) {
  if (a.dtype != b.dtype)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         bname + " dtype " + dtypeName(b.dtype) + " does not match " + aname +
             " dtype " + dtypeName(a.dtype));
}

void checkShapeEq(const OpCall& call, const TensorArg& t, const std::string& name,
                  const Shape& want, const std::string& what) {
  if (t.shape != want)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " shape " + shapeToString(t.shape) + " does not match " + what + " " +
             shapeToString(want));
}

void checkBroadcast(const OpCall& call, const TensorArg& in, const std::string& name,
                    const TensorArg& out) {
  if (!broadcastsTo(in.shape, out.shape))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input " + name + " shape " + shapeToString(in.shape) +
             " does not broadcast to output shape " + shapeToString(out.shape));
}

int64_t normalizeAxis(const OpCall& call, int64_t axis, size_t rank, const char* attr) {
  int64_t r = static_cast<int64_t>(rank);
  int64_t lim = r == 0 ? 1 : r;  // a 0-d tensor accepts axis 0 / -1
  if (axis < -lim || axis >= lim)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         std::string("attribute '") + attr + "' value " + std::to_string(axis) +
             " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + lim : axis;
}

AxisSplit splitAtAxis(const OpCall& call, const Shape& s, int64_t axis, const char* attr) {
  AxisSplit a;
  a.axis = normalizeAxis(call, axis, s.size(), attr);
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t i = static_cast<int64_t>(d);
    if (i < a.axis) a.outer *= s[d];
    else if (i == a.axis) a.dim = s[d];
    else a.inner *= s[d];
  }
  return a;
}

namespace {
const AttrValue* findAttr(const OpCall& call, const char* name, bool required) {
  const auto& all = call.attrs.all();
  auto it = all.find(name);
  if (it == all.end()) {
    if (required)
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, std::string("missing required attribute '") + name + "'");
    return nullptr;
  }
  return &it->second;
}
[[noreturn]] void wrongType(const OpCall& call, const char* name, const char* want) {
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
       std::string("attribute '") + name + "' has the wrong type (expected " + want + ")");
}
float toFloat(const OpCall& call, const char* name, const AttrValue& v) {
  if (auto* f = std::get_if<float>(&v)) return *f;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<float>(*i);
  if (auto* b = std::get_if<bool>(&v)) return *b ? 1.0f : 0.0f;  // flags of elementwise specs
  wrongType(call, name, "float");
}
int64_t toInt(const OpCall& call, const char* name, const AttrValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  wrongType(call, name, "int");
}
}  // namespace

float attrFloat(const OpCall& call, const char* name) {
  return toFloat(call, name, *findAttr(call, name, true));
}
float attrFloat(const OpCall& call, const char* name, float fallback) {
  const AttrValue* v = findAttr(call, name, false);
  return v ? toFloat(call, name, *v) : fallback;
}
int64_t attrInt(const OpCall& call, const char* name) {
  return toInt(call, name, *findAttr(call, name, true));
}
int64_t attrInt(const OpCall& call, const char* name, int64_t fallback) {
  const AttrValue* v = findAttr(call, name, false);
  return v ? toInt(call, name, *v) : fallback;
}
bool attrBool(const OpCall& call, const char* name, bool fallback) {
  const AttrValue* v = findAttr(call, name, false);
  return v ? toInt(call, name, *v) != 0 : fallback;
}
std::vector<int64_t> attrInts(const OpCall& call, const char* name) {
  const AttrValue* v = findAttr(call, name, true);
  if (auto* l = std::get_if<std::vector<int64_t>>(v)) return *l;
  if (auto* i = std::get_if<int64_t>(v)) return {*i};
  wrongType(call, name, "list of int");
}
std::vector<int64_t> attrInts(const OpCall& call, const char* name, const std::vector<int64_t>& fallback) {
  return findAttr(call, name, false) ? attrInts(call, name) : fallback;
}
std::string attrString(const OpCall& call, const char* name, const std::string& fallback) {
  const AttrValue* v = findAttr(call, name, false);
  if (!v) return fallback;
  if (auto* s = std::get_if<std::string>(v)) return *s;
  wrongType(call, name, "string");
}

double tensorBytes(const TensorArg& t) {
  return static_cast<double>(t.numel()) * static_cast<double>(dtypeSize(t.dtype));
}

bool buffersOverlap(const TensorArg& a, const TensorArg& b) {
  const char* pa = static_cast<const char*>(a.data);
  const char* pb = static_cast<const char*>(b.data);
  return pa < pb + static_cast<size_t>(tensorBytes(b)) && pb < pa + static_cast<size_t>(tensorBytes(a));
}

CubeRounding cubeRoundingOf(const OpCall& call) {
  if (call.inputs[0].dtype != ACL_FLOAT || call.ctx.precision == PrecisionMode::kMustKeepOriginDtype)
    return CubeRounding::kNone;
  return call.ctx.fp16_saturation ? CubeRounding::kFp16Saturate : CubeRounding::kFp16;
}

KernelCost vectorCost(const OpCall& call) {
  // Accounted through the units: every input streamed GM -> UB once and
  // through the Vector lanes once, every output through the lanes and UB -> GM.
  const VectorUnit& vec = vectorUnit();
  const MteUnit& mte = mteUnit();
  UnitCounters u;
  for (const TensorArg& t : call.inputs) {
    mte.load_f32(t.dtype, nullptr, 0, 1, t.numel(), nullptr, &u);
    u.vector_repeats += vec.repeats(t.numel(), t.dtype);
  }
  int64_t largest = 0;
  for (const TensorArg& t : call.outputs) {
    mte.store_f32(t.dtype, nullptr, 0, t.numel(), nullptr, &u);
    u.vector_repeats += vec.repeats(t.numel(), t.dtype);
    largest = std::max(largest, t.numel());
  }
  for (const TensorArg& t : call.inputs) largest = std::max(largest, t.numel());
  KernelCost c;
  c.core = CoreType::kVector;
  c.vector_repeats = u.vector_repeats;
  c.vector_bytes = u.mte_in_bytes + u.mte_out_bytes;
  c.mte_bytes = u.mte_in_bytes + u.mte_out_bytes;
  c.flops = call.outputs.empty() ? 0 : static_cast<double>(call.outputs[0].numel());
  // The simulated split: one 1024-element chunk per core at least.
  const int64_t chunks = (largest + 1023) / 1024;
  c.block_dim = static_cast<uint32_t>(std::max<int64_t>(1, std::min<int64_t>(chunks, call.ctx.vector_cores)));
  return c;
}

}  // namespace ascend_sim
