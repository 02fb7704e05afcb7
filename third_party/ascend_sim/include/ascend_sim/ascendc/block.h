// Ascend C on the simulator: one block's state — its on-chip memories and the timeline of its pipes.
// Part of the header-only kernel API behind <kernel_operator.h> (docs/ascend_c.md).
//
// Note [Block timeline]
// An AI Core has one scalar unit that issues instructions, in program order, into the queues of
// its pipes: MTE2 (GM -> UB/L1), MTE1 (L1 -> L0A/L0B), M (Cube), V (Vector), MTE3 (UB -> GM) and
// FIX (L0C -> UB/GM). Each pipe runs its instructions in order; different pipes run in parallel,
// kept apart only by the synchronisation the kernel asks for (EnQue/DeQue).
// The simulator executes every instruction at once, in program order (so a kernel that follows
// the queue protocol computes what the chip computes), and times it on a timeline:
//   start = max(the pipe is free,
//               the buffers it reads were written (read after write),
//               the buffer it writes was last read or written (write after read or write),
//               the last scalar read of a local value (the scalar unit waited for it))
//   end   = start + the instruction's cost
// per buffer handed out by a queue (one buffer of a TQue of depth 2 is tile n, the other tile
// n + 1), so a copy into the second buffer overlaps the compute on the first: double buffering.
// A transfer to or from global memory (MTE2, MTE3, FIX to GM) is different in two ways. Its data
// crosses the core's link to HBM, which carries one transfer at a time (reads and writes share it)
// at the core's share of the HBM bandwidth: the transfer's data fills the link's free time from
// its start on, in the order the scalar unit issued the transfers (a later transfer may use a gap
// that an earlier one, still waiting for its data, leaves). And its data lands kGmLatencyCycles after it leaves: the
// pipe and the source buffer are free when the data has left, the destination buffer (or, for a
// store, the block's end) waits for the latency too. Transfers in flight thus overlap their
// latencies — which only happens if the kernel has the next tile's buffer to copy into.
// The block's time is the end of its last instruction or the landing of its last transfer.
// Costs (assumed figures marked):
//   MTE2 / MTE3   bytes / (HBM bandwidth / vector cores) on the link, + kGmLatencyCycles to land
//   MTE1          kL1LatencyCycles + bytes / kL1BytesPerCycle
//   V             kVectorStartCycles + repeats x cycles per repeat, a repeat = 256 bytes
//   M             kCubeStartCycles + MACs padded to 16x16x16 fractals / MACs per cycle
//   FIX           to UB: kL1LatencyCycles + bytes / kFixBytesPerCycle; to GM: as MTE3
// Global memory is not tracked: a kernel that writes GM and reads it back must order that itself,
// as on the chip.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ascend_sim/aclsim_kernel.h"

// Ascend C's qualifiers mean nothing to the host compiler.
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

// Ascend C's half: IEEE binary16 (GCC's _Float16; arithmetic in float, one rounding).
using half = _Float16;

namespace AscendC {

enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, MAX };
using QuePosition = TPosition;

// The pipes (instruction queues) of an AI Core.
enum pipe_t : int { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };

