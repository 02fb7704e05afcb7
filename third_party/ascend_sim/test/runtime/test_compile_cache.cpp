// "Compilation" (docs/simulator.md §5): plans are cached per (op type, dtypes,
// formats, shapes, attributes, precision mode); new keys compile and log
// CANN-style INFO lines (checked in a child process, since the log settings
// come from the environment).
#include <cstdlib>
#include <string>

#include "ascend_sim/acl_sim.h"
#include "kernel/kernel.h"
#include "runtime/compile_cache.h"
#include "sim_test_util.h"

namespace ascend_sim {
namespace test {
namespace {

uint64_t compiles() {
  uint64_t n = 0;
  EXPECT_ACL_OK(aclsimGetCompileCount(&n));
  return n;
}

aclError mm(int64_t m, int64_t n, int64_t k, aclDataType dt = ACL_FLOAT16, aclopAttr* attr = nullptr) {
  DevTensor a(dt, {m, k}), b(dt, {k, n}), y(dt, {m, n});
  aclError e = launchOp("MatMul", {&a, &b}, {&y}, attr);
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  return e;
}

TEST(CompileCache, NewKeysCompileSameKeysHit) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  // Fresh shapes on every run, so the test also holds under --gtest_repeat.
  static int64_t run = 0;
  const int64_t m = 1000 + 2 * run++;
  const uint64_t c0 = compiles();
  ASSERT_ACL_OK(mm(m, 17, 9));
  EXPECT_EQ(compiles(), c0 + 1);
  ASSERT_ACL_OK(mm(m, 17, 9));  // same key: cache hit
  ASSERT_ACL_OK(mm(m, 17, 9));
  EXPECT_EQ(compiles(), c0 + 1);
  ASSERT_ACL_OK(mm(m + 1, 17, 9));  // shape change compiles again
  EXPECT_EQ(compiles(), c0 + 2);
  ASSERT_ACL_OK(mm(m, 17, 9, ACL_FLOAT));  // dtype change
  EXPECT_EQ(compiles(), c0 + 3);
  aclopAttr* attr = aclopCreateAttr();
  ASSERT_ACL_OK(aclopSetAttrBool(attr, "transpose_x1", 0));
  ASSERT_ACL_OK(mm(m, 17, 9, ACL_FLOAT16, attr));  // attribute set: another key
  EXPECT_EQ(compiles(), c0 + 4);
  ASSERT_ACL_OK(mm(m, 17, 9, ACL_FLOAT16, attr));
  EXPECT_EQ(compiles(), c0 + 4);
  aclopDestroyAttr(attr);
  // A precision-mode switch is part of the key.
  {
    ScopedPrecisionMode fp16("force_fp16");
    ASSERT_ACL_OK(mm(m, 17, 9, ACL_FLOAT));
    EXPECT_EQ(compiles(), c0 + 5);
  }
  ASSERT_ACL_OK(mm(m, 17, 9, ACL_FLOAT));
  EXPECT_EQ(compiles(), c0 + 5);
  // A failed validation caches nothing.
  DevTensor a(ACL_FLOAT16, {3, 4}), b(ACL_FLOAT16, {5, 6}), y(ACL_FLOAT16, {3, 6});
  EXPECT_ACL_ERR(launchOp("MatMul", {&a, &b}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_ACL_ERR(launchOp("MatMul", {&a, &b}, {&y}), ACL_ERROR_OP_INPUT_NOT_MATCH);
  EXPECT_EQ(compiles(), c0 + 5);
  EXPECT_ACL_ERR(aclsimGetCompileCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

// Note [Binary op mode]: with ACL_OP_JIT_COMPILE "disable" an op type loads
// one binary per dtypes/formats, whatever the shapes; each shape still gets
// its own plan (its cost differs).
TEST(CompileCache, BinaryModeCompilesOncePerDtypesAndFormats) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  char value[16] = {0};
  ASSERT_ACL_OK(aclGetCompileopt(ACL_OP_JIT_COMPILE, value, sizeof(value)));
  EXPECT_STREQ(value, "enable");
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "disable"));
  static int64_t run = 0;
  const int64_t m = 3000 + 8 * run++;
  const uint64_t c0 = compiles();
  ASSERT_ACL_OK(mm(m, 17, 9, ACL_BF16));  // bf16: a binary no other test loads
  const uint64_t c1 = compiles();
  EXPECT_LE(c1, c0 + 1);
  ASSERT_ACL_OK(mm(m + 1, 18, 9, ACL_BF16));  // new shapes: the same binary
  ASSERT_ACL_OK(mm(m + 2, 5, 33, ACL_BF16));
  EXPECT_EQ(compiles(), c1);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_JIT_COMPILE, "enable"));
  ASSERT_ACL_OK(mm(m + 3, 5, 33, ACL_BF16));  // JIT again: a new shape compiles
  EXPECT_EQ(compiles(), c1 + 1);
  EXPECT_EQ(aclSetCompileopt(ACL_OP_JIT_COMPILE, "sometimes"), ACL_ERROR_INVALID_PARAM);
}

// Note [Implementation modes]: the options round-trip, select the
// high_performance form only for the listed op types, and are part of the key.
TEST(CompileCache, ImplModeOptionsSelectPerOpType) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  char value[64] = {0};
  ASSERT_ACL_OK(aclGetCompileopt(ACL_OP_SELECT_IMPL_MODE, value, sizeof value));
  EXPECT_STREQ(value, "high_precision");
  auto softmaxOf = [](const std::vector<float>& v) {
    DevTensor x(ACL_FLOAT16, {8, 200}), y(ACL_FLOAT16, {8, 200});
    x.setFloats(v);
    aclopAttr* attr = aclopCreateAttr();
    const int64_t axis = -1;
    EXPECT_ACL_OK(aclopSetAttrListInt(attr, "axes", 1, &axis));
    EXPECT_ACL_OK(launchOp("SoftmaxV2", {&x}, {&y}, attr));
    aclopDestroyAttr(attr);
    EXPECT_ACL_OK(aclrtSynchronizeDevice());
    return y.floats();
  };
  const std::vector<float> v = simRandom(8 * 200, -6, 6, 9);
  const auto precise = softmaxOf(v);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, "high_performance"));
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OPTYPELIST_FOR_IMPLMODE, "LayerNorm, SoftmaxV2"));
  ASSERT_ACL_OK(aclGetCompileopt(ACL_OPTYPELIST_FOR_IMPLMODE, value, sizeof value));
  EXPECT_STREQ(value, "LayerNorm,SoftmaxV2");
  const uint64_t c0 = compiles();
  const auto fast = softmaxOf(v);
  EXPECT_EQ(compiles(), c0 + 1);  // a new plan for the other implementation
  EXPECT_NE(fast, precise);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OPTYPELIST_FOR_IMPLMODE, "LogSoftmaxV2"));  // SoftmaxV2 not listed
  EXPECT_EQ(softmaxOf(v), precise);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OPTYPELIST_FOR_IMPLMODE, ""));  // empty list: every op
  EXPECT_EQ(softmaxOf(v), fast);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, "high_precision"));
  EXPECT_EQ(softmaxOf(v), precise);
  EXPECT_EQ(aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, "fast"), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("valid values: high_precision, high_performance"),
            std::string::npos);
}

