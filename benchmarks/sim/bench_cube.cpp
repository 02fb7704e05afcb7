// Cube unit: MatMul GFLOP/s (2*M*N*K per launch, host wall clock) by shape,
// dtype and precision mode, launched through aclopExecuteV2.
//
// Shapes: square 256/1024/2048, two ResNet-50 convolutions as GEMMs
// (img2col of a 3x3 conv: M = N*Ho*Wo, K = Cin*9, N = Cout, batch 8) and the
// feed-forward GEMMs of benchmarks/npu_vs_cpu.py's transformer step.
// Precision modes: "chip_default" (what the preset starts with, shown in the
// label, e.g. allow_fp32_to_fp16 on Ascend910A, which rounds fp32 operands to
// fp16 before the Cube) and must_keep_origin_dtype (fp32 operands kept).
//
// Run:  build/benchmarks/sim/ascend_sim_bench --benchmark_filter=Cube
#include "sim_bench.h"

namespace sim_bench {
namespace {

struct GemmShape {
  int64_t m, k, n;
};

void matMul(benchmark::State& state, aclDataType dt, std::string mode, GemmShape s) {
  setPrecisionMode(mode.empty() ? Device::get().default_precision : mode);
  DeviceTensor a(dt, {s.m, s.k}), b(dt, {s.k, s.n}), y(dt, {s.m, s.n});
  aclopAttr* attr = aclopCreateAttr();
  SIM_BENCH_CHECK(aclopSetAttrBool(attr, "transpose_x1", 0));
  SIM_BENCH_CHECK(aclopSetAttrBool(attr, "transpose_x2", 0));
  timeLaunches(state, [&] { launch("MatMul", {&a, &b}, {&y}, attr); }, "GFLOP/s", 2.0 * s.m * s.n * s.k);
  aclopDestroyAttr(attr);
  char mode_now[64] = {};
  SIM_BENCH_CHECK(aclGetCompileopt(ACL_PRECISION_MODE, mode_now, sizeof mode_now));
  state.SetLabel(mode_now);
}

const bool kRegistered = [] {
  const GemmShape shapes[] = {{256, 256, 256},   {1024, 1024, 1024}, {2048, 2048, 2048},
                              {25088, 576, 64},  // layer1 3x3 conv, 56x56, 64 -> 64
                              {6272, 1152, 128},   // layer2 3x3 conv, 28x28, 128 -> 128
                              {512, 256, 1024},    // transformer LM b8 seq 64: feed-forward up
                              {512, 1024, 256}};   // and down
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
    for (const char* mode : {"", "must_keep_origin_dtype"})
      for (GemmShape s : shapes) {
        const std::string name = std::string("Cube/MatMul/") + dtypeName(dt) + "/" +
                                 (*mode ? mode : "chip_default") + "/M" + std::to_string(s.m) + "_K" +
                                 std::to_string(s.k) + "_N" + std::to_string(s.n);
        hostTimed(benchmark::RegisterBenchmark(name.c_str(), matMul, dt, std::string(mode), s),
                  benchmark::kMillisecond, 0.2);
      }
  return true;
}();

}  // namespace
}  // namespace sim_bench
