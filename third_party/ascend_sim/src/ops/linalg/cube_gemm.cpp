// cubeGemm (ops/linalg/cube_gemm.h).
#include "ops/linalg/cube_gemm.h"

#include <algorithm>
#include <vector>

#include "aicore/thread_pool.h"

namespace ascend_sim {

LoadedCubeB::LoadedCubeB(const GmMatrix& b, int64_t k, int64_t n, CubeRounding rnd, UnitCounters* cnt)
    : k_(k), n_(n), rnd_(rnd) {
  const CubeUnit& cube = cubeUnit();
  l0b_.resize(static_cast<size_t>((n + cube.n0 - 1) / cube.n0 * k * cube.n0));
  if (n > 0) cube.load_b(b, k, n, rnd, l0b_.data(), cnt);
}

// Note [Host split of a Cube product]
// The result does not depend on how the output is split (mmad_f32), so the
// host splits it for its threads: bands of kRowsPerTask rows when there are
// enough rows, else groups of 16-column panels (a recurrent step's product
// has only B rows). Each task counts into its own counters.
void LoadedCubeB::multiply(const GmMatrix& a, int64_t m, float* c, UnitCounters* cnt) const {
  if (m == 0 || n_ == 0) return;
  constexpr int64_t kRowsPerTask = 48, kPanelGroups = 8;
  const CubeUnit& cube = cubeUnit();
  std::vector<float> l0a(static_cast<size_t>(m * k_));
  cube.load_a(a, m, k_, rnd_, l0a.data(), cnt);
  const CubeOperands op{l0a.data(), l0b_.data(), m, n_, k_};
  const int64_t panels = (n_ + cube.n0 - 1) / cube.n0;
  const bool by_rows = m >= 2 * kRowsPerTask;
  const int64_t tasks = by_rows ? (m + kRowsPerTask - 1) / kRowsPerTask : std::min(panels, kPanelGroups);
  std::vector<UnitCounters> task_cnt(static_cast<size_t>(tasks));
  parallelFor(tasks, m * n_ * k_, [&](int64_t t) {
    if (by_rows)
      cube.mmad_f32(op, nullptr, t * kRowsPerTask, std::min(m, (t + 1) * kRowsPerTask), 0, panels, c, &task_cnt[t]);
    else
      cube.mmad_f32(op, nullptr, 0, m, t * panels / tasks, (t + 1) * panels / tasks, c, &task_cnt[t]);
  });
  if (cnt)
    for (const UnitCounters& u : task_cnt) cnt->add(u);
}

void cubeGemm(const GmMatrix& a, const GmMatrix& b, int64_t m, int64_t n, int64_t k, CubeRounding rnd, float* c,
              UnitCounters* cnt) {
  if (m == 0 || n == 0) return;
  LoadedCubeB(b, k, n, rnd, cnt).multiply(a, m, c, cnt);
}

}  // namespace ascend_sim
