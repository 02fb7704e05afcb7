// softmax_custom: softmax over the last dimension, one row at a time: ReduceMax, subtract, Exp,
// ReduceSum, scale. The two reductions end in a scalar read (GetValue), which makes the scalar unit
// wait for the Vector unit: the row's copy-in still overlaps through the double-buffered queue.
#include "kernels.h"

using namespace AscendC;

namespace {

class KernelSoftmax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTiling& tiling) {
    rows = tiling.rows;
    cols = tiling.cols;
    xGm.SetGlobalBuffer((__gm__ float*)x, uint64_t{rows} * cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, uint64_t{rows} * cols);
    pipe.InitBuffer(inQueue, 2, cols * sizeof(float));
    pipe.InitBuffer(outQueue, 2, cols * sizeof(float));
    pipe.InitBuffer(work, cols * sizeof(float));
    pipe.InitBuffer(scalar, 32);
  }
  __aicore__ inline void Process() {
    for (uint32_t row = GetBlockIdx(); row < rows; row += GetBlockNum()) {
      CopyIn(row);
      Compute();
      CopyOut(row);
    }
  }

 private:
  __aicore__ inline DataCopyExtParams Row() const { return DataCopyExtParams(1, cols * sizeof(float), 0, 0, 0); }
  __aicore__ inline void CopyIn(uint32_t row) {
    LocalTensor<float> x = inQueue.AllocTensor<float>();
    DataCopyPad(x, xGm[uint64_t{row} * cols], Row(), DataCopyPadExtParams<float>());
    inQueue.EnQue(x);
  }
  __aicore__ inline void Compute() {
    LocalTensor<float> x = inQueue.DeQue<float>();
    LocalTensor<float> y = outQueue.AllocTensor<float>();
    LocalTensor<float> w = work.Get<float>(), r = scalar.Get<float>();
    ReduceMax(r, x, w, cols);
    const float rowMax = r.GetValue(0);
    Adds(y, x, -rowMax, cols);
    Exp(y, y, cols);
    ReduceSum(r, y, w, cols);
    const float rowSum = r.GetValue(0);
    Muls(y, y, 1.0f / rowSum, cols);
    outQueue.EnQue(y);
    inQueue.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(uint32_t row) {
    LocalTensor<float> y = outQueue.DeQue<float>();
    DataCopyPad(yGm[uint64_t{row} * cols], y, Row());
    outQueue.FreeTensor(y);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, 2> inQueue;
  TQue<QuePosition::VECOUT, 2> outQueue;
  TBuf<QuePosition::VECCALC> work, scalar;
  GlobalTensor<float> xGm, yGm;
  uint32_t rows = 0, cols = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, SoftmaxTiling tiling) {
  KernelSoftmax op;
  op.Init(x, y, tiling);
  op.Process();
}
