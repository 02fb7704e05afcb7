// CommPipeline: a product computed on the caller's stream in tiles, each
// tile's collective on the communicator's stream — the schedule of torch_npu's
// fused matmul-communication ops.
//
// Note [Matmul-communication pipelines]
// CANN's MC2 ops (MatmulAllReduce, AllGatherMatmul, MatmulReduceScatter)
// split the product into tiles: the AI Cores compute tile t while HCCL moves
// tile t - 1 (or, for AllGatherMatmul, the Cube multiplies the rows that have
// arrived while the next ones travel). Here each tile's MatMul is an ordinary
// MatMul kernel on the caller's stream and each tile's collective an ordinary
// HCCL task on the group's communication stream (Note [HCCL communicator
// names]); an event hands each tile from one stream to the other, and at the
// end the caller's stream waits for the last collective. Streams keep their
// own simulated clocks (docs/simulator.md, timeline), so the two advance side
// by side: the op's simulated time is the pipeline's, not the sum of its
// parts, and the profiler shows tile t's collective under tile t + 1's MatMul
// on the communication row.
//
// Tiles (comm_turn = 0, the only value torch_npu accepts): rows split into at
// most kMaxCommTiles tiles of at least kMinCommTileRows rows, boundaries on
// multiples of 16 (the Cube's fractal). Each tile's MatMul reads all of x2
// from HBM again (the simulator has no L2 to keep it), so a tile must be tall
// enough for its Cube time to exceed that read: on the 910A and 910B2 presets
// the two are equal near 200 rows, hence 256. Shorter products run as one
// tile, the MatMul then its collective, with nothing to overlap; and every
// extra tile adds its collective's per-step latency, so the pipeline pays off
// when the product and the transfer take comparable time.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <ATen/ATen.h>

#include "csrc/core/NPUEvent.h"
#include "csrc/distributed/HcclCommNames.h"

namespace torch_npu {
namespace distributed {

constexpr int64_t kMaxCommTiles = 4;
constexpr int64_t kMinCommTileRows = 256;

struct RowTile {
  int64_t first;
  int64_t rows;
};

// The tiles of `rows` rows (none for 0 rows).
std::vector<RowTile> commTilesOf(int64_t rows);

class CommPipeline {
 public:
  using Collective = std::function<HcclResult(HcclComm, aclrtStream)>;

  // `op` names the fused op in errors; the caller's stream is the current stream of comm.device.
  CommPipeline(const char* op, NamedComm comm);
  ~CommPipeline();

  // `collective` (named `api`, e.g. "HcclAllReduce") runs on the communication stream once the
  // caller's stream has reached this point. `buffers` are the tensors it reads or writes: they stay
  // allocated until it has run. Returns the collective's index for awaitCollective.
  size_t communicate(const char* api, Collective collective, const std::vector<at::Tensor>& buffers);
  // The caller's stream waits for collective `index` (and so for every one before it).
  void awaitCollective(size_t index);
  // The caller's stream waits for every collective so far.
  void awaitCommunication();

 private:
  const char* op_;
  NamedComm comm_;  // holds the group (Note [HCCL communicator names])
  NPUStream caller_;
  std::vector<std::unique_ptr<NPUEvent>> ready_;  // recorded on the caller's stream
  std::vector<std::unique_ptr<NPUEvent>> done_;   // recorded on the communication stream
};

}  // namespace distributed
}  // namespace torch_npu
