// add_custom, after Ascend's introductory Ascend C sample: z = x + y, tiles moved GM -> UB -> GM
// through queues of BUFFER_NUM buffers, so that with two buffers the copy of tile n + 1 overlaps
// the add of tile n. The tail tile goes through DataCopyPad.
#include "kernels.h"

using namespace AscendC;

namespace {

template <typename T, int BUFFER_NUM>
class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTiling& tiling) {
    totalLength = tiling.totalLength;
    tileLength = tiling.tileLength;
    xGm.SetGlobalBuffer((__gm__ T*)x, totalLength);
    yGm.SetGlobalBuffer((__gm__ T*)y, totalLength);
    zGm.SetGlobalBuffer((__gm__ T*)z, totalLength);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
    pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
    pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
  }
  __aicore__ inline void Process() {
    const uint32_t tiles = (totalLength + tileLength - 1) / tileLength;
    for (uint32_t tile = GetBlockIdx(); tile < tiles; tile += GetBlockNum()) {
      const uint32_t offset = tile * tileLength;
      const uint32_t length = offset + tileLength <= totalLength ? tileLength : totalLength - offset;
      CopyIn(offset, length);
      Compute(length);
      CopyOut(offset, length);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t offset, uint32_t length) {
    LocalTensor<T> xLocal = inQueueX.template AllocTensor<T>();
    LocalTensor<T> yLocal = inQueueY.template AllocTensor<T>();
    if (length == tileLength) {
      DataCopy(xLocal, xGm[offset], length);
      DataCopy(yLocal, yGm[offset], length);
    } else {
      const DataCopyExtParams run(1, length * sizeof(T), 0, 0, 0);
      DataCopyPad(xLocal, xGm[offset], run, DataCopyPadExtParams<T>());
      DataCopyPad(yLocal, yGm[offset], run, DataCopyPadExtParams<T>());
    }
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
  }
  __aicore__ inline void Compute(uint32_t length) {
    LocalTensor<T> xLocal = inQueueX.template DeQue<T>();
    LocalTensor<T> yLocal = inQueueY.template DeQue<T>();
    LocalTensor<T> zLocal = outQueueZ.template AllocTensor<T>();
    Add(zLocal, xLocal, yLocal, length);
    outQueueZ.EnQue(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
  }
  __aicore__ inline void CopyOut(uint32_t offset, uint32_t length) {
    LocalTensor<T> zLocal = outQueueZ.template DeQue<T>();
    if (length == tileLength)
      DataCopy(zGm[offset], zLocal, length);
    else
      DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, length * sizeof(T), 0, 0, 0));
    outQueueZ.FreeTensor(zLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
  GlobalTensor<T> xGm, yGm, zGm;
  uint32_t totalLength = 0, tileLength = 0;
};

template <typename T, int BUFFER_NUM>
void run(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTiling& tiling) {
  KernelAdd<T, BUFFER_NUM> op;
  op.Init(x, y, z, tiling);
  op.Process();
}

}  // namespace

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTiling tiling) {
  run<float, 2>(x, y, z, tiling);
}

extern "C" __global__ __aicore__ void add_custom_single_buffer(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                               AddCustomTiling tiling) {
  run<float, 1>(x, y, z, tiling);
}

extern "C" __global__ __aicore__ void add_custom_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddCustomTiling tiling) {
  run<half, 2>(x, y, z, tiling);
}
