// The shared part of DynamicRNN and DynamicRNNGrad (ops/rnn/rnn_util.h).
#include "ops/rnn/rnn_util.h"

#include <algorithm>
#include <cmath>

#include "aicore/units.h"

namespace ascend_sim {
namespace {

constexpr DtypeMask kRnnTypes = dtBit(ACL_FLOAT) | dtBit(ACL_FLOAT16);
constexpr int64_t kHiddenTile = 16;  // hidden units per core: all 4 gates of a tile stay on one core

}  // namespace

void rejectAttr(const OpCall& call, const char* name, const std::string& value, const std::string& supported) {
  fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
       std::string("attr ") + name + " = " + value + " is not supported (only " + supported + ")");
}

void checkRnnTensor(const OpCall& call, const TensorArg& t, const std::string& name, const TensorArg& x,
                    const Shape& want) {
  checkSameDtype(call, x, "x", t, name);
  checkShapeEq(call, t, name, want, "the layer's shape");
}

void checkRnnInput(const OpCall& call, const TensorArg& x) {
  checkDtype(call, x, "input x", kRnnTypes);
  if (x.shape.size() != 3)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input x must be [T, B, I] (time major), got " + shapeToString(x.shape));
}

RnnDims rnnDimsOf(const OpCall& call, const TensorArg& x, const TensorArg& w, const TensorArg& b,
                  const TensorArg& init_h, const TensorArg& init_c) {
  checkRnnInput(call, x);
  if (w.shape.size() != 2 || w.shape[1] % 4 != 0 || w.shape[0] < x.shape[2] ||
      w.shape[0] - x.shape[2] != w.shape[1] / 4)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input w must be [I + H, 4H] with I = " + std::to_string(x.shape[2]) + " (x's last dim), got " +
             shapeToString(w.shape));
  RnnDims d{x.shape[0], x.shape[1], x.shape[2], w.shape[1] / 4};
  checkSameDtype(call, x, "x", w, "input w");
  checkRnnTensor(call, b, "input b", x, {4 * d.h});
  checkRnnTensor(call, init_h, "input init_h", x, {1, d.b, d.h});
  checkRnnTensor(call, init_c, "input init_c", x, {1, d.b, d.h});
  return d;
}

bool rnnReverseOf(const OpCall& call) {
  const std::string act = attrString(call, "activation", "tanh");
  if (act != "tanh") rejectAttr(call, "activation", act, "tanh");
  if (attrInt(call, "num_proj", 0) != 0)
    rejectAttr(call, "num_proj", std::to_string(attrInt(call, "num_proj", 0)), "0");
  if (!attrBool(call, "time_major", true)) rejectAttr(call, "time_major", "false", "true");
  const float clip = attrFloat(call, "cell_clip", -1.0f), keep = attrFloat(call, "keep_prob", 1.0f);
  if (clip > 0.0f) rejectAttr(call, "cell_clip", std::to_string(clip), "-1: no clipping");
  if (keep > 0.0f && keep < 1.0f) rejectAttr(call, "keep_prob", std::to_string(keep), "1: no dropout");
  const std::string dir = attrString(call, "direction", "UNIDIRECTIONAL");
  if (dir != "UNIDIRECTIONAL" && dir != "REDIRECTIONAL")
    rejectAttr(call, "direction", dir, "UNIDIRECTIONAL or REDIRECTIONAL");
  return dir == "REDIRECTIONAL";
}

void rnnGateOrder(const OpCall& call, const std::string& fallback, const std::string& alternative,
                  const std::string& gates, int64_t* gate_of) {
  const std::string order = attrString(call, "gate_order", fallback);
  if (order != fallback && order != alternative) rejectAttr(call, "gate_order", order, fallback + " or " + alternative);
  for (size_t g = 0; g < gates.size(); ++g) gate_of[g] = static_cast<int64_t>(order.find(gates[g]));
}

RnnAttrs rnnAttrsOf(const OpCall& call) {
  const std::string cell = attrString(call, "cell_type", "LSTM");
  if (cell != "LSTM") rejectAttr(call, "cell_type", cell, "LSTM");
  if (attrBool(call, "use_peephole", false)) rejectAttr(call, "use_peephole", "true", "false");
  RnnAttrs a;
  a.reverse = rnnReverseOf(call);
  rnnGateOrder(call, "ijfo", "ifjo", "ijfo", a.gate_of);
  a.forget_bias = attrFloat(call, "forget_bias", 0.0f);
  return a;
}