namespace sim {

// A rule of the chip broken by the kernel: an AI Core exception of its block.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void fail(const std::string& what) { throw KernelError(what); }

// Assumed figures of the cost model (Note [Block timeline]).
constexpr double kGmLatencyCycles = 200;   // a GM transfer's latency (HBM)
constexpr double kL1LatencyCycles = 16;    // an L1 -> L0 or L0C transfer's start-up
constexpr double kL1BytesPerCycle = 256;   // L1 -> L0A/L0B
constexpr double kFixBytesPerCycle = 128;  // L0C -> UB/GM
constexpr double kVectorStartCycles = 8;   // a vector instruction's start-up
constexpr double kCubeStartCycles = 16;    // an Mmad's start-up

// The on-chip memories a position lives in.
enum class Memory : int { UB = 0, L1, L0A, L0B, L0C, kCount };

inline const char* memoryName(Memory m) {
  static const char* const names[] = {"UB", "L1", "L0A", "L0B", "L0C"};
  return names[static_cast<int>(m)];
}

inline const char* positionName(TPosition p) {
  static const char* const names[] = {"GM", "A1",  "A2",  "B1",    "B2",     "C1",
                                      "C2", "CO1", "CO2", "VECIN", "VECOUT", "VECCALC"};
  return p < TPosition::MAX ? names[static_cast<int>(p)] : "?";
}

inline Memory memoryOf(TPosition p) {
  switch (p) {
    case TPosition::VECIN:
    case TPosition::VECOUT:
    case TPosition::VECCALC:
    case TPosition::CO2: return Memory::UB;
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1: return Memory::L1;
    case TPosition::A2: return Memory::L0A;
    case TPosition::B2: return Memory::L0B;
    case TPosition::CO1:
    case TPosition::C2: return Memory::L0C;
    case TPosition::MAX: fail("a LocalTensor that was never allocated (it has no position)");
    default: fail(std::string("position ") + positionName(p) + " is not an on-chip buffer");
  }
}

// Alignment of a buffer's start in each memory [bytes]: UB and L1 32, L0A/L0B 512 (a 16x16 fp16
// fractal), L0C 64.
inline uint32_t alignmentOf(Memory m) {
  static const uint32_t align[] = {32, 32, 512, 512, 64};
  return align[static_cast<int>(m)];
}

template <typename T>
constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, double>;

// One buffer handed out by a TQue or TBuf, and the times of Note [Block timeline].
struct Buffer {
  TPosition pos = TPosition::MAX;
  Memory mem = Memory::UB;
  uint8_t* data = nullptr;
  uint32_t bytes = 0;
  uint32_t offset = 0;    // in its memory
  double written_us = 0;  // the last write ends
  double used_us = 0;     // the last access ends
  std::string owner;      // "TQue<VECIN>" for messages
};

// The block being run on this thread (set by the launch, launch.h). Each library that includes this
// header has its own copy: a kernel runs only when launched from the library it is compiled into.
class Block;
inline thread_local Block* current_block = nullptr;

class Block {
 public:
  explicit Block(aclsimKernelBlock* info) : info_(*info) {
    const aclsimCoreSpec& c = info->core;
    const uint64_t caps[] = {c.ub_bytes, c.l1_bytes, c.l0a_bytes, c.l0b_bytes, c.l0c_bytes};
    for (int m = 0; m < kMemories; ++m) capacity_[m] = caps[m];
  }

  aclsimKernelBlock& info() { return info_; }
  uint64_t capacity(Memory m) const { return capacity_[static_cast<int>(m)]; }
  uint64_t used(Memory m) const { return used_[static_cast<int>(m)]; }

  // Reserves `bytes` (rounded up to the memory's alignment) of m for a buffer of `owner`; fails,
  // naming the kernel's demand, when the memory is full.
  Buffer* newBuffer(TPosition pos, uint32_t bytes, const std::string& owner) {
    const Memory m = memoryOf(pos);
    const int i = static_cast<int>(m);
    const uint64_t align = alignmentOf(m);
    const uint64_t rounded = (uint64_t{bytes} + align - 1) / align * align;
    if (used_[i] + rounded > capacity_[i])
      fail(std::string(memoryName(m)) + " overflow: " + owner + " asks for " + std::to_string(rounded) + " bytes at " +
           positionName(pos) + ", but " + std::to_string(used_[i]) + " of the " + std::to_string(capacity_[i]) +
           " bytes of " + memoryName(m) + " (" + (info_.core.soc_name ? info_.core.soc_name : "?") +
           ") are already in use");
    // Note [On-chip storage]: one host array per memory and thread, reused by every block the thread
    // runs. A new buffer is filled with 0xFF bytes (NaN in half and float), not zeros: on the chip
    // it holds what the last kernel left, and a kernel that reads it before writing it should see
    // garbage here too.
    std::vector<uint8_t>& store = storage()[i];
    if (store.size() < capacity_[i]) store.resize(capacity_[i]);
    auto b = std::make_unique<Buffer>();
    b->pos = pos;
    b->mem = m;
    b->offset = static_cast<uint32_t>(used_[i]);
    b->data = store.data() + used_[i];
    b->bytes = static_cast<uint32_t>(rounded);  // a buffer holds whole aligned blocks
    b->owner = owner;
    std::memset(b->data, 0xFF, rounded);
    used_[i] += rounded;
    buffers_.push_back(std::move(b));
    return buffers_.back().get();
  }
  // Frees the memories back to `marks` (a TPipe's destructor or Reset).
  void releaseTo(const uint64_t* marks) {
    for (int m = 0; m < kMemories; ++m) used_[m] = marks[m];
  }
  void marks(uint64_t* out) const {
    for (int m = 0; m < kMemories; ++m) out[m] = used_[m];
  }

