// Devices: count, current device, presets, visible-device parsing, errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "chip/chip_config.h"
#include "runtime/error_state.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

TEST(Device, DefaultCountAndSocName) {
  uint32_t count = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
  if (!getenv("ASCEND_SIM_DEVICE_COUNT") && !getenv("ASCEND_RT_VISIBLE_DEVICES")) { EXPECT_EQ(count, 8u); }
  ASSERT_NE(aclrtGetSocName(), nullptr);
  if (!getenv("ASCEND_SIM_SOC_VERSION")) { EXPECT_STREQ(aclrtGetSocName(), "Ascend910A"); }
}

TEST(Device, SetAndGetCurrentDevice) {
  int32_t id = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&id));
  EXPECT_EQ(id, 0);
  ASSERT_ACL_OK(aclrtSetDevice(3));
  ASSERT_ACL_OK(aclrtGetDevice(&id));
  EXPECT_EQ(id, 3);
  // The current device is per host thread.
  int32_t other = -1;
  std::thread([&] { aclrtGetDevice(&other); }).join();
  EXPECT_EQ(other, 0);
  ASSERT_ACL_OK(aclrtSetDevice(0));
}

TEST(Device, InvalidDeviceIdNamesValidRange) {
  EXPECT_ACL_ERR(aclrtSetDevice(8), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_NE(lastAclMessage().find("invalid device id 8"), std::string::npos) << lastAclMessage();
  EXPECT_NE(lastAclMessage().find("0..7"), std::string::npos) << lastAclMessage();
  EXPECT_ACL_ERR(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERR(aclrtResetDevice(100), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_ACL_ERR(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(lastAclMessage().find("aclrtGetDeviceCount"), std::string::npos);
}

TEST(Device, VisibleDevicesParsing) {
  EXPECT_EQ(parseVisibleDevices("0,3", 8), (std::vector<int>{0, 3}));
  EXPECT_EQ(parseVisibleDevices(" 7 , 1", 8), (std::vector<int>{7, 1}));
  auto expectError = [](const char* spec, const char* fragment) {
    try {
      parseVisibleDevices(spec, 8);
      ADD_FAILURE() << "no error for '" << spec << "'";
    } catch (const AclError& e) {
      EXPECT_EQ(e.code(), ACL_ERROR_RT_INVALID_DEVICEID);
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expectError("0,8", "device 8 does not exist (valid physical ids are 0..7)");
  expectError("0,,1", "empty entry");
  expectError("a", "entry 'a' is not a device id");
  expectError("-1", "entry '-1' is not a device id");
  expectError("2,2", "listed twice");
  expectError("", "lists no device");
}

TEST(Device, ByteSizeParsing) {
  EXPECT_EQ(parseByteSize("1073741824"), 1073741824u);
  EXPECT_EQ(parseByteSize("512K"), 512u << 10);
  EXPECT_EQ(parseByteSize("64M"), 64u << 20);
  EXPECT_EQ(parseByteSize("2G"), size_t(2) << 30);
  EXPECT_EQ(parseByteSize("2GiB"), size_t(2) << 30);
  EXPECT_THROW(parseByteSize("12X"), AclError);
  EXPECT_THROW(parseByteSize("0"), AclError);
  EXPECT_THROW(parseByteSize(""), AclError);
}

TEST(Device, Presets) {
  ChipConfig a = ChipConfig::preset("Ascend910A");
  EXPECT_EQ(a.cube_cores, 32);
  EXPECT_EQ(a.hbm_bytes, size_t(32) << 30);
  ChipConfig b = ChipConfig::preset("Ascend910B2");
  EXPECT_STREQ(b.soc_name, "Ascend910B2");
  EXPECT_EQ(b.cube_cores, 24);
  EXPECT_EQ(b.vector_cores, 48);
  EXPECT_EQ(b.hbm_bytes, size_t(64) << 30);
  EXPECT_DOUBLE_EQ(b.clock_hz, 1.8e9);
  try {
    ChipConfig::preset("Ascend310");
    ADD_FAILURE();
  } catch (const AclError& e) {
    EXPECT_NE(std::string(e.what()).find("Ascend310"), std::string::npos);
  }
}

TEST(Device, IniFile) {
  const std::string path = ::testing::TempDir() + "ascend_sim_test.ini";
  {
    std::ofstream f(path);
    f << "# comment\n[other]\nsoc_version = nope\n[soc]\nsoc_version = Ascend910B2\n";
  }
  EXPECT_EQ(readSocVersionFromIni(path), "Ascend910B2");
  {
    std::ofstream f(path);
    f << "[soc\n";
  }
  EXPECT_THROW(readSocVersionFromIni(path), AclError);
  std::remove(path.c_str());
  EXPECT_ACL_ERR(aclInit("/nonexistent/ascend_sim.ini"), ACL_ERROR_INVALID_FILE);
  EXPECT_NE(lastAclMessage().find("/nonexistent/ascend_sim.ini"), std::string::npos);
  EXPECT_ACL_OK(aclInit(nullptr));
}
