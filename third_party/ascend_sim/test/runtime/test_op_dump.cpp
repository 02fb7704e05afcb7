// Op data dump (aclmdlInitDump / aclmdlSetDump / aclmdlFinalizeDump, Note
// [Op dump]): selection by op type, name and host scope, .npy contents, the
// manifest, overflow-detection mode and config errors.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ascend_sim/acl_sim.h"
#include "sim_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

namespace fs = std::filesystem;
constexpr int32_t kDev = 5;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ascend_sim_dump_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string readFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The config file and the dump directory it names.
fs::path writeConfig(const TempDir& dir, const std::string& dump_fields) {
  const fs::path cfg = dir.path / "dump.json";
  std::ofstream(cfg) << "{\"dump\": {\"dump_path\": \"" << (dir.path / "out").string() << "\"" << dump_fields << "}}";
  return cfg;
}

// The header dict and the float32 data of a .npy file.
std::pair<std::string, std::vector<float>> readNpyFloats(const fs::path& p) {
  const std::string bytes = readFile(p);
  EXPECT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  uint16_t len = 0;
  std::memcpy(&len, bytes.data() + 8, 2);
  EXPECT_EQ((10 + len) % 64, 0);
  std::vector<float> data((bytes.size() - 10 - len) / sizeof(float));
  std::memcpy(data.data(), bytes.data() + 10 + len, data.size() * sizeof(float));
  return {bytes.substr(10, len), data};
}

class OpDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ACL_OK(aclrtResetDevice(kDev));
    ASSERT_ACL_OK(aclrtSetDevice(kDev));
  }
  void TearDown() override { aclsimSetTaskScope(nullptr); }
};

TEST_F(OpDumpTest, SelectsByTypeNameAndScopeAndWritesLogicalNpyFilesAndAManifest) {
  TempDir dir;
  const fs::path cfg = writeConfig(dir, ", \"dump_mode\": \"all\", \"dump_list\": [{\"layer\": [\"Mul\", \"blockA\", \"Sub_1\"]}]");
  DevTensor a(ACL_FLOAT, {2, 3}), b(ACL_FLOAT, {2, 3}), out(ACL_FLOAT, {2, 3});
  a.setFloats({1, 2, 3, 4, 5, 6});
  b.setFloats({10, 20, 30, 40, 50, 60});
  ASSERT_ACL_OK(aclmdlInitDump());
  ASSERT_ACL_OK(aclmdlSetDump(cfg.string().c_str()));
  ASSERT_ACL_OK(aclsimSetTaskScope("blockA.sub"));  // selected: under blockA
  ASSERT_ACL_OK(launchOp("Add", {&a, &b}, {&out}));
  ASSERT_ACL_OK(aclsimSetTaskScope("blockAB"));  // not selected: a prefix must end at a dot
  ASSERT_ACL_OK(launchOp("Add", {&a, &b}, {&out}));
  ASSERT_ACL_OK(aclsimSetTaskScope(nullptr));
  ASSERT_ACL_OK(launchOp("Mul", {&a, &b}, {&out}));  // selected by type
  ASSERT_ACL_OK(launchOp("Sub", {&a, &b}, {&out}));  // Sub_0: not selected
  ASSERT_ACL_OK(launchOp("Sub", {&b, &a}, {&out}));  // Sub_1: selected by name
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclmdlFinalizeDump());

  const std::string manifest = readFile(dir.path / "out" / "manifest.json");
  EXPECT_NE(manifest.find("\"ops_executed\": 5"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"op_name\": \"Add_0\", \"op_type\": \"Add\", \"scope\": \"blockA.sub\""), std::string::npos)
      << manifest;
  EXPECT_EQ(manifest.find("Add_1"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"op_name\": \"Mul_0\""), std::string::npos) << manifest;
  EXPECT_EQ(manifest.find("Sub_0"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"op_name\": \"Sub_1\""), std::string::npos) << manifest;

  auto [header, values] = readNpyFloats(dir.path / "out" / "0.Add_0.output.0.npy");
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (2,3)"), std::string::npos) << header;
  EXPECT_EQ(values, (std::vector<float>{11, 22, 33, 44, 55, 66}));
  EXPECT_EQ(readNpyFloats(dir.path / "out" / "4.Sub_1.input.0.npy").second,
            (std::vector<float>{10, 20, 30, 40, 50, 60}));
  EXPECT_EQ(readNpyFloats(dir.path / "out" / "4.Sub_1.output.0.npy").second,
            (std::vector<float>{9, 18, 27, 36, 45, 54}));
}