  // Times one instruction (named `what`) on `pipe` (Note [Block timeline]); returns its end.
  double issue(const char* what, pipe_t pipe, double cycles, std::initializer_list<Buffer*> reads, Buffer* write) {
    const double cost = cycles / info_.core.clock_hz * 1e6;
    const double start = readyTime(pipe, reads, write), end = start + cost;
    book(what, pipe, start, end, end, cost, reads, write);
    return end;
  }
  // The scalar unit reads a local value: it waits for the value, and so does every later issue.
  void scalarRead(Buffer* b) {
    if (b) scalar_floor_ = std::max(scalar_floor_, b->written_us);
  }
  // PipeBarrier<PIPE_ALL>: the scalar unit waits until every instruction issued so far is done
  // (transfers landed). A barrier on one pipe orders that pipe's instructions, which the timeline
  // keeps in order anyway.
  void barrier(pipe_t pipe) {
    if (pipe == PIPE_ALL) scalar_floor_ = std::max(scalar_floor_, last_end_);
  }

  // Times a transfer of `bytes` between GM and the core on `pipe` (Note [Block timeline]).
  void transfer(const char* what, pipe_t pipe, double bytes, Buffer* read, Buffer* write) {
    const double data_us = bytes / info_.core.gm_bytes_per_s * 1e6;
    double first = 0;
    const double left = linkFill(readyTime(pipe, {read}, write), data_us, &first);
    book(what, pipe, first, left, left + kGmLatencyCycles / info_.core.clock_hz * 1e6, data_us, {read}, write);
  }
  // When an instruction on `pipe` that reads `reads` and writes `write` may start.
  double readyTime(pipe_t pipe, std::initializer_list<Buffer*> reads, Buffer* write) const {
    double ready = std::max(pipe_free_[pipe], scalar_floor_);
    for (Buffer* r : reads)
      if (r) ready = std::max(ready, r->written_us);
    if (write) ready = std::max(ready, write->used_us);
    return ready;
  }
  // Books an instruction that occupies `pipe` for `busy` from `start` to `left` (when its sources
  // have been read) and whose result is in place at `done`.
  void book(const char* what, pipe_t pipe, double start, double left, double done, double busy,
            std::initializer_list<Buffer*> reads, Buffer* write) {
    pipe_free_[pipe] = left;
    busy_[pipe] += busy;
    for (Buffer* r : reads)
      if (r) r->used_us = std::max(r->used_us, left);
    if (write) {
      write->written_us = done;
      write->used_us = std::max(write->used_us, done);
    }
    last_end_ = std::max(last_end_, done);
    trace(pipe, what, start, left);
  }
  void trace(pipe_t pipe, const char* what, double start, double end) {
    if (info_.on_instruction) info_.on_instruction(info_.on_instruction_ctx, pipe, what, start, end);
  }
  // A scalar access to global memory: the scalar unit waits for the round trip.
  void scalarGm() {
    scalar_floor_ = std::max(scalar_floor_, pipe_free_[PIPE_S]) + kGmLatencyCycles / info_.core.clock_hz * 1e6;
    pipe_free_[PIPE_S] = scalar_floor_;
    last_end_ = std::max(last_end_, scalar_floor_);
  }
  // Puts `us` of data on the GM link in its free time from `ready` on (pieces of it may fill gaps
  // left by transfers issued earlier that start later); returns when the last piece ends, and in
  // *first when the first one starts.
  double linkFill(double ready, double us, double* first) {
    // link_ holds the busy intervals, sorted, disjoint and merged. Intervals that end before every
    // GM pipe in use is free are dropped (the list stays short); a transfer on a pipe not used yet
    // starts after them, which can only make it later, never earlier.
    double horizon = std::numeric_limits<double>::infinity();
    for (pipe_t p : {PIPE_MTE2, PIPE_MTE3, PIPE_FIX})
      if (busy_[p] > 0) horizon = std::min(horizon, pipe_free_[p]);
    auto reachable = std::find_if(link_.begin(), link_.end(), [&](const auto& busy) { return busy.second > horizon; });
    if (reachable != link_.begin()) link_floor_ = std::max(link_floor_, std::prev(reachable)->second);
    link_.erase(link_.begin(), reachable);
    std::vector<std::pair<double, double>> pieces;
    double t = std::max(ready, link_floor_), remaining = us;
    *first = -1;
    auto it = std::upper_bound(link_.begin(), link_.end(), t,
                               [](double v, const std::pair<double, double>& busy) { return v < busy.second; });
    while (remaining > 0) {
      if (it == link_.end()) {  // free from t on
        if (*first < 0) *first = t;
        pieces.emplace_back(t, t + remaining);
        t += remaining;
        break;
      }
      if (it->first > t) {  // a gap before the next busy interval
        const double take = std::min(remaining, it->first - t);
        if (*first < 0) *first = t;
        pieces.emplace_back(t, t + take);
        t += take;
        remaining = remaining - take > 1e-9 * us ? remaining - take : 0;  // rounding leaves no sliver
      }
      if (remaining > 0) t = std::max(t, (it++)->second);
    }
    std::vector<std::pair<double, double>> merged;
    merged.reserve(link_.size() + pieces.size());
    std::merge(link_.begin(), link_.end(), pieces.begin(), pieces.end(), std::back_inserter(merged));
    link_.clear();
    for (const auto& busy : merged) {
      if (!link_.empty() && busy.first <= link_.back().second)
        link_.back().second = std::max(link_.back().second, busy.second);
      else
        link_.push_back(busy);
    }
    return t;
  }
  double vectorCycles(double bytes) const {
    const double repeats = std::ceil(bytes / info_.core.vector_bytes_per_repeat);
    return kVectorStartCycles + repeats * info_.core.vector_cycles_per_repeat;
  }