// Note [Persistent compile cache]: with a directory, a compile another
// "process" (here: after forgetting the in-memory plans) wrote is a load.
TEST(CompileCache, PersistentCacheTurnsCompilesIntoLoads) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  char tmpl[] = "/tmp/ascend_sim_cache_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  char value[256] = {0};
  ASSERT_ACL_OK(aclGetCompileopt(ACL_OP_COMPILER_CACHE_MODE, value, sizeof value));
  EXPECT_STREQ(value, "enable");
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_COMPILER_CACHE_DIR, dir.c_str()));
  ASSERT_ACL_OK(aclGetCompileopt(ACL_OP_COMPILER_CACHE_DIR, value, sizeof value));
  EXPECT_EQ(std::string(value), dir);
  static int64_t run = 0;
  const int64_t m = 5000 + 4 * run++;
  uint64_t c0 = compiles();
  ASSERT_ACL_OK(mm(m, 7, 5));
  ASSERT_ACL_OK(mm(m + 1, 7, 5));
  EXPECT_EQ(compiles(), c0 + 2);  // compiled and written
  forgetCompiledPlansForTesting();  // as a new process
  ASSERT_ACL_OK(mm(m, 7, 5));
  ASSERT_ACL_OK(mm(m + 1, 7, 5));
  EXPECT_EQ(compiles(), c0 + 2);  // both loaded from the disk
  ASSERT_ACL_OK(mm(m + 2, 7, 5));
  EXPECT_EQ(compiles(), c0 + 3);  // a new key still compiles
  // force: recompiles (and rewrites) what it meets.
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_COMPILER_CACHE_MODE, "force"));
  forgetCompiledPlansForTesting();
  ASSERT_ACL_OK(mm(m, 7, 5));
  EXPECT_EQ(compiles(), c0 + 4);
  // disable: neither reads nor writes.
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_COMPILER_CACHE_MODE, "disable"));
  forgetCompiledPlansForTesting();
  ASSERT_ACL_OK(mm(m + 1, 7, 5));
  ASSERT_ACL_OK(mm(m + 3, 7, 5));
  EXPECT_EQ(compiles(), c0 + 6);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_COMPILER_CACHE_MODE, "enable"));
  forgetCompiledPlansForTesting();
  ASSERT_ACL_OK(mm(m + 3, 7, 5));  // never written: compiles
  EXPECT_EQ(compiles(), c0 + 7);
  // A precision-mode change is another key.
  {
    ScopedPrecisionMode fp16("force_fp16");
    ASSERT_ACL_OK(mm(m, 7, 5));
    EXPECT_EQ(compiles(), c0 + 8);
  }
  EXPECT_EQ(aclSetCompileopt(ACL_OP_COMPILER_CACHE_DIR, (dir + "/missing").c_str()), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclSetCompileopt(ACL_OP_COMPILER_CACHE_MODE, "sometimes"), ACL_ERROR_INVALID_PARAM);
  ASSERT_ACL_OK(aclSetCompileopt(ACL_OP_COMPILER_CACHE_DIR, ""));
  ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST(CompileCache, HashCoversTheKey) {
  OpCall a;
  a.op_type = "MatMul";
  TensorArg t;
  t.dtype = ACL_FLOAT16;
  t.shape = t.origin_shape = {2, 3};
  a.inputs = {t, t};
  a.outputs = {t};
  OpCall b = a;
  EXPECT_EQ(opPlanHash(a), opPlanHash(b));
  b.inputs[1].shape = {3, 2};
  EXPECT_NE(opPlanHash(a), opPlanHash(b));
  b = a;
  b.outputs[0].format = ACL_FORMAT_NCHW;
  EXPECT_NE(opPlanHash(a), opPlanHash(b));
  b = a;
  b.attrs.set("transpose_x1", true);
  EXPECT_NE(opPlanHash(a), opPlanHash(b));
  b = a;
  b.ctx.precision = PrecisionMode::kForceFp16;
  EXPECT_NE(opPlanHash(a), opPlanHash(b));
  b = a;
  b.inputs[0].data = &b;  // data is not part of the key
  EXPECT_EQ(opPlanHash(a), opPlanHash(b));
}

