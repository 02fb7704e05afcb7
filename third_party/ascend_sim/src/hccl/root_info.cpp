#include "hccl/root_info.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

#include "hccl/hccl_error.h"
#include "hccl/transport/local_address.h"

namespace ascend_sim {
namespace hccl {

namespace {
constexpr char kMagic[] = "ascend_sim-hccl-root-v1";  // includes the NUL
constexpr size_t kIdOffset = sizeof kMagic;
constexpr size_t kMaxId = HCCL_ROOT_INFO_BYTES - kIdOffset - 1;
}  // namespace

void makeRootInfo(HcclRootInfo* out) {
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  const uint64_t nonce = (uint64_t(rd()) << 32) ^ rd();
  const auto now = std::chrono::system_clock::now().time_since_epoch().count();
  char id[160];
  std::snprintf(id, sizeof id, "%.64s-%d-%llx-%llx-%llu", localHostName().c_str(), static_cast<int>(getpid()),
                static_cast<unsigned long long>(now), static_cast<unsigned long long>(nonce),
                static_cast<unsigned long long>(counter++));
  std::memset(out->internal, 0, sizeof out->internal);
  std::memcpy(out->internal, kMagic, sizeof kMagic);
  std::memcpy(out->internal + kIdOffset, id, std::min(std::strlen(id), kMaxId));
}

std::string rootInfoId(const HcclRootInfo& info) {
  if (std::memcmp(info.internal, kMagic, sizeof kMagic) != 0)
    throwHccl(HCCL_E_PARA, "rootInfo was not made by HcclGetRootInfo (call it on rank 0 and pass the same "
                           "HcclRootInfo bytes to every rank)");
  const char* id = info.internal + kIdOffset;
  return std::string(id, strnlen(id, kMaxId));
}

}  // namespace hccl
}  // namespace ascend_sim