TEST_F(OpDumpTest, InputsAreCapturedBeforeAnInPlaceOpOverwritesThem) {
  TempDir dir;
  const fs::path cfg = writeConfig(dir, ", \"dump_mode\": \"input\"");
  DevTensor a(ACL_FLOAT, {4}), b(ACL_FLOAT, {4});
  a.setFloats({1, 2, 3, 4});
  b.setFloats({1, 1, 1, 1});
  ASSERT_ACL_OK(aclmdlInitDump());
  ASSERT_ACL_OK(aclmdlSetDump(cfg.string().c_str()));
  ASSERT_ACL_OK(launchOp("Add", {&a, &b}, {&a}));  // a += b
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclmdlFinalizeDump());
  EXPECT_EQ(readNpyFloats(dir.path / "out" / "0.Add_0.input.0.npy").second, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(fs::exists(dir.path / "out" / "0.Add_0.output.0.npy"));
  EXPECT_EQ(a.floats(), (std::vector<float>{2, 3, 4, 5}));
}

TEST_F(OpDumpTest, OverflowModeDumpsOnlyTheOpsThatOverflowed) {
  TempDir dir;
  const fs::path cfg = writeConfig(dir, ", \"dump_debug\": \"on\"");
  DevTensor small(ACL_FLOAT16, {3}), big(ACL_FLOAT16, {3}), out(ACL_FLOAT16, {3});
  small.setFloats({1, 2, 3});
  big.setFloats({60000, 60000, 60000});
  ASSERT_ACL_OK(aclmdlInitDump());
  ASSERT_ACL_OK(aclmdlSetDump(cfg.string().c_str()));
  ASSERT_ACL_OK(launchOp("Add", {&small, &small}, {&out}));  // fine
  ASSERT_ACL_OK(launchOp("Add", {&big, &big}, {&out}));      // 120000 > 65504
  ASSERT_ACL_OK(launchOp("Mul", {&small, &small}, {&out}));  // fine
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclmdlFinalizeDump());
  const std::string manifest = readFile(dir.path / "out" / "manifest.json");
  EXPECT_NE(manifest.find("\"index\": 1, \"op_name\": \"Add_1\""), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"overflow\": true"), std::string::npos) << manifest;
  EXPECT_EQ(manifest.find("Add_0"), std::string::npos) << manifest;
  EXPECT_EQ(manifest.find("Mul_0"), std::string::npos) << manifest;
  EXPECT_TRUE(fs::exists(dir.path / "out" / "1.Add_1.input.1.npy"));
  EXPECT_TRUE(fs::exists(dir.path / "out" / "1.Add_1.output.0.npy"));
}

TEST_F(OpDumpTest, ConfigErrorsNameWhatIsWrong) {
  TempDir dir;
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_UNINITIALIZE);
  const fs::path cfg = writeConfig(dir, "");
  EXPECT_EQ(aclmdlSetDump(cfg.string().c_str()), ACL_ERROR_UNINITIALIZE);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclmdlInitDump"), std::string::npos);
  ASSERT_ACL_OK(aclmdlInitDump());
  const auto expectError = [&](const std::string& text, const std::string& message) {
    std::ofstream(dir.path / "bad.json") << text;
    EXPECT_EQ(aclmdlSetDump((dir.path / "bad.json").string().c_str()), ACL_ERROR_INVALID_FILE) << text;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(message), std::string::npos) << aclGetRecentErrMsg();
  };
  expectError("{\"dump\": {\"dump_mode\": \"all\"}}", "needs \"dump_path\"");
  expectError("{\"dump\": {\"dump_path\": \"/tmp/x\", \"dump_mode\": \"both\"}}", "dump_mode must be");
  expectError("{\"dump\": {\"dump_path\": \"/tmp/x\", \"dump_debug\": \"yes\"}}", "dump_debug must be");
  expectError("{\"dump\": {\"dump_path\": \"/tmp/x\", \"dump_list\": 3}}", "dump_list must be a list");
  expectError("[1, 2]", "needs a \"dump\" object");
  expectError("{\"dump\": [", "not valid JSON");
  EXPECT_EQ(aclmdlSetDump((dir.path / "missing.json").string().c_str()), ACL_ERROR_INVALID_FILE);
  EXPECT_EQ(aclmdlSetDump(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclmdlFinalizeDump());  // nothing was dumping: no manifest
  EXPECT_FALSE(fs::exists(dir.path / "out" / "manifest.json"));
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
