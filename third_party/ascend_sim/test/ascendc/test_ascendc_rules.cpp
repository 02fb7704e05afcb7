// Ascend C kernels on the simulator: each rule of the chip, broken once, is an AI Core exception
// that names the kernel, the block and the buffer, reported by the next synchronize; the device
// works afterwards.
#include "ascendc/ascendc_test_util.h"

using namespace ascendc_test;

namespace {

// Which rule the kernel breaks (its argument), in block 1 of 2.
enum Breach : uint32_t {
  kUbOverflow,
  kMisalignedCopy,
  kDequeEmpty,
  kOutOfBoundsRead,
  kOutOfBoundsWrite,
  kAllocBeyondBuffers,
  kEnqueForeign,
  kFreeForeign,
  kL0aOverflow,
  kPastLocalEnd,
  kMisalignedVector,
  kGmIndexWraps,
};

__global__ __aicore__ void breaks_a_rule(GM_ADDR x, uint32_t breach) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> q, other;
  GlobalTensor<float> gx;
  gx.SetGlobalBuffer((__gm__ float*)x);  // 256 floats, unbounded: checked against the allocation
  const bool guilty = GetBlockIdx() == 1;
  switch (guilty ? breach : ~0u) {
    case kUbOverflow:
      pipe.InitBuffer(q, 2, 200 * 1024);  // 400 KiB: more than any preset's UB
      return;
    case kL0aOverflow: {
      TQue<QuePosition::A2, 1> a2;
      pipe.InitBuffer(a2, 1, 96 * 1024);
      return;
    }
    default: break;
  }
  pipe.InitBuffer(q, 1, 1024);
  pipe.InitBuffer(other, 1, 1024);
  LocalTensor<float> t = q.AllocTensor<float>();
  if (!guilty) {
    DataCopy(t, gx, 256);
    q.FreeTensor(t);
    return;
  }
  switch (breach) {
    case kMisalignedCopy: DataCopy(t, gx, 10); break;  // 40 bytes
    case kDequeEmpty: q.DeQue<float>(); break;
    case kOutOfBoundsRead: DataCopy(t, gx[128], 256); break;  // 128 floats past the end
    case kOutOfBoundsWrite: {
      GlobalTensor<float> past;
      past.SetGlobalBuffer((__gm__ float*)x + 256, 8);  // bounded, but outside the allocation
      DataCopy(past, t, 8);
      break;
    }
    case kAllocBeyondBuffers: q.AllocTensor<float>(); break;
    case kEnqueForeign: {
      q.EnQue(t);
      LocalTensor<float> u = other.AllocTensor<float>();
      q.EnQue(u);
      break;
    }
    case kFreeForeign: {
      LocalTensor<float> u = other.AllocTensor<float>();
      q.FreeTensor(u);
      break;
    }
    case kPastLocalEnd: t.GetValue(256); break;
    case kMisalignedVector: Add(t[1], t, t, 8); break;  // 4 bytes into the buffer
    case kGmIndexWraps: {
      GlobalTensor<float> sized;
      sized.SetGlobalBuffer((__gm__ float*)x + 8, 248);
      sized.GetValue(~uint64_t{0});  // the element before the tensor, if the bounds check wrapped
      break;
    }
    default: break;
  }
}

struct Case {
  Breach breach;
  const char* expected;  // in the message
};

class AscendCRules : public AscendCTest, public ::testing::WithParamInterface<Case> {};

TEST_P(AscendCRules, BreachIsAnAiCoreExceptionNamingKernelBlockAndBuffer) {
  std::vector<float> host(256, 1.0f);
  void* dx = upload(host);
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(breaks_a_rule)(2, nullptr, dx, uint32_t(GetParam().breach)));
  const std::string err = syncError();
  EXPECT_NE(err.find("AI Core exception in kernel 'breaks_a_rule', block 1 of 2"), std::string::npos) << err;
  EXPECT_NE(err.find(GetParam().expected), std::string::npos) << err;
  // The device works afterwards: the same kernel without the breach runs clean.
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(breaks_a_rule)(2, nullptr, dx, 99u));
  EXPECT_EQ(syncError(), "");
}

