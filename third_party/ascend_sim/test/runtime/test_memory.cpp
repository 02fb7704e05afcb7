// Device memory: allocation, OOM, frees, pointer checks, copies, memset and
// the "device memory is not host memory" property.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "chip/chip_config.h"
#include "runtime/error_state.h"
#include "runtime/hbm_arena.h"
#include "runtime/runtime.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

namespace {
constexpr size_t kMiB = size_t(1) << 20;
}

TEST(HbmArena, AlignmentCoalescingAndLiveRanges) {
  HbmArena arena(0, 4 * kMiB);
  void* a = arena.allocate(1);
  void* b = arena.allocate(1000);
  void* c = arena.allocate(512);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % HbmArena::kAlignment, 0u);
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 512);
  EXPECT_EQ(static_cast<char*>(c) - static_cast<char*>(b), 1024);
  EXPECT_EQ(arena.bytesInUse(), 2048u);
  EXPECT_NE(arena.hostView(b, 1000), nullptr);
  EXPECT_THROW(arena.hostView(b, 1001), AclError);              // past the requested size
  EXPECT_THROW(arena.hostView(static_cast<char*>(b) + 1000, 1), AclError);
  arena.free(a);
  arena.free(b);  // coalesces with a
  void* d = arena.allocate(1536);
  EXPECT_EQ(d, a);  // first fit reuses the merged block
  arena.free(c);
  arena.free(d);
  EXPECT_EQ(arena.bytesInUse(), 0u);
  // Everything merged back: the whole capacity is available again.
  void* all = arena.allocate(4 * kMiB);
  EXPECT_EQ(all, a);
  arena.free(all);
  EXPECT_THROW(arena.free(all), AclError);  // double free
}

TEST(HbmArena, OutOfMemoryMessageHasNumbers) {
  HbmArena arena(5, 4 * kMiB);
  void* a = arena.allocate(3 * kMiB);
  try {
    arena.allocate(2 * kMiB);
    ADD_FAILURE() << "no OOM";
  } catch (const AclError& e) {
    EXPECT_EQ(e.code(), ACL_ERROR_RT_MEMORY_ALLOCATION);
    EXPECT_STREQ(e.what(), "out of device memory on device 5: requested 2097152 bytes, 3145728 of 4194304 bytes in use");
  }
  arena.free(a);
}

TEST(HbmArena, PunchHoleKeepsMemoryUsable) {
  HbmArena arena(0, 8 * kMiB);
  void* a = arena.allocate(4 * kMiB);
  char* h = static_cast<char*>(arena.hostView(a, 4 * kMiB));
  std::memset(h, 0x5a, 4 * kMiB);
  arena.free(a);  // >= 1 MiB: host pages are released
  void* b = arena.allocate(4 * kMiB);
  char* hb = static_cast<char*>(arena.hostView(b, 4 * kMiB));
  hb[kMiB] = 1;  // still mapped and writable
  EXPECT_EQ(hb[kMiB], 1);
  EXPECT_EQ(hb[2 * kMiB], 0);  // the hole reads back as zero
  arena.free(b);
}

