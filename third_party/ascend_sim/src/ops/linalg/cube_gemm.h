// One whole matrix product on the Cube unit, for fused kernels that chain
// several products with Vector work in between (FlashAttentionScore): the
// operands are loaded GM -> L0A / L0B by the MTE and multiplied by the Cube
// with its numerics (Note [Cube numerics and blocking] in aicore/cube.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "aicore/units.h"

namespace ascend_sim {

// c[m][n] (fp32, row-major, overwritten) = A[m][k] · B[k][n], A and B read
// through their GmMatrix views; fp32 operands are rounded per `rnd` (the
// precision mode). Work and fp16 overflow are counted into `cnt` (may be null).
void cubeGemm(const GmMatrix& a, const GmMatrix& b, int64_t m, int64_t n, int64_t k, CubeRounding rnd, float* c,
              UnitCounters* cnt);

// A [k][n] B operand loaded into L0B once and multiplied many times (a
// recurrent kernel's hidden weights: one product per step). multiply() gives
// what cubeGemm(a, b, m, n, k, rnd, c, cnt) gives, bit for bit.
class LoadedCubeB {
 public:
  LoadedCubeB(const GmMatrix& b, int64_t k, int64_t n, CubeRounding rnd, UnitCounters* cnt);
  void multiply(const GmMatrix& a, int64_t m, float* c, UnitCounters* cnt) const;

 private:
  std::vector<float> l0b_;
  int64_t k_, n_;
  CubeRounding rnd_;
};

}  // namespace ascend_sim
