// Which SIMD level the simulator's host kernels use.
//
// Note [Host SIMD level]
// The hot kernels (the Cube's micro-kernels, operand packing, format moves,
// fp16 conversions) have an AVX-512 form, an AVX2 + FMA + F16C form and a
// portable one, chosen at run time by hostIsa(). Every form gives the same
// bits (each output element sees the same operations in the same order), so
// the level changes only the host's speed. The level is the host's own,
// lowered by a cap: ASCEND_SIM_HOST_ISA=portable|avx2|avx512 in the
// environment at start-up, or capHostIsa() — which is how the GoogleTests run
// the AVX2 forms on an AVX-512 host and compare the bits of every level the
// host has. Change the cap only while no kernel runs.
#pragma once

#include "ascend_sim/acl.h"

namespace ascend_sim {

enum class HostIsa : int {
  kPortable = 0,  // plain C++ (std::fma)
  kAvx2 = 1,      // x86-64 AVX2 with FMA and F16C
  kAvx512 = 2,    // x86-64 AVX-512F (with the AVX2 level's extensions)
};

// The level the kernels use now: the host's, capped.
HostIsa hostIsa();
// The host's own level, without the cap.
ASCEND_SIM_API HostIsa detectedHostIsa();
// Caps the level (tests, A/B measurements); returns the previous cap.
ASCEND_SIM_API HostIsa capHostIsa(HostIsa cap);
// "portable", "avx2" or "avx512".
ASCEND_SIM_API const char* hostIsaName(HostIsa isa);

}  // namespace ascend_sim
