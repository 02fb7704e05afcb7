// Ascend C on the simulator: DataCopy between global memory and the Unified Buffer or L1, and within
// the Unified Buffer.
//
// Note [DataCopy alignment]
// The transfer engines move whole 32-byte blocks: a DataCopy between GM and UB/L1 must move a
// multiple of 32 bytes (count x sizeof(T)), and its local tensor starts on a 32-byte boundary
// (buffers are aligned, so only an odd offset into one breaks it). The strided form counts in
// 32-byte blocks: blockCount runs of blockLen blocks, srcStride / dstStride blocks skipped between
// runs. A copy of a length that is not a multiple of 32 bytes is an AI Core exception here, where the
// chip would silently move a rounded length; DataCopyPad moves any length.
#pragma once

#include "ascend_sim/ascendc/tensor.h"

namespace AscendC {

struct DataCopyParams {
  uint16_t blockCount = 1;  // runs
  uint16_t blockLen = 0;    // 32-byte blocks per run
  uint16_t srcStride = 0;   // 32-byte blocks skipped between runs in the source
  uint16_t dstStride = 0;   // ... in the destination
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t src_stride, uint16_t dst_stride)
      : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride) {}
};

namespace sim {

constexpr uint32_t kDataBlockBytes = 32;

// The 32-byte blocks of a DataCopy of `count` elements.
template <typename T>
uint16_t copyBlocks(uint64_t count, const char* api) {
  const uint64_t bytes = count * sizeof(T);
  if (bytes % kDataBlockBytes != 0)
    fail(std::string(api) + " of " + std::to_string(count) + " elements of " + std::to_string(sizeof(T)) +
         " bytes = " + std::to_string(bytes) + " bytes: a DataCopy between global memory and a local buffer moves " +
         "whole 32-byte blocks, so the length must be a multiple of 32 bytes (pad the tile)");
  if (bytes / kDataBlockBytes > 65535)
    fail(std::string(api) + " of " + std::to_string(bytes) + " bytes: one DataCopy moves at most 65535 32-byte blocks");
  return static_cast<uint16_t>(bytes / kDataBlockBytes);
}

template <typename T>
void checkLocalAlignment(const LocalTensor<T>& t, const char* api) {
  if (t.GetPhyAddr() % kDataBlockBytes != 0)
    fail(std::string(api) + ": the local tensor starts at byte " + std::to_string(t.GetPhyAddr()) + " of " +
         memoryName(t.buffer()->mem) + ", not on a 32-byte boundary (" + t.owner() + ")");
}

inline void checkGmSide(TPosition p, const char* api) {
  const Memory m = memoryOf(p);
  if (m != Memory::UB && m != Memory::L1)
    fail(std::string(api) + ": global memory copies reach UB or L1 positions, not " + positionName(p));
}

// Elements of one strided run and the strides, from DataCopyParams.
template <typename T>
struct Runs {
  uint64_t count, len, src_step, dst_step;
  explicit Runs(const DataCopyParams& p)
      : count(p.blockCount),
        len(uint64_t{p.blockLen} * kDataBlockBytes / sizeof(T)),
        src_step((uint64_t{p.blockLen} + p.srcStride) * kDataBlockBytes / sizeof(T)),
        dst_step((uint64_t{p.blockLen} + p.dstStride) * kDataBlockBytes / sizeof(T)) {}
  // Elements spanned by the source / destination.
  uint64_t srcSpan() const { return count == 0 ? 0 : (count - 1) * src_step + len; }
  uint64_t dstSpan() const { return count == 0 ? 0 : (count - 1) * dst_step + len; }
};

}  // namespace sim

