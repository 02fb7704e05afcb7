// Shared helpers of the ascend_sim unit benchmarks (bench_*.cpp): one device
// and stream for the whole run, device tensors in any format, launching an op
// through the public C API, and the timed loop every benchmark uses.
//
// Note [What a benchmark iteration measures]
// One iteration = aclopExecuteV2 (validation + compiled-plan lookup + enqueue)
// followed by aclrtSynchronizeStream, i.e. the host wall-clock time until the
// kernel has really run on the simulator's stream worker threads. The first
// launch of each configuration (which "compiles" the plan) happens before the
// timed loop. Next to the host numbers, `sim_us` is the simulated device time
// of one launch (events recorded on the stream around the loop,
// aclrtEventElapsedTime), i.e. what the cost model predicts for the modeled chip.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"
#include "ascend_sim/acl_sim.h"

namespace sim_bench {

// Aborts with the simulator's message if an ACL call fails: a benchmark that
// launched nothing must not report a number.
#define SIM_BENCH_CHECK(expr)                                                                            \
  do {                                                                                                   \
    const aclError sim_bench_err_ = (expr);                                                              \
    if (sim_bench_err_ != ACL_SUCCESS) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #expr, sim_bench_err_,   \
                   aclGetRecentErrMsg());                                                                \
      std::abort();                                                                                      \
    }                                                                                                    \
  } while (0)

// Device 0 and one stream, created on first use by the thread running the
// benchmarks, plus the chip's default precision mode as found at start-up
// (before any benchmark set one).
struct Device {
  aclrtStream stream = nullptr;
  std::string soc;
  std::string default_precision;
  static Device& get();
};

inline Device& Device::get() {
  static Device d = [] {
    Device dev;
    SIM_BENCH_CHECK(aclInit(nullptr));
    SIM_BENCH_CHECK(aclrtSetDevice(0));
    SIM_BENCH_CHECK(aclrtCreateStream(&dev.stream));
    dev.soc = aclrtGetSocName();
    char mode[64] = {};
    SIM_BENCH_CHECK(aclGetCompileopt(ACL_PRECISION_MODE, mode, sizeof mode));
    dev.default_precision = mode;
    return dev;
  }();
  return d;
}

inline void setPrecisionMode(const std::string& mode) {
  Device::get();  // records the default first
  SIM_BENCH_CHECK(aclSetCompileopt(ACL_PRECISION_MODE, mode.c_str()));
}

inline size_t dtypeSize(aclDataType dt) {
  return dt == ACL_FLOAT16 || dt == ACL_BF16 ? 2 : dt == ACL_INT64 ? 8 : 4;
}
inline const char* dtypeName(aclDataType dt) { return dt == ACL_FLOAT16 ? "fp16" : dt == ACL_FLOAT ? "fp32" : "?"; }

