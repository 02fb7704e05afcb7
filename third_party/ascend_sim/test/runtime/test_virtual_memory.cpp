// CANN's virtual memory API on the simulated HBM (Note [Virtual memory of the simulated HBM]):
// reserved ranges, physical granules mapped into them, copies across mappings, and every rule's error.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "runtime_test_util.h"

namespace {

constexpr size_t kGranule = size_t(2) << 20;

aclrtPhysicalMemProp deviceProp(uint32_t device) {
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_HBM_MEM_HUGE;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  return prop;
}

class VirtualMemory : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    ASSERT_ACL_OK(aclrtReserveMemAddress(&range_, 4 * kGranule, 0, nullptr, 0));
    const aclrtPhysicalMemProp prop = deviceProp(0);
    for (auto& h : physical_) ASSERT_ACL_OK(aclrtMallocPhysical(&h, kGranule, &prop, 0));
  }
  void TearDown() override {
    for (size_t i = 0; i < 4; ++i) aclrtUnmapMem(at(i * kGranule));  // errors for the unmapped ones are fine
    for (auto h : physical_) EXPECT_ACL_OK(aclrtFreePhysical(h));
    EXPECT_ACL_OK(aclrtReleaseMemAddress(range_));
    DeviceTest::TearDown();
  }
  char* at(size_t offset) { return static_cast<char*>(range_) + offset; }

  void* range_ = nullptr;
  aclrtDrvMemHandle physical_[2] = {};
};

}  // namespace

TEST_F(VirtualMemory, GranularityIsTwoMiB) {
  aclrtPhysicalMemProp prop = deviceProp(0);
  size_t granularity = 0;
  EXPECT_ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity));
  EXPECT_EQ(granularity, kGranule);
}