void checkRnnLengths(const OpCall& call, size_t index, const RnnDims& d) {
  if (call.inputs.size() <= index) return;
  checkDtype(call, call.inputs[index], "input seq_length", dtBit(ACL_INT32));
  checkShapeEq(call, call.inputs[index], "input seq_length", {d.b}, "[B]");
}

std::vector<int64_t> rnnLengthsOf(const OpCall& call, size_t index, const RnnDims& d) {
  std::vector<int64_t> len(static_cast<size_t>(d.b), d.t);
  if (call.inputs.size() <= index) return len;
  const auto* v = static_cast<const int32_t*>(call.inputs[index].data);
  for (int64_t bi = 0; bi < d.b; ++bi) {
    if (v[bi] < 0 || v[bi] > d.t)  // data the validation cannot see: a device fault
      throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, call.op_type + ": seq_length[" + std::to_string(bi) +
                                                           "] = " + std::to_string(v[bi]) +
                                                           " lies outside [0, T = " + std::to_string(d.t) + "]");
    len[bi] = v[bi];
  }
  return len;
}

std::vector<float> rnnLoad(const TensorArg& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  loadFloat(t.dtype, t.data, 0, 1, t.numel(), v.data());
  return v;
}

void rnnRoundTo(aclDataType dt, float* v, int64_t n) {
  if (dt == ACL_FLOAT || n == 0) return;
  std::vector<uint16_t> tmp(static_cast<size_t>(n));
  storeFloat(dt, tmp.data(), 0, n, v);
  loadFloat(dt, tmp.data(), 0, 1, n, v);
}

void checkStateGradient(const OpCall& call, const TensorArg& t, const std::string& name, const TensorArg& x,
                        const RnnDims& d) {
  checkSameDtype(call, x, "x", t, name);
  if (t.shape != Shape{1, d.b, d.h} && t.shape != Shape{d.t, d.b, d.h})
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         name + " must be [1, B, H] (the final state's gradient) or [T, B, H] (every step's), got " +
             shapeToString(t.shape));
}

std::vector<float> initialStateGradient(const TensorArg& t, const RnnDims& d) {
  if (t.shape[0] == 1) return rnnLoad(t);
  return std::vector<float>(static_cast<size_t>(d.b * d.h), 0.0f);
}

void addStepGradient(const TensorArg& t, const RnnDims& d, int64_t step, std::vector<float>& carry) {
  if (t.shape[0] == 1) return;
  const int64_t bh = d.b * d.h;
  std::vector<float> g(static_cast<size_t>(bh));
  loadFloat(t.dtype, t.data, step * bh, 1, bh, g.data());
  for (int64_t e = 0; e < bh; ++e) carry[e] += g[e];
}

KernelCost rnnCost(const OpCall& call, const RnnDims& d, const std::vector<std::vector<int64_t>>& products,
                   int passes) {
  KernelCost c;
  c.core = CoreType::kAiCore;
  for (const std::vector<int64_t>& mnk : products) {
    c.cube_macs += cubeUnit().padded_macs(mnk[0], mnk[1], mnk[2]) * static_cast<double>(mnk[3]);
    c.flops += 2.0 * static_cast<double>(mnk[0] * mnk[1]) * static_cast<double>(mnk[2] * mnk[3]);
  }
  c.vector_repeats = static_cast<double>(d.t) * passes * vectorUnit().repeats(d.b * d.h, ACL_FLOAT);
  c.flops += static_cast<double>(d.t) * passes * static_cast<double>(d.b * d.h);
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  const int64_t tiles = (d.h + kHiddenTile - 1) / kHiddenTile;
  c.block_dim = static_cast<uint32_t>(std::clamp<int64_t>(tiles, 1, 1 << 30));
  c.serial_steps = static_cast<uint32_t>(d.t);  // each step waits for the previous one's h
  return c;
}

}  // namespace ascend_sim