inline int64_t numelOf(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

inline std::string shapeName(const std::vector<int64_t>& s) {
  std::string r;
  for (int64_t d : s) r += (r.empty() ? "" : "x") + std::to_string(d);
  return r;
}

// A device tensor of logical shape `shape` stored in `format`; for a private
// format the descriptor carries the storage shape and the origin shape/format.
class DeviceTensor {
 public:
  DeviceTensor(aclDataType dt, std::vector<int64_t> shape, aclFormat format = ACL_FORMAT_ND,
               aclFormat origin_format = ACL_FORMAT_ND)
      : dt_(dt) {
    int rank = 0;
    int64_t storage[ACL_MAX_DIM_CNT];
    SIM_BENCH_CHECK(aclsimGetFormatStorageShape(format, dt, static_cast<int>(shape.size()), shape.data(), &rank, storage));
    storage_.assign(storage, storage + rank);
    bytes_ = static_cast<size_t>(numelOf(storage_)) * dtypeSize(dt);
    SIM_BENCH_CHECK(aclrtMalloc(&ptr_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST));
    desc_ = aclCreateTensorDesc(dt, rank, storage_.data(), format);
    if (storage_ != shape || format != origin_format) {
      SIM_BENCH_CHECK(aclSetTensorOriginShape(desc_, static_cast<int>(shape.size()), shape.data()));
      SIM_BENCH_CHECK(aclSetTensorOriginFormat(desc_, origin_format));
    }
    buf_ = aclCreateDataBuffer(ptr_, bytes_);
    fillRandom();
  }
  ~DeviceTensor() {
    aclDestroyDataBuffer(buf_);
    aclDestroyTensorDesc(desc_);
    aclrtFree(ptr_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensorDesc* desc() const { return desc_; }
  aclDataBuffer* buf() const { return buf_; }
  size_t bytes() const { return bytes_; }  // storage bytes, padding included

 private:
  // Finite values in (-1, 1) over the whole storage (pads included); fp16 is
  // built from its bits: exponent 11..14 gives magnitudes in [2^-4, 1).
  void fillRandom() {
    const size_t n = bytes_ / dtypeSize(dt_);
    std::vector<uint8_t> host(bytes_);
    uint32_t s = 0x9E3779B9u;
    for (size_t i = 0; i < n; ++i) {
      s = s * 1664525u + 1013904223u;
      if (dt_ == ACL_FLOAT16) {
        const uint16_t h = static_cast<uint16_t>(((s >> 31) << 15) | ((11 + ((s >> 20) & 3)) << 10) | (s & 0x3FF));
        std::memcpy(host.data() + 2 * i, &h, 2);
      } else {
        const float f = static_cast<float>(static_cast<int32_t>(s)) * (1.0f / 2147483648.0f);
        std::memcpy(host.data() + 4 * i, &f, 4);
      }
    }
    SIM_BENCH_CHECK(aclrtMemcpy(ptr_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE));
  }

  aclDataType dt_;
  std::vector<int64_t> storage_;
  size_t bytes_ = 0;
  void* ptr_ = nullptr;
  aclTensorDesc* desc_ = nullptr;
  aclDataBuffer* buf_ = nullptr;
};

// Enqueues op on the benchmark stream (no synchronization).
inline void launch(const char* op, std::vector<const DeviceTensor*> ins, std::vector<const DeviceTensor*> outs,
                   aclopAttr* attr = nullptr) {
  std::vector<aclTensorDesc*> id, od;
  std::vector<aclDataBuffer*> ib, ob;
  for (const DeviceTensor* t : ins) id.push_back(t->desc()), ib.push_back(t->buf());
  for (const DeviceTensor* t : outs) od.push_back(t->desc()), ob.push_back(t->buf());
  SIM_BENCH_CHECK(aclopExecuteV2(op, static_cast<int>(id.size()), id.data(), ib.data(), static_cast<int>(od.size()),
                                 od.data(), ob.data(), attr, Device::get().stream));
}

// The settings every launch benchmark shares: host wall clock (the kernels
// run on the simulator's threads, not the benchmark's), a display unit and
// a minimum measuring time.
inline void hostTimed(benchmark::internal::Benchmark* b, benchmark::TimeUnit unit, double min_time_s) {
  b->UseRealTime()->Unit(unit)->MinTime(min_time_s);
}

// The timed loop (Note [What a benchmark iteration measures]): one warm-up
// launch, then launch + synchronize per iteration. Adds `sim_us` and a rate
// counter `rate_name` = work_per_iter / 1e9 per second of host time.
inline void timeLaunches(benchmark::State& state, const std::function<void()>& launch_once, const char* rate_name,
                         double work_per_iter) {
  aclrtStream stream = Device::get().stream;
  launch_once();
  SIM_BENCH_CHECK(aclrtSynchronizeStream(stream));
  aclrtEvent start = nullptr, end = nullptr;
  SIM_BENCH_CHECK(aclrtCreateEvent(&start));
  SIM_BENCH_CHECK(aclrtCreateEvent(&end));
  SIM_BENCH_CHECK(aclrtRecordEvent(start, stream));
  for (auto _ : state) {
    launch_once();
    SIM_BENCH_CHECK(aclrtSynchronizeStream(stream));
  }
  SIM_BENCH_CHECK(aclrtRecordEvent(end, stream));
  SIM_BENCH_CHECK(aclrtSynchronizeEvent(end));
  float sim_ms = 0;
  SIM_BENCH_CHECK(aclrtEventElapsedTime(&sim_ms, start, end));
  SIM_BENCH_CHECK(aclrtDestroyEvent(start));
  SIM_BENCH_CHECK(aclrtDestroyEvent(end));
  const double iters = static_cast<double>(state.iterations());
  state.counters[rate_name] = benchmark::Counter(work_per_iter * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["sim_us"] = benchmark::Counter(1e3 * sim_ms / iters);
}

}  // namespace sim_bench
