#include "ascend_sim/acl_sim.h"
#include "runtime/compile_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/dtype.h"
#include "runtime/compile_options.h"
#include "runtime/disk_cache.h"
#include "runtime/fnv_hash.h"

// aclsimGetFormatName is implemented by the formats module; bind weakly so the
// records fall back to the enum number if it is absent from the build.
#pragma weak aclsimGetFormatName

namespace ascend_sim {

namespace {

using Hasher = FnvHasher;

void hashTensor(Hasher& h, const TensorArg& t) {
  h.pod(static_cast<int32_t>(t.dtype));
  h.pod(static_cast<int32_t>(t.format));
  h.pod(static_cast<int32_t>(t.origin_format));
  h.pod(static_cast<int32_t>(t.placement));
  h.shape(t.shape);
  h.shape(t.origin_shape);
}

void hashAttr(Hasher& h, const AttrValue& v) {
  h.pod(v.index());
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          h.str(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<float>>) {
          h.pod(x.size());
          if (!x.empty()) h.bytes(x.data(), x.size() * sizeof(x[0]));
        } else {
          h.pod(x);
        }
      },
      v);
}

bool sameTensor(const TensorArg& a, const TensorArg& b) {
  return a.dtype == b.dtype && a.format == b.format && a.origin_format == b.origin_format &&
         a.placement == b.placement && a.shape == b.shape && a.origin_shape == b.origin_shape;
}

bool sameKey(const OpCall& a, const OpCall& b) {
  if (a.op_type != b.op_type || a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size())
    return false;
  if (a.ctx.precision != b.ctx.precision || a.ctx.fp16_saturation != b.ctx.fp16_saturation ||
      a.ctx.high_performance != b.ctx.high_performance ||
      a.ctx.cube_cores != b.ctx.cube_cores || a.ctx.vector_cores != b.ctx.vector_cores)
    return false;
  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (!sameTensor(a.inputs[i], b.inputs[i])) return false;
  for (size_t i = 0; i < a.outputs.size(); ++i)
    if (!sameTensor(a.outputs[i], b.outputs[i])) return false;
  return a.attrs.all() == b.attrs.all();
}

// ---- the cache ----
// Note [Binary op mode]
// With ACL_OP_JIT_COMPILE "disable" (torch_npu's set_compile_mode(
// jit_compile=False)) CANN runs prebuilt dynamic-shape binaries: an op is
// "compiled" (loaded) once per op type, dtypes and formats, whatever its
// shapes and attributes. Plans are still built per full key (the cost
// depends on the shapes), but only the first plan of such a binary key counts
// as a compile and logs; with JIT compilation every new shape compiles.
struct PlanCache {
  std::shared_mutex mu;
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<const OpPlan>>> plans;
  std::unordered_set<std::string> binaries;  // binary keys loaded in binary mode
  std::atomic<uint64_t> compiled{0};
};

// "MatMul:FLOAT:ND,FLOAT:ND->FLOAT:ND": what a prebuilt binary is selected by.
std::string binaryKey(const OpCall& call) {
  std::string key = call.op_type + ':';
  auto one = [&](const TensorArg& t) {
    key += aclDtypeName(t.dtype);
    key += ':';
    key += std::to_string(static_cast<int>(t.format));
    key += ',';
  };
  for (const TensorArg& t : call.inputs) one(t);
  key += "->";
  for (const TensorArg& t : call.outputs) one(t);
  return key;
}

PlanCache& cache() {
  static auto* c = new PlanCache();  // leaked: launches may run during exit
  return *c;
}

// ---- logging (CANN slog style) ----
int logLevel() {
  const char* v = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  if (!v || !*v) return 3;  // error only
  char* end = nullptr;
  long l = std::strtol(v, &end, 10);
  return (*end == '\0' && l >= 0 && l <= 4) ? static_cast<int>(l) : 3;
}

bool infoEnabled() { return logLevel() <= 1; }