TEST_F(VirtualMemory, MappingsMadeInAnyOrderAreOneContiguousBufferAliasingTheirPhysicalMemory) {
  // Physical 1 at the range's start, physical 0 after it: addresses decide, not allocation order.
  ASSERT_ACL_OK(aclrtMapMem(at(kGranule), kGranule, 0, physical_[0], 0));
  ASSERT_ACL_OK(aclrtMapMem(at(0), kGranule, 0, physical_[1], 0));
  std::vector<uint8_t> host(2 * kGranule);
  std::iota(host.begin(), host.end(), uint8_t{7});
  ASSERT_ACL_OK(aclrtMemcpy(at(0), host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<uint8_t> back(host.size());
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), back.size(), at(0), back.size(), ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(back, host);
  // A copy that straddles the two mappings, and the bytes as the physical allocations hold them.
  std::vector<uint8_t> straddle(64);
  ASSERT_ACL_OK(aclrtMemcpy(straddle.data(), 64, at(kGranule - 32), 64, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(0, std::memcmp(straddle.data(), host.data() + kGranule - 32, 64));
  uint8_t from_physical[2] = {};
  ASSERT_ACL_OK(aclrtMemcpy(&from_physical[0], 1, static_cast<char*>(physical_[1]) + 5, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  ASSERT_ACL_OK(aclrtMemcpy(&from_physical[1], 1, static_cast<char*>(physical_[0]) + 5, 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(from_physical[0], host[5]);
  EXPECT_EQ(from_physical[1], host[kGranule + 5]);
  int32_t device = -1;
  EXPECT_ACL_OK(aclrtPointerGetDevice(at(100), &device));
  EXPECT_EQ(device, 0);
}

TEST_F(VirtualMemory, UnmappedAddressesAreRefusedAndRemappingShowsTheOtherMemory) {
  ASSERT_ACL_OK(aclrtMapMem(at(0), kGranule, 0, physical_[0], 0));
  uint8_t byte = 0;
  EXPECT_ACL_ERR(aclrtMemcpy(&byte, 1, at(kGranule), 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_INVALID_MEMORY);
  EXPECT_NE(lastAclMessage().find("is not mapped to physical memory"), std::string::npos) << lastAclMessage();
  std::vector<uint8_t> two(2);  // one byte mapped, the next not
  EXPECT_ACL_ERR(aclrtMemcpy(two.data(), 2, at(kGranule - 1), 2, ACL_MEMCPY_DEVICE_TO_HOST),
                 ACL_ERROR_RT_INVALID_MEMORY);
  ASSERT_ACL_OK(aclrtMemset(physical_[1], kGranule, 0x5a, kGranule));
  ASSERT_ACL_OK(aclrtUnmapMem(at(0)));
  EXPECT_ACL_ERR(aclrtMemcpy(&byte, 1, at(0), 1, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_INVALID_MEMORY);
  ASSERT_ACL_OK(aclrtMapMem(at(0), kGranule, 0, physical_[1], 0));
  ASSERT_ACL_OK(aclrtMemcpy(&byte, 1, at(123), 1, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(byte, 0x5a);
}

TEST_F(VirtualMemory, PhysicalMemoryCountsAsUsedHbm) {
  size_t free_before = 0, total = 0, free_after = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(&free_before, &total));
  const aclrtPhysicalMemProp prop = deviceProp(0);
  aclrtDrvMemHandle extra = nullptr;
  ASSERT_ACL_OK(aclrtMallocPhysical(&extra, 3 * kGranule, &prop, 0));
  ASSERT_ACL_OK(aclrtGetMemInfo(&free_after, &total));
  EXPECT_EQ(free_before - free_after, 3 * kGranule);
  ASSERT_ACL_OK(aclrtFreePhysical(extra));
  ASSERT_ACL_OK(aclrtGetMemInfo(&free_after, &total));
  EXPECT_EQ(free_after, free_before);
}

TEST_F(VirtualMemory, EachRuleFailsWithItsErrorAndTheDeviceWorksAfterwards) {
  const aclrtPhysicalMemProp prop = deviceProp(0);
  aclrtDrvMemHandle h = nullptr;
  void* other = nullptr;
  EXPECT_ACL_ERR(aclrtReserveMemAddress(&other, kGranule + 1, 0, nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtReserveMemAddress(&other, kGranule, 0, range_, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtMallocPhysical(&h, 1000, &prop, 0), ACL_ERROR_INVALID_PARAM);
  aclrtPhysicalMemProp host = prop;
  host.location.type = ACL_MEM_LOCATION_TYPE_HOST;
  EXPECT_ACL_ERR(aclrtMallocPhysical(&h, kGranule, &host, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_ACL_ERR(aclrtMapMem(at(kGranule / 2), kGranule, 0, physical_[0], 0), ACL_ERROR_INVALID_PARAM);  // not aligned
  EXPECT_ACL_ERR(aclrtMapMem(at(0), 2 * kGranule, 0, physical_[0], 0), ACL_ERROR_INVALID_PARAM);  // size mismatch
  EXPECT_ACL_ERR(aclrtMapMem(at(3 * kGranule), kGranule, 1, physical_[0], 0), ACL_ERROR_INVALID_PARAM);  // offset
  EXPECT_ACL_ERR(aclrtMapMem(at(4 * kGranule), kGranule, 0, physical_[0], 0), ACL_ERROR_INVALID_PARAM);  // past the end
  ASSERT_ACL_OK(aclrtMapMem(at(0), kGranule, 0, physical_[0], 0));
  EXPECT_ACL_ERR(aclrtMapMem(at(kGranule), kGranule, 0, physical_[0], 0), ACL_ERROR_RT_INVALID_MEMORY);  // mapped
  EXPECT_ACL_ERR(aclrtMapMem(at(0), kGranule, 0, physical_[1], 0), ACL_ERROR_RT_INVALID_MEMORY);         // overlaps
  EXPECT_ACL_ERR(aclrtFreePhysical(physical_[0]), ACL_ERROR_RT_INVALID_MEMORY);                          // still mapped
  EXPECT_ACL_ERR(aclrtFree(physical_[1]), ACL_ERROR_RT_INVALID_MEMORY);  // a physical allocation, not aclrtMalloc's
  EXPECT_ACL_ERR(aclrtReleaseMemAddress(range_), ACL_ERROR_RT_INVALID_MEMORY);                // has a mapping
  EXPECT_ACL_ERR(aclrtReleaseMemAddress(at(kGranule)), ACL_ERROR_INVALID_PARAM);              // not a start
  EXPECT_ACL_ERR(aclrtUnmapMem(at(kGranule)), ACL_ERROR_INVALID_PARAM);                       // nothing mapped
  EXPECT_ACL_ERR(aclrtMapMem(at(kGranule), kGranule, 0, at(0), 0), ACL_ERROR_INVALID_PARAM);  // not a handle
  // The device still works: a mapping can be used, a plain allocation copied.
  void* plain = devAlloc(64);
  uint8_t data[64] = {1, 2, 3};
  EXPECT_ACL_OK(aclrtMemcpy(plain, 64, data, 64, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL_OK(aclrtMemcpy(at(0), 64, plain, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
}