INSTANTIATE_TEST_SUITE_P(
    EachRule, AscendCRules,
    ::testing::Values(
        Case{kUbOverflow, "UB overflow: TQue<VECIN, 1> buffer "},  // buffer 1 on the 910A, 0 on the 910B2
        Case{kMisalignedCopy,
             "10 elements of 4 bytes = 40 bytes: a DataCopy between global memory and a local buffer "
             "moves whole 32-byte blocks"},
        Case{kDequeEmpty, "TQue<VECIN, 1>::DeQue from an empty queue"},
        Case{kOutOfBoundsRead, "out-of-bounds global memory access: DataCopy(GM -> local) of elements [0, 256)"},
        Case{kOutOfBoundsWrite, "out-of-bounds global memory access: DataCopy(local -> GM) of elements [0, 8)"},
        Case{kAllocBeyondBuffers, "TQue<VECIN, 1>::AllocTensor: all 1 buffers are allocated"},
        Case{kEnqueForeign, "TQue<VECIN, 1>::EnQue of a tensor that this queue did not allocate"},
        Case{kFreeForeign, "TQue<VECIN, 1>::FreeTensor of a tensor that this queue did not allocate"},
        Case{kL0aOverflow, "L0A overflow: TQue<A2, 1> buffer 0 asks for 98304 bytes at A2, but 0 of the 65536 bytes"},
        Case{kPastLocalEnd, "LocalTensor::GetValue(256) is past the end of a tensor of 256 elements"},
        Case{kMisalignedVector, "Add: dst starts at byte 4 of UB; vector operands start on a 32-byte boundary"},
        Case{kGmIndexWraps,
             "out-of-bounds global memory access: GlobalTensor::GetValue of elements [18446744073709551615"}));

__global__ __aicore__ void enque_twice(GM_ADDR) {
  TPipe pipe;
  TQue<QuePosition::VECIN, 1> q;
  pipe.InitBuffer(q, 2, 64);
  LocalTensor<float> a = q.AllocTensor<float>(), b = q.AllocTensor<float>();
  q.EnQue(a);
  q.EnQue(b);  // depth 1
}

TEST_F(AscendCTest, EnqueBeyondTheDepthIsRefused) {
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(enque_twice)(1, nullptr, nullptr));
  const std::string err = syncError();
  EXPECT_NE(err.find("TQue<VECIN, 1>::EnQue: the queue already holds 1 tensors, its depth"), std::string::npos) << err;
}

// Two stages, each with a TPipe of most of the UB: the first gives its memory back with Destroy().
__global__ __aicore__ void two_stages(GM_ADDR x) {
  GlobalTensor<float> gx;
  gx.SetGlobalBuffer((__gm__ float*)x, 256);
  for (int stage = 0; stage < 2; ++stage) {
    TPipe pipe;
    TBuf<QuePosition::VECCALC> big;
    pipe.InitBuffer(big, 160 * 1024);
    LocalTensor<float> t = big.Get<float>(256);
    DataCopy(t, gx, 256);
    Adds(t, t, 1.0f, 256);
    DataCopy(gx, t, 256);
    pipe.Destroy();
    pipe.Destroy();  // once only
  }
}

TEST_F(AscendCTest, DestroyedPipeGivesItsMemoryBack) {
  std::vector<float> host(256, 1.0f);
  void* dx = upload(host);
  ASSERT_ACL_OK(ACLRT_LAUNCH_KERNEL(two_stages)(1, nullptr, dx));
  EXPECT_EQ(syncError(), "");
  EXPECT_EQ(download<float>(dx, 256), std::vector<float>(256, 3.0f));
}

TEST_F(AscendCTest, LaunchArgumentsAreChecked) {
  EXPECT_ACL_ERR(ACLRT_LAUNCH_KERNEL(enque_twice)(0, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(lastAclMessage().find("kernel 'enque_twice': blockDim must be in [1, 65535], got 0"), std::string::npos)
      << lastAclMessage();
  EXPECT_ACL_ERR(ACLRT_LAUNCH_KERNEL(enque_twice)(1, reinterpret_cast<aclrtStream>(0x1234), nullptr),
                 ACL_ERROR_RT_INVALID_HANDLE);
}

TEST(AscendCOutsideALaunch, KernelApiNeedsALaunch) {
  try {
    AscendC::GetBlockIdx();
    FAIL() << "no error";
  } catch (const AscendC::sim::KernelError& e) {
    EXPECT_NE(std::string(e.what()).find("outside a kernel launch"), std::string::npos) << e.what();
  }
}

}  // namespace