void logInfo(int line, const std::string& msg) {
  const char* to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  FILE* out = (to_stdout && std::strcmp(to_stdout, "1") == 0) ? stdout : stderr;
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t t = system_clock::to_time_t(now);
  const long us = static_cast<long>(duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d-%H:%M:%S", &tm);
  std::fprintf(out, "[INFO] ASCENDCL(%d,ascend_sim):%s.%03ld.%03ld [op_compiler.cpp:%d]%d %s\n",
               static_cast<int>(getpid()), stamp, us / 1000, us % 1000, line, static_cast<int>(gettid()),
               msg.c_str());
  std::fflush(out);
}

std::string attrText(const AttrValue& v) {
  std::ostringstream os;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          os << '"' << x << '"';
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<float>>) {
          os << '[';
          for (size_t i = 0; i < x.size(); ++i) os << (i ? "," : "") << x[i];
          os << ']';
        } else if constexpr (std::is_same_v<T, aclDataType>) {
          os << aclDtypeName(x);
        } else {
          os << x;
        }
      },
      v);
  return os.str();
}

const char* coreName(aclsimCoreType c) {
  switch (c) {
    case ACL_CORE_CUBE: return "AI_CORE(cube)";
    case ACL_CORE_VECTOR: return "AI_VECTOR_CORE";
    case ACL_CORE_AI_CPU: return "AI_CPU";
    case ACL_CORE_DMA: return "DMA";
    default: return "AI_CORE";
  }
}

std::shared_ptr<const OpPlan> compile(const KernelDef* kernel, const OpCall& call, const CostModel& cm,
                                      uint64_t hash, bool counts_as_compile) {
  const bool log = counts_as_compile && infoEnabled();
  if (log) logInfo(__LINE__, "To compile op: " + call.op_type);
  kernel->validate(call);
  auto plan = std::make_shared<OpPlan>();
  plan->kernel = kernel;
  plan->signature = call;
  plan->signature.ctx.overflow = nullptr;
  for (TensorArg& t : plan->signature.inputs) t.data = nullptr;
  for (TensorArg& t : plan->signature.outputs) t.data = nullptr;
  plan->hash = hash;
  plan->cost = kernel->cost(call);
  plan->duration_us = cm.opUs(plan->cost);
  const KernelCost& c = plan->cost;
  auto detail = std::make_shared<TaskDetail>();
  detail->shapes = describeTensors(call);
  switch (c.core) {
    case CoreType::kCube: detail->core = ACL_CORE_CUBE; break;
    case CoreType::kVector: detail->core = ACL_CORE_VECTOR; break;
    case CoreType::kAiCpu: detail->core = ACL_CORE_AI_CPU; break;
    case CoreType::kDma: detail->core = ACL_CORE_DMA; break;
    default: detail->core = ACL_CORE_AI_CORE; break;
  }
  const double tc = cm.cubeUs(c), tv = cm.vectorUs(c), tm = cm.mteUs(c);
  const double tmax = std::max({tc, tv, tm});
  if (tmax > 0) {
    detail->cube_ratio = tc / tmax;
    detail->vector_ratio = tv / tmax;
    detail->mte_ratio = tm / tmax;
  }
  detail->bytes = c.mte_bytes;
  detail->flops = c.flops;
  const int engine_cores = c.core == CoreType::kCube ? cm.chip().cube_cores : cm.chip().vector_cores;
  detail->block_dim = c.block_dim > 0 ? std::min<uint32_t>(c.block_dim, engine_cores) : engine_cores;
  plan->detail = detail;
  if (log) {
    std::ostringstream os;
    os << "OpType: " << call.op_type << ", shapes: " << detail->shapes << ", attrs: {";
    bool first = true;
    for (const auto& kv : call.attrs.all()) {
      os << (first ? "" : ", ") << kv.first << "=" << attrText(kv.second);
      first = false;
    }
    char key[32];
    std::snprintf(key, sizeof key, "0x%016llx", static_cast<unsigned long long>(hash));
    os << "}, precision_mode: " << precisionModeName(call.ctx.precision)
       << ", impl_mode: " << (call.ctx.high_performance ? "high_performance" : "high_precision") << ", core: " << coreName(detail->core)
       << ", block_dim: " << detail->block_dim << ", estimated time: " << plan->duration_us << " us, plan key: " << key;
    logInfo(__LINE__, os.str());
  }
  return plan;
}