// Launches MatMul [8,16]x[16,4] twice and [9,16]x[16,4] once.
TEST(CompileCacheChild, LaunchMatMuls) {
  ASCEND_SIM_CHILD_ONLY();
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(mm(8, 4, 16));
  ASSERT_ACL_OK(mm(8, 4, 16));
  ASSERT_ACL_OK(mm(9, 4, 16));
  std::fflush(stdout);
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(CompileCache, LogsInfoLinesPerCompile) {
  if (isTestChild()) GTEST_SKIP();
  ChildResult r = runSelf("CompileCacheChild.*", "ASCEND_GLOBAL_LOG_LEVEL=1 ASCEND_SLOG_PRINT_TO_STDOUT=1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(count(r.out, "[INFO] ASCENDCL("), 4u) << r.out;  // two compiles x two lines
  EXPECT_EQ(count(r.out, "To compile op: MatMul"), 2u) << r.out;
  EXPECT_NE(r.out.find("OpType: MatMul, shapes: [8,16]:FLOAT16:ND;[16,4]:FLOAT16:ND->[8,4]:FLOAT16:ND"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("OpType: MatMul, shapes: [9,16]:FLOAT16:ND"), std::string::npos) << r.out;
  // Level 3 (error, the default): nothing.
  r = runSelf("CompileCacheChild.*", "ASCEND_GLOBAL_LOG_LEVEL=3 ASCEND_SLOG_PRINT_TO_STDOUT=1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(count(r.out, "To compile op"), 0u) << r.out;
  // Info without PRINT_TO_STDOUT goes to stderr.
  r = runSelf("CompileCacheChild.*", "ASCEND_GLOBAL_LOG_LEVEL=0 ASCEND_SLOG_PRINT_TO_STDOUT=0");
  EXPECT_EQ(count(r.out, "To compile op"), 0u) << r.out;
  r = runSelf("CompileCacheChild.*", "ASCEND_GLOBAL_LOG_LEVEL=0 ASCEND_SLOG_PRINT_TO_STDOUT=0", true);
  EXPECT_EQ(count(r.out, "To compile op: MatMul"), 2u) << r.out;
}

}  // namespace
}  // namespace test
}  // namespace ascend_sim
