#include "hccl/algorithms/allreduce_mesh.h"

#include <cstring>

#include "hccl/algorithms/mesh_phases.h"

namespace ascend_sim {
namespace hccl {

void AllReduceMesh::run(PeerIo& io, const CollectiveArgs& a, Reducer& reduce) {
  const size_t elem = a.elemSize();
  auto* buf = static_cast<uint8_t*>(a.recv);
  if (a.count == 0) return;
  if (a.send != a.recv) std::memmove(buf, a.send, a.count * elem);
  if (io.size() == 1) return;
  const BlockLayout blocks = BlockLayout::even(a.count, io.size());
  meshReduceScatter(io, buf, blocks, elem, reduce, 0);
  meshAllGather(io, buf, blocks, elem, 1);
}

}  // namespace hccl
}  // namespace ascend_sim