// GM -> UB / L1 (the MTE2 pipe).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params) {
  constexpr const char* api = "DataCopy(GM -> local)";
  sim::Runs<T> r(params);
  dst.require(static_cast<int64_t>(r.dstSpan()), api, "the destination");
  sim::checkGmSide(dst.GetPosition(), api);
  sim::checkLocalAlignment(dst, api);
  if (r.count == 0 || r.len == 0) return;
  const T* in = src.view(0, r.srcSpan(), api);
  for (uint64_t i = 0; i < r.count; ++i)
    std::memcpy(dst.data() + i * r.dst_step, in + i * r.src_step, r.len * sizeof(T));
  const double bytes = static_cast<double>(r.count * r.len * sizeof(T));
  sim::Block& b = sim::block();
  b.countGm(bytes, 0);
  b.transfer(api, PIPE_MTE2, bytes, nullptr, dst.buffer());
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t count) {
  dst.require(count, "DataCopy(GM -> local)", "the destination");
  DataCopy(dst, src, DataCopyParams(1, sim::copyBlocks<T>(count, "DataCopy(GM -> local)"), 0, 0));
}

// UB -> GM (the MTE3 pipe).
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  constexpr const char* api = "DataCopy(local -> GM)";
  sim::Runs<T> r(params);
  src.require(static_cast<int64_t>(r.srcSpan()), api, "the source");
  if (sim::memoryOf(src.GetPosition()) != sim::Memory::UB)
    sim::fail(std::string(api) + ": copies to global memory leave from UB positions, not " +
              sim::positionName(src.GetPosition()));
  sim::checkLocalAlignment(src, api);
  if (r.count == 0 || r.len == 0) return;
  T* out = dst.view(0, r.dstSpan(), api);
  for (uint64_t i = 0; i < r.count; ++i)
    std::memcpy(out + i * r.dst_step, src.data() + i * r.src_step, r.len * sizeof(T));
  const double bytes = static_cast<double>(r.count * r.len * sizeof(T));
  sim::Block& b = sim::block();
  b.countGm(0, bytes);
  b.transfer(api, PIPE_MTE3, bytes, src.buffer(), nullptr);
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  src.require(count, "DataCopy(local -> GM)", "the source");
  DataCopy(dst, src, DataCopyParams(1, sim::copyBlocks<T>(count, "DataCopy(local -> GM)"), 0, 0));
}

// UB -> UB (the Vector pipe).
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint32_t count) {
  constexpr const char* api = "DataCopy(local -> local)";
  dst.require(count, api, "the destination");
  src.require(count, api, "the source");
  if (sim::memoryOf(dst.GetPosition()) != sim::Memory::UB || sim::memoryOf(src.GetPosition()) != sim::Memory::UB)
    sim::fail(std::string(api) + " copies within UB; from " + sim::positionName(src.GetPosition()) + " to " +
              sim::positionName(dst.GetPosition()) + " use LoadData or Fixpipe");
  sim::copyBlocks<T>(count, api);
  std::memmove(dst.data(), src.data(), count * sizeof(T));
  sim::Block& b = sim::block();
  b.issue(api, PIPE_V, b.vectorCycles(count * sizeof(T)), {src.buffer()}, dst.buffer());
}

// DataCopyPad: copies of any byte length (the 910B's MTE pads the local side to 32 bytes).
// blockLen counts bytes; the global side's stride is a gap in bytes, the local side's a gap in
// 32-byte blocks, and each run occupies blockLen rounded up to 32 bytes locally.
struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;   // bytes per run
  uint32_t srcStride = 0;  // gap after each run in the source (GM: bytes; local: 32-byte blocks)
  uint32_t dstStride = 0;  // ... in the destination
  uint32_t rsv = 0;
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride, uint32_t reserved)
      : blockCount(count), blockLen(len), srcStride(src_stride), dstStride(dst_stride), rsv(reserved) {}
};

template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;        // fill the local run's padding with paddingValue
  uint8_t leftPadding = 0;   // not modelled (must be 0)
  uint8_t rightPadding = 0;  // elements of padding after each run (within its 32-byte rounding)
  T paddingValue = T(0);
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool pad, uint8_t left, uint8_t right, T value)
      : isPad(pad), leftPadding(left), rightPadding(right), paddingValue(value) {}
};

