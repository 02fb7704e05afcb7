// One whole matrix product on the Cube unit, for fused kernels that chain
// several products with Vector work in between (FlashAttentionScore): the
// operands are loaded GM -> L0A / L0B by the MTE and multiplied by the Cube
// with its numerics (Note [Cube numerics and blocking] in aicore/cube.cpp).
#pragma once

#include <cstdint>

#include "aicore/units.h"

namespace ascend_sim {

// c[m][n] (fp32, row-major, overwritten) = A[m][k] · B[k][n], A and B read
// through their GmMatrix views; fp32 operands are rounded per `rnd` (the
// precision mode). Work and fp16 overflow are counted into `cnt` (may be null).
void cubeGemm(const GmMatrix& a, const GmMatrix& b, int64_t m, int64_t n, int64_t k, CubeRounding rnd, float* c,
              UnitCounters* cnt);

}  // namespace ascend_sim
