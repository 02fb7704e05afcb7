// cubeGemm (ops/linalg/cube_gemm.h).
#include "ops/linalg/cube_gemm.h"

#include <vector>

namespace ascend_sim {

void cubeGemm(const GmMatrix& a, const GmMatrix& b, int64_t m, int64_t n, int64_t k, CubeRounding rnd, float* c,
              UnitCounters* cnt) {
  if (m == 0 || n == 0) return;
  const CubeUnit& cube = cubeUnit();
  const int64_t panels = (n + cube.n0 - 1) / cube.n0;
  std::vector<float> l0a(static_cast<size_t>(m * k)), l0b(static_cast<size_t>(panels * k * cube.n0));
  cube.load_a(a, m, k, rnd, l0a.data(), cnt);
  cube.load_b(b, k, n, rnd, l0b.data(), cnt);
  cube.mmad_f32(CubeOperands{l0a.data(), l0b.data(), m, n, k}, nullptr, 0, m, 0, panels, c, cnt);
}

}  // namespace ascend_sim
