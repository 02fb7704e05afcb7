// Note [Host SIMD level] (host_isa.h).
#include "common/host_isa.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ascend_sim {
namespace {

HostIsa detect() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  if (avx2 && __builtin_cpu_supports("avx512f")) return HostIsa::kAvx512;
  if (avx2) return HostIsa::kAvx2;
#endif
  return HostIsa::kPortable;
}

HostIsa capFromEnvironment() {
  const char* v = std::getenv("ASCEND_SIM_HOST_ISA");
  if (v == nullptr || *v == '\0') return HostIsa::kAvx512;
  if (std::strcmp(v, "portable") == 0) return HostIsa::kPortable;
  if (std::strcmp(v, "avx2") == 0) return HostIsa::kAvx2;
  if (std::strcmp(v, "avx512") != 0)
    std::fprintf(stderr, "ascend_sim: ASCEND_SIM_HOST_ISA='%s' is not avx512, avx2 or portable; ignored\n", v);
  return HostIsa::kAvx512;  // no cap
}

std::atomic<int>& cap() {
  static std::atomic<int> value{static_cast<int>(capFromEnvironment())};
  return value;
}

// The environment is read when the library loads, so a bad value is reported at once.
const bool kCapRead = (cap(), true);

}  // namespace

HostIsa detectedHostIsa() {
  static const HostIsa isa = detect();
  return isa;
}

HostIsa hostIsa() {
  const int capped = cap().load(std::memory_order_relaxed);
  const int host = static_cast<int>(detectedHostIsa());
  return static_cast<HostIsa>(capped < host ? capped : host);
}

HostIsa capHostIsa(HostIsa level) {
  return static_cast<HostIsa>(cap().exchange(static_cast<int>(level), std::memory_order_relaxed));
}

const char* hostIsaName(HostIsa isa) {
  switch (isa) {
    case HostIsa::kPortable: return "portable";
    case HostIsa::kAvx2: return "avx2";
    case HostIsa::kAvx512: return "avx512";
  }
  return "?";
}

}  // namespace ascend_sim
