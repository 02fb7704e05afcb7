// Conv3D and its backprops as products the host's Cube reads from zero-padded volumes in place
// (Note [3-D convolution on the 2-D Cube path]); conv3d.cpp parses the call and falls back to
// its reference loops on hosts whose Cube cannot read in place.
#pragma once

#include <cstdint>

#include "kernel/kernel.h"

namespace ascend_sim {
namespace convops {

// A validated 3-D convolution: NCDHW extents of x (or dx), the filter and y (or dy).
struct Geom3d {
  int64_t n = 0, ci = 0, co = 0, groups = 1, cig = 0, cog = 0;
  int64_t in[3] = {0, 0, 0};   // x spatial dims (D, H, W)
  int64_t out[3] = {0, 0, 0};  // y spatial dims
  int64_t k[3] = {1, 1, 1};    // kernel
  int64_t s[3] = {1, 1, 1};    // strides
  int64_t pad[3] = {0, 0, 0};  // leading pads (the trailing ones only size y)
  int64_t dil[3] = {1, 1, 1};
  bool has_bias = false;
  int64_t kvol() const { return k[0] * k[1] * k[2]; }
  int64_t invol() const { return in[0] * in[1] * in[2]; }
  int64_t outvol() const { return out[0] * out[1] * out[2]; }
};

// Whether this host's Cube runs the products below (it reads A in place: AVX2 or AVX-512).
bool conv3dOnCube();

// The three ops on the Cube; same bits as conv3d.cpp's reference loops.
void conv3dForwardOnCube(const OpCall& call, const Geom3d& g);
void conv3dBackpropInputOnCube(const OpCall& call, const Geom3d& g);
void conv3dBackpropFilterOnCube(const OpCall& call, const Geom3d& g);

}  // namespace convops
}  // namespace ascend_sim