namespace sim {
inline uint64_t roundUp32(uint64_t bytes) { return (bytes + kDataBlockBytes - 1) / kDataBlockBytes * kDataBlockBytes; }
template <typename T>
void checkPadRun(const DataCopyExtParams& p, uint32_t gm_stride, const char* api) {
  if (p.blockLen % sizeof(T) != 0 || gm_stride % sizeof(T) != 0)
    fail(std::string(api) + ": blockLen " + std::to_string(p.blockLen) + " and the global stride " +
         std::to_string(gm_stride) + " (bytes) must be whole numbers of " + std::to_string(sizeof(T)) +
         "-byte elements");
}
}  // namespace sim

// GM -> UB / L1 (MTE2).
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
  constexpr const char* api = "DataCopyPad(GM -> local)";
  sim::checkPadRun<T>(p, p.srcStride, api);
  if (pad.leftPadding != 0) sim::fail(std::string(api) + ": leftPadding is not supported by the simulator");
  const uint64_t run = p.blockLen / sizeof(T), local_run = sim::roundUp32(p.blockLen) / sizeof(T);
  if (pad.isPad && run + pad.rightPadding > local_run)
    sim::fail(std::string(api) + ": rightPadding " + std::to_string(pad.rightPadding) +
              " elements reaches past the run's 32-byte rounding");
  const uint64_t src_step = run + p.srcStride / sizeof(T);
  const uint64_t dst_step = local_run + uint64_t{p.dstStride} * sim::kDataBlockBytes / sizeof(T);
  const uint64_t n = p.blockCount;
  if (n == 0 || run == 0) return;
  dst.require(static_cast<int64_t>((n - 1) * dst_step + local_run), api, "the destination");
  sim::checkGmSide(dst.GetPosition(), api);
  sim::checkLocalAlignment(dst, api);
  const T* in = src.view(0, (n - 1) * src_step + run, api);
  for (uint64_t i = 0; i < n; ++i) {
    T* d = dst.data() + i * dst_step;
    std::memcpy(d, in + i * src_step, run * sizeof(T));
    if (pad.isPad) std::fill(d + run, d + run + pad.rightPadding, pad.paddingValue);
  }
  const double bytes = double(n) * p.blockLen;
  sim::Block& b = sim::block();
  b.countGm(bytes, 0);
  b.transfer(api, PIPE_MTE2, bytes, nullptr, dst.buffer());
}

// UB -> GM (MTE3): only blockLen bytes of each run reach global memory.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  constexpr const char* api = "DataCopyPad(local -> GM)";
  sim::checkPadRun<T>(p, p.dstStride, api);
  const uint64_t run = p.blockLen / sizeof(T), local_run = sim::roundUp32(p.blockLen) / sizeof(T);
  const uint64_t src_step = local_run + uint64_t{p.srcStride} * sim::kDataBlockBytes / sizeof(T);
  const uint64_t dst_step = run + p.dstStride / sizeof(T);
  const uint64_t n = p.blockCount;
  if (n == 0 || run == 0) return;
  src.require(static_cast<int64_t>((n - 1) * src_step + run), api, "the source");
  if (sim::memoryOf(src.GetPosition()) != sim::Memory::UB)
    sim::fail(std::string(api) + ": copies to global memory leave from UB positions, not " +
              sim::positionName(src.GetPosition()));
  sim::checkLocalAlignment(src, api);
  T* out = dst.view(0, (n - 1) * dst_step + run, api);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(out + i * dst_step, src.data() + i * src_step, run * sizeof(T));
  const double bytes = double(n) * p.blockLen;
  sim::Block& b = sim::block();
  b.countGm(0, bytes);
  b.transfer(api, PIPE_MTE3, bytes, src.buffer(), nullptr);
}

}  // namespace AscendC
