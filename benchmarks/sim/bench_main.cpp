// main() of ascend_sim_bench: initializes the simulated device before the
// benchmarks run (on this thread, which then owns device 0's context) and adds
// the chip preset and its default precision mode to the report's context.
//
// Run:  build/benchmarks/sim/ascend_sim_bench [--benchmark_filter=Cube|TransData|Vector]
// The preset follows ASCEND_SIM_SOC_VERSION (default Ascend910A).
#include "sim_bench.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const sim_bench::Device& dev = sim_bench::Device::get();
  int64_t cube_cores = 0, vector_cores = 0;
  SIM_BENCH_CHECK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cube_cores));
  SIM_BENCH_CHECK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &vector_cores));
  benchmark::AddCustomContext("soc", dev.soc);
  benchmark::AddCustomContext("default_precision_mode", dev.default_precision);
  benchmark::AddCustomContext("simulated_cores", std::to_string(cube_cores) + " cube / " +
                                                     std::to_string(vector_cores) + " vector");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  SIM_BENCH_CHECK(aclrtDestroyStream(dev.stream));
  SIM_BENCH_CHECK(aclrtResetDevice(0));
  SIM_BENCH_CHECK(aclFinalize());
  return 0;
}
