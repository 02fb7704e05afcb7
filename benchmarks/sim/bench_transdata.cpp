// TransData (MTE format conversion) GB/s per format pair, both directions,
// fp32 and fp16. Bytes per launch = source + destination storage bytes,
// padding included (what the cost model charges).
//
//   NCHW <-> NC1HWC0     activations 8x64x56x56, and 8x3x224x224 (C=3 padded to C0=16)
//   NCHW <-> FRACTAL_Z   conv weights 64x64x3x3 and 256x256x3x3
//   ND   <-> FRACTAL_NZ  matrices 1024x1024 and 4x1000x1000 (edges padded to 16)
//
// Run:  build/benchmarks/sim/ascend_sim_bench --benchmark_filter=TransData
#include "ascend_sim/acl_sim.h"
#include "sim_bench.h"

namespace sim_bench {
namespace {

void transData(benchmark::State& state, aclDataType dt, aclFormat from, aclFormat to, aclFormat base,
               std::vector<int64_t> shape) {
  DeviceTensor src(dt, shape, from, base), dst(dt, shape, to, base);
  timeLaunches(state, [&] { launch("TransData", {&src}, {&dst}); }, "GB/s",
               static_cast<double>(src.bytes() + dst.bytes()));
}

struct Case {
  aclFormat base, priv;
  std::vector<std::vector<int64_t>> shapes;
};

const bool kRegistered = [] {
  const Case cases[] = {
      {ACL_FORMAT_NCHW, ACL_FORMAT_NC1HWC0, {{8, 64, 56, 56}, {8, 3, 224, 224}}},
      {ACL_FORMAT_NCHW, ACL_FORMAT_FRACTAL_Z, {{64, 64, 3, 3}, {256, 256, 3, 3}}},
      {ACL_FORMAT_ND, ACL_FORMAT_FRACTAL_NZ, {{1024, 1024}, {4, 1000, 1000}}},
  };
  for (const Case& c : cases)
    for (bool to_private : {true, false})
      for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16})
        for (const auto& shape : c.shapes) {
          const aclFormat from = to_private ? c.base : c.priv, to = to_private ? c.priv : c.base;
          const std::string name = std::string("TransData/") + aclsimGetFormatName(from) + "->" + aclsimGetFormatName(to) +
                                   "/" + dtypeName(dt) + "/" + shapeName(shape);
          hostTimed(benchmark::RegisterBenchmark(name.c_str(), transData, dt, from, to, c.base, shape),
                    benchmark::kMicrosecond, 0.1);
        }
  return true;
}();

}  // namespace
}  // namespace sim_bench