  void countGm(double read, double write) {
    info_.gm_read_bytes += read;
    info_.gm_write_bytes += write;
  }
  void countFlops(double f) { info_.flops += f; }
  void usedCube() { info_.used_cube = 1; }

  // Writes the block's results into its aclsimKernelBlock.
  void finish() {
    info_.duration_us = last_end_;
    info_.cube_us = busy_[PIPE_M];
    info_.vector_us = busy_[PIPE_V];
    info_.mte_us = busy_[PIPE_MTE2] + busy_[PIPE_MTE3];
  }

 private:
  static constexpr int kMemories = static_cast<int>(Memory::kCount);
  aclsimKernelBlock& info_;
  static std::vector<uint8_t>* storage() {
    static thread_local std::vector<uint8_t> memories[kMemories];
    return memories;
  }
  uint64_t capacity_[kMemories] = {};
  uint64_t used_[kMemories] = {};
  std::vector<std::unique_ptr<Buffer>> buffers_;  // every buffer of the block, for its whole run
  double pipe_free_[PIPE_ALL] = {};
  double busy_[PIPE_ALL] = {};
  double scalar_floor_ = 0;
  double last_end_ = 0;
  std::vector<std::pair<double, double>> link_;  // the GM link's busy intervals [start, end)
  double link_floor_ = 0;                        // the end of the intervals dropped from link_
};

inline Block& block() {
  if (!current_block) fail("an Ascend C kernel API was called outside a kernel launch (use ACLRT_LAUNCH_KERNEL)");
  return *current_block;
}

// Host view of [p, p + bytes) of global memory, or an AI Core exception naming `what`.
inline void* gmView(const void* p, size_t bytes, const std::string& what) {
  char error[512] = {0};
  void* host = aclsimKernelGmView(block().info().device, p, bytes, error, sizeof(error));
  if (!host) fail("out-of-bounds global memory access: " + what + ": " + error);
  return host;
}

}  // namespace sim

inline int64_t GetBlockIdx() { return sim::block().info().block_idx; }
inline int64_t GetBlockNum() { return sim::block().info().block_num; }

// The scalar unit waits for `pipe` (PIPE_ALL: for every pipe).
template <pipe_t pipe>
inline void PipeBarrier() {
  sim::block().barrier(pipe);
}

}  // namespace AscendC
