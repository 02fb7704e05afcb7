#include "ops/elementwise.h"

#include <map>
#include <string>

namespace ascend_sim {

namespace {

template <typename T, typename Fn>
void runEngine(const TensorArg* const* ins, int nin, const TensorArg& out, Fn fn,
               const float* params,
               void (*load)(aclDataType, const void*, int64_t, int64_t, int64_t, T*),
               void (*store)(aclDataType, void*, int64_t, int64_t, const T*)) {
  std::vector<Shape> strides;
  strides.push_back(contiguousStrides(out.shape));
  for (int k = 0; k < nin; ++k) strides.push_back(broadcastStrides(ins[k]->shape, out.shape));
  std::vector<T> scratch(static_cast<size_t>(kChunk) * (nin + 1));
  const T* in_ptrs[4];
  for (int k = 0; k < nin; ++k) in_ptrs[k] = scratch.data() + kChunk * (k + 1);
  T* res = scratch.data();
  forEachInnerRun(out.shape, strides, [&](const int64_t* off, int64_t len, const int64_t* st) {
    for (int64_t c = 0; c < len; c += kChunk) {
      int64_t m = len - c < kChunk ? len - c : kChunk;
      for (int k = 0; k < nin; ++k)
        load(ins[k]->dtype, ins[k]->data, off[k + 1] + c * st[k + 1], st[k + 1], m,
             const_cast<T*>(in_ptrs[k]));
      fn(in_ptrs, res, m, params);
      store(out.dtype, out.data, off[0] + c, m, res);
    }
  });
}

std::map<std::string, const ElementwiseSpec*>& specTable() {
  static auto* table = new std::map<std::string, const ElementwiseSpec*>();  // leaked: static-init safe
  return *table;
}

const ElementwiseSpec& specOf(const OpCall& call) { return *specTable().at(call.op_type); }

// Index of the first value (non-condition) input.
int firstValue(const ElementwiseSpec& s) { return s.cond_input == 0 ? 1 : 0; }

void readParams(const OpCall& call, const ElementwiseSpec& s, float* params) {
  for (int i = 0; i < 3; ++i) {
    const FloatAttr& a = s.attrs[i];
    if (!a.name) continue;
    params[i] = a.required ? attrFloat(call, a.name) : attrFloat(call, a.name, a.fallback);
  }
}

void validateElementwise(const OpCall& call) {
  const ElementwiseSpec& s = specOf(call);
  checkArity(call, s.num_inputs, s.num_inputs, 1);
  const TensorArg& y = call.outputs[0];
  const std::string yname = std::string("output ") + s.names[s.num_inputs];
  const int v0 = firstValue(s);
  const TensorArg& x0 = call.inputs[v0];
  checkDtype(call, x0, std::string("input ") + s.names[v0], s.dtypes);
  Shape bshape;
  for (int k = 0; k < s.num_inputs; ++k) {
    const TensorArg& x = call.inputs[k];
    if (k == s.cond_input) {
      checkDtype(call, x, std::string("input ") + s.names[k], kBoolType);
    } else {
      checkSameDtype(call, x0, s.names[v0], x, s.names[k]);
    }
    checkBroadcast(call, x, s.names[k], y);
    Shape next;
    broadcastShapes(bshape, x.shape, &next);
    bshape = next;
  }
  switch (s.out) {
    case OutDtype::kSame: checkSameDtype(call, x0, s.names[v0], y, yname); break;
    case OutDtype::kBool: checkDtype(call, y, yname, kBoolType); break;
    case OutDtype::kAny: checkDtype(call, y, yname, kAllTypes); break;
  }
  if (bshape != y.shape)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         yname + " shape " + shapeToString(y.shape) +
             " does not equal the broadcast shape " + shapeToString(bshape) + " of the inputs");
  float params[3] = {0, 0, 0};
  readParams(call, s, params);
}

void computeElementwise(const OpCall& call) {
  const ElementwiseSpec& s = specOf(call);
  float params[3] = {0, 0, 0};
  readParams(call, s, params);
  const TensorArg* ins[4];
  for (int k = 0; k < s.num_inputs; ++k) ins[k] = &call.inputs[k];
  if (isFloatDtype(call.inputs[firstValue(s)].dtype)) {
    runElementwiseFloat(ins, s.num_inputs, call.outputs[0], s.ffn, params);
  } else {
    runElementwiseInt(ins, s.num_inputs, call.outputs[0], s.ifn, params);
  }
}

}  // namespace

void runElementwiseFloat(const TensorArg* const* ins, int nin, const TensorArg& out,
                         FloatChunkFn fn, const float* params) {
  runEngine<float>(ins, nin, out, fn, params, &loadFloat, &storeFloat);
}

void runElementwiseInt(const TensorArg* const* ins, int nin, const TensorArg& out, IntChunkFn fn,
                       const float* params) {
  runEngine<int64_t>(ins, nin, out, fn, params, &loadInt, &storeInt);
}

void registerElementwiseSpecs(const ElementwiseSpec* specs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    specTable()[specs[i].op] = &specs[i];
    registerKernel(KernelDef{specs[i].op, &validateElementwise, &computeElementwise, &vectorCost});
  }
}

}  // namespace ascend_sim
