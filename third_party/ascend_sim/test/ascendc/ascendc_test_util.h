// Shared by the Ascend C suites: the official add_custom sample's kernel (with its buffer count a
// template argument), device buffers, and a launch's simulated time.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "kernel_operator.h"
#include "runtime/task_recorder.h"
#include "runtime_test_util.h"

namespace ascendc_test {

using namespace AscendC;

// z = x + y over totalLength elements split evenly over the blocks, each block's share in tileNum
// tiles moved through queues of BUFFER_NUM buffers (2: double buffering).
template <typename T, int BUFFER_NUM>
class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum) {
    blockLength = totalLength / GetBlockNum();
    this->tileNum = tileNum;
    tileLength = blockLength / tileNum / BUFFER_NUM;
    xGm.SetGlobalBuffer((__gm__ T*)x + blockLength * GetBlockIdx(), blockLength);
    yGm.SetGlobalBuffer((__gm__ T*)y + blockLength * GetBlockIdx(), blockLength);
    zGm.SetGlobalBuffer((__gm__ T*)z + blockLength * GetBlockIdx(), blockLength);
    pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
    pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
    pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
  }
  __aicore__ inline void Process() {
    int32_t loopCount = tileNum * BUFFER_NUM;
    for (int32_t i = 0; i < loopCount; i++) {
      CopyIn(i);
      Compute(i);
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t progress) {
    LocalTensor<T> xLocal = inQueueX.template AllocTensor<T>();
    LocalTensor<T> yLocal = inQueueY.template AllocTensor<T>();
    DataCopy(xLocal, xGm[progress * tileLength], tileLength);
    DataCopy(yLocal, yGm[progress * tileLength], tileLength);
    inQueueX.EnQue(xLocal);
    inQueueY.EnQue(yLocal);
  }
  __aicore__ inline void Compute(int32_t progress) {
    LocalTensor<T> xLocal = inQueueX.template DeQue<T>();
    LocalTensor<T> yLocal = inQueueY.template DeQue<T>();
    LocalTensor<T> zLocal = outQueueZ.template AllocTensor<T>();
    Add(zLocal, xLocal, yLocal, tileLength);
    outQueueZ.EnQue(zLocal);
    inQueueX.FreeTensor(xLocal);
    inQueueY.FreeTensor(yLocal);
  }
  __aicore__ inline void CopyOut(int32_t progress) {
    LocalTensor<T> zLocal = outQueueZ.template DeQue<T>();
    DataCopy(zGm[progress * tileLength], zLocal, tileLength);
    outQueueZ.FreeTensor(zLocal);
  }

  TPipe pipe;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
  GlobalTensor<T> xGm, yGm, zGm;
  uint32_t blockLength = 0, tileNum = 0, tileLength = 0;
};

template <typename T, int BUFFER_NUM>
__global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum) {
  KernelAdd<T, BUFFER_NUM> op;
  op.Init(x, y, z, totalLength, tileNum);
  op.Process();
}

// Device buffers of device 0 and the records of the launches on it.
class AscendCTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    ascend_sim::setDeviceProfiling(0, true);
  }
  template <typename T>
  void* upload(const std::vector<T>& host) {
    void* d = devAlloc(host.size() * sizeof(T));
    EXPECT_ACL_OK(
        aclrtMemcpy(d, host.size() * sizeof(T), host.data(), host.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE));
    return d;
  }
  template <typename T>
  std::vector<T> download(const void* d, size_t n) {
    std::vector<T> host(n);
    EXPECT_ACL_OK(aclrtMemcpy(host.data(), n * sizeof(T), d, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST));
    return host;
  }
  // The record of the newest task named `name` (after a synchronize).
  ascend_sim::TaskRecord lastRecord(const std::string& name) {
    EXPECT_ACL_OK(aclrtSynchronizeDevice());
    auto records = ascend_sim::deviceTaskRecords(0);
    for (auto it = records.rbegin(); it != records.rend(); ++it)
      if (it->name == name) return *it;
    ADD_FAILURE() << "no record of " << name;
    return ascend_sim::TaskRecord{ascend_sim::TaskKind::kOp, name, 0, 0, 0};
  }
  double lastDuration(const std::string& name) { return lastRecord(name).duration_us; }
  // Synchronizes and returns the device's error message ("" if none).
  std::string syncError() {
    if (aclrtSynchronizeDevice() == ACL_SUCCESS) return "";
    return aclGetRecentErrMsg();
  }
};

}  // namespace ascendc_test