// The text a persistent-cache entry records (Note [Persistent compile
// cache]): what identifies one compile — the plan key, or in binary mode the
// binary key — with the launch context.
std::string compileKeyText(const OpCall& call, bool jit, const std::string& binary, uint64_t hash) {
  std::ostringstream os;
  if (jit) {
    char key[32];
    std::snprintf(key, sizeof key, "0x%016llx", static_cast<unsigned long long>(hash));
    os << "plan " << key << "\n" << call.op_type << "\n" << describeTensors(call) << "\n";
    for (const auto& kv : call.attrs.all()) os << kv.first << "=" << attrText(kv.second) << ";";
  } else {
    os << "binary " << binary;
  }
  os << "\nprecision_mode=" << precisionModeName(call.ctx.precision)
     << " high_performance=" << call.ctx.high_performance << " fp16_saturation=" << call.ctx.fp16_saturation
     << " cores=" << call.ctx.cube_cores << "/" << call.ctx.vector_cores;
  return os.str();
}

}  // namespace

uint64_t opPlanHash(const OpCall& call) {
  Hasher h;
  h.str(call.op_type);
  h.pod(call.inputs.size());
  for (const TensorArg& t : call.inputs) hashTensor(h, t);
  h.pod(call.outputs.size());
  for (const TensorArg& t : call.outputs) hashTensor(h, t);
  for (const auto& kv : call.attrs.all()) {
    h.str(kv.first);
    hashAttr(h, kv.second);
  }
  h.pod(static_cast<int32_t>(call.ctx.precision));
  h.pod(call.ctx.fp16_saturation);
  h.pod(call.ctx.high_performance);
  h.pod(call.ctx.cube_cores);
  h.pod(call.ctx.vector_cores);
  return h.h;
}

std::shared_ptr<const OpPlan> findOrCompilePlan(const KernelDef* kernel, const OpCall& call, const CostModel& cm) {
  PlanCache& pc = cache();
  const uint64_t hash = opPlanHash(call);
  {
    std::shared_lock<std::shared_mutex> lock(pc.mu);
    auto it = pc.plans.find(hash);
    if (it != pc.plans.end())
      for (const auto& p : it->second)
        if (p->kernel == kernel && sameKey(p->signature, call)) return p;
  }
  // Compile outside the lock (validation errors propagate; nothing cached).
  const bool jit = jitCompileEnabled();
  const std::string binary = jit ? std::string() : binaryKey(call);
  bool new_binary = jit;
  if (!jit) {
    std::shared_lock<std::shared_mutex> lock(pc.mu);
    new_binary = pc.binaries.count(binary) == 0;
  }
  // Note [Persistent compile cache]: a compile may be a load from the disk.
  const bool disk = new_binary && !compilerCacheDir().empty();
  const std::string key_text = disk ? compileKeyText(call, jit, binary, hash) : std::string();
  const bool loaded = disk && diskCacheHas(key_text);
  if (loaded && infoEnabled()) logInfo(__LINE__, "Load op from the disk cache: " + call.op_type);
  std::shared_ptr<const OpPlan> plan = compile(kernel, call, cm, hash, new_binary && !loaded);
  std::unique_lock<std::shared_mutex> lock(pc.mu);
  auto& bucket = pc.plans[hash];
  for (const auto& p : bucket)  // another thread compiled it meanwhile
    if (p->kernel == kernel && sameKey(p->signature, call)) return p;
  bucket.push_back(plan);
  if ((jit || pc.binaries.insert(binary).second) && !loaded) {
    pc.compiled.fetch_add(1);
    if (disk) diskCacheStore(key_text);
  }
  return plan;
}

uint64_t compiledPlanCount() { return cache().compiled.load(); }

void forgetCompiledPlansForTesting() {
  PlanCache& pc = cache();
  std::unique_lock<std::shared_mutex> lock(pc.mu);
  pc.plans.clear();
  pc.binaries.clear();
}

std::string describeTensors(const OpCall& call) {
  std::string s;
  auto one = [&](const TensorArg& t) {
    s += '[';
    for (size_t i = 0; i < t.origin_shape.size(); ++i) s += (i ? "," : "") + std::to_string(t.origin_shape[i]);
    s += "]:";
    s += aclDtypeName(t.dtype);
    s += ':';
    const char* fname = &aclsimGetFormatName != nullptr ? aclsimGetFormatName(t.format) : nullptr;
    s += fname ? std::string(fname) : std::to_string(static_cast<int>(t.format));
  };
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (i) s += ';';
    one(call.inputs[i]);
  }
  s += "->";
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (i) s += ';';
    one(call.outputs[i]);
  }
  return s;
}

}  // namespace ascend_sim