TEST(Memory, MallocFreeAndMemInfo) {
  size_t free0 = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(&free0, &total));
  if (!getenv("ASCEND_SIM_HBM_SIZE")) {
    EXPECT_EQ(total, ChipConfig::preset(aclrtGetSocName()).hbm_bytes);  // 32 GiB on the default 910A
  }
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
  size_t free1 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(&free1, &total));
  EXPECT_EQ(free0 - free1, 1024u);
  int32_t dev = -1;
  ASSERT_ACL_OK(aclrtPointerGetDevice(static_cast<char*>(p) + 10, &dev));
  EXPECT_EQ(dev, 0);
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_ERR(aclrtFree(p), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_NE(lastAclMessage().find("not the start of a live allocation"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclrtPointerGetDevice(p, &dev), ACL_ERROR_RT_INVALID_MEMORY);
  int host = 0;
  EXPECT_ACL_ERR(aclrtFree(&host), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_ACL_ERR(aclrtPointerGetDevice(&host, &dev), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_ACL_ERR(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

TEST(Memory, FreeOfInteriorPointerFails) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERR(aclrtFree(static_cast<char*>(p) + 512), ACL_ERROR_RT_INVALID_MEMORY);
  ASSERT_ACL_OK(aclrtFree(p));
}

TEST(Memory, OutOfMemoryIsAnErrorNotAHostKill) {
  size_t free_bytes = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(&free_bytes, &total));
  const size_t request = total + (size_t(8) << 30);
  void* p = nullptr;
  EXPECT_ACL_ERR(aclrtMalloc(&p, request, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(lastAclMessage().find("aclrtMalloc: out of device memory on device 0: requested " +
                                  std::to_string(request) + " bytes"),
            std::string::npos)
      << lastAclMessage();
  EXPECT_NE(lastAclMessage().find("of " + std::to_string(total) + " bytes in use"), std::string::npos)
      << lastAclMessage();
}

TEST(Memory, SmallCapacityDeviceRunsOutAndRecovers) {
  // Device 6 with a 16 MiB arena (the capacity applies when the arena is created).
  ASSERT_ACL_OK(aclrtResetDevice(6));
  setDeviceHbmCapacityForTesting(6, 16 * kMiB);
  ASSERT_ACL_OK(aclrtResetDevice(6));
  ASSERT_ACL_OK(aclrtSetDevice(6));
  std::vector<void*> blocks;
  void* p = nullptr;
  for (int i = 0; i < 4; ++i) {
    ASSERT_ACL_OK(aclrtMalloc(&p, 4 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST));
    blocks.push_back(p);
  }
  EXPECT_ACL_ERR(aclrtMalloc(&p, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(lastAclMessage().find("16777216 of 16777216 bytes in use"), std::string::npos) << lastAclMessage();
  ASSERT_ACL_OK(aclrtFree(blocks[1]));
  ASSERT_ACL_OK(aclrtMalloc(&p, 4 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(p, blocks[1]);
  // Reset frees everything.
  ASSERT_ACL_OK(aclrtResetDevice(6));
  size_t free_bytes = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(&free_bytes, &total));
  EXPECT_EQ(free_bytes, total);
  EXPECT_EQ(total, 16 * kMiB);
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST(Memory, MemcpyRoundTripAndD2D) {
  std::vector<float> src(1000), back(1000, 0);
  std::iota(src.begin(), src.end(), 1.0f);
  void *a = nullptr, *b = nullptr;
  const size_t n = src.size() * sizeof(float);
  ASSERT_ACL_OK(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(a, n, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(src, back);
  std::vector<float> h2h(1000);
  ASSERT_ACL_OK(aclrtMemcpy(h2h.data(), n, src.data(), n, ACL_MEMCPY_HOST_TO_HOST));
  EXPECT_EQ(src, h2h);
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtFree(b));
}

TEST(Memory, MemcpyChecksKindsAndSizes) {
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  char host[512] = {};
  // Host pointer where a device pointer is expected and vice versa.
  EXPECT_ACL_ERR(aclrtMemcpy(host, 256, host + 256, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_NE(lastAclMessage().find("is not device memory"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclrtMemcpy(d, 256, host, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_ACL_ERR(aclrtMemcpy(host, 256, d, 256, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_RT_INVALID_MEMORY);
  // count > destMax.
  EXPECT_ACL_ERR(aclrtMemcpy(d, 128, host, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(lastAclMessage().find("count 256 bytes exceeds destMax 128 bytes"), std::string::npos) << lastAclMessage();
  // Overrunning the allocation.
  EXPECT_ACL_ERR(aclrtMemcpy(d, 512, host, 512, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_NE(lastAclMessage().find("overruns its allocation"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclrtMemcpy(d, 256, host, 256, static_cast<aclrtMemcpyKind>(7)), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclrtFree(d));
  // Freed memory is no longer a valid target.
  EXPECT_ACL_ERR(aclrtMemcpy(d, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_INVALID_MEMORY);
}

TEST(Memory, MemsetSyncAndAsync) {
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(d, 64, 0xab, 64));
  unsigned char out[64];
  ASSERT_ACL_OK(aclrtMemcpy(out, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST));
  for (unsigned char c : out) ASSERT_EQ(c, 0xab);
  ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 7, 32, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtMemcpy(out, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(out[0], 7);
  EXPECT_EQ(out[31], 7);
  EXPECT_EQ(out[32], 0xab);
  EXPECT_ACL_ERR(aclrtMemset(d, 32, 0, 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtMemset(d, 128, 0, 128), ACL_ERROR_RT_INVALID_MEMORY);
  ASSERT_ACL_OK(aclrtFree(d));
}

TEST(Memory, HostMemory) {
  void* h = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 1000));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 64, 0u);
  std::memset(h, 1, 1000);  // host memory is host-accessible
  ASSERT_ACL_OK(aclrtFreeHost(h));
  EXPECT_ACL_ERR(aclrtFreeHost(h), ACL_ERROR_INVALID_PARAM);
}

TEST(MemoryDeathTest, HostDereferenceOfDevicePointerFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  void* d = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(ASCEND_SIM_SANITIZER_RUNTIME)
  // The sanitizer reports the SEGV and aborts (ci/sanitize.sh sets abort_on_error).
  EXPECT_DEATH(
      {
        volatile int* p = static_cast<volatile int*>(d);
        *p = 1;
      },
      "SEGV");
#else
  EXPECT_EXIT(
      {
        volatile int* p = static_cast<volatile int*>(d);
        *p = 1;
      },
      ::testing::KilledBySignal(SIGSEGV), "");
#endif
  ASSERT_ACL_OK(aclrtFree(d));
}
