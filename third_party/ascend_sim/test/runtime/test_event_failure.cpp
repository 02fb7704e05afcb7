// A stream waiting on an event recorded after a failed task inherits the
// failure (Note [Failures travel through events] in runtime/event.h).
#include <gtest/gtest.h>

#include <string>

#include "kernel/kernel.h"
#include "runtime_test_util.h"

using namespace ascend_sim;

namespace {

void validateOk(const OpCall&) {}
void computeFault(const OpCall&) { throw KernelError(ACL_ERROR_RT_AICORE_EXCEPTION, "index 7 out of range"); }
KernelCost costNone(const OpCall&) { return KernelCost{}; }
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"EventTestFault", &validateOk, &computeFault, &costNone});

aclError launchFault(aclrtStream s) {
  return aclopExecuteV2("EventTestFault", 0, nullptr, nullptr, 0, nullptr, nullptr, nullptr, s);
}

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

TEST(EventFailure, WaitOnARecordAfterAFaultFailsTheWaitingStream) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream producer = nullptr, consumer = nullptr, third = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&producer));
  ASSERT_ACL_OK(aclrtCreateStream(&consumer));
  ASSERT_ACL_OK(aclrtCreateStream(&third));
  aclrtEvent e1 = nullptr, e2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e1));
  ASSERT_ACL_OK(aclrtCreateEvent(&e2));

  ASSERT_ACL_OK(launchFault(producer));
  ASSERT_ACL_OK(aclrtRecordEvent(e1, producer));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, e1));
  // ... and on to a third stream through the consumer's own record.
  ASSERT_ACL_OK(aclrtRecordEvent(e2, consumer));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(third, e2));

  EXPECT_ACL_ERR(aclrtSynchronizeStream(consumer), ACL_ERROR_RT_AICORE_EXCEPTION);
  std::string msg = lastAclMessage();
  EXPECT_TRUE(has(msg, "task 'EventWait' failed on device 0")) << msg;
  EXPECT_TRUE(has(msg, "waited on an event recorded after a failed task: op 'EventTestFault' failed on device 0")) << msg;
  EXPECT_TRUE(has(msg, "index 7 out of range")) << msg;
  EXPECT_ACL_ERR(aclrtSynchronizeStream(third), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_TRUE(has(lastAclMessage(), "index 7 out of range")) << lastAclMessage();

  // The producer's own fault is reported once; the record stays failed.
  EXPECT_ACL_ERR(aclrtSynchronizeStream(producer), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_ACL_OK(aclrtSynchronizeStream(producer));
  EXPECT_ACL_ERR(aclrtSynchronizeEvent(e1), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_TRUE(has(lastAclMessage(), "was recorded after a failed task: op 'EventTestFault'")) << lastAclMessage();

  // Nothing failed since that record: the next one is clean.
  ASSERT_ACL_OK(aclrtRecordEvent(e1, producer));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, e1));
  EXPECT_ACL_OK(aclrtSynchronizeStream(consumer));
  EXPECT_ACL_OK(aclrtSynchronizeEvent(e1));

  // A fault after the record does not taint it.
  ASSERT_ACL_OK(aclrtRecordEvent(e1, producer));
  ASSERT_ACL_OK(launchFault(producer));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, e1));
  EXPECT_ACL_OK(aclrtSynchronizeStream(consumer));
  EXPECT_ACL_ERR(aclrtSynchronizeStream(producer), ACL_ERROR_RT_AICORE_EXCEPTION);

  for (aclrtEvent e : {e1, e2}) ASSERT_ACL_OK(aclrtDestroyEvent(e));
  for (aclrtStream s : {producer, consumer, third}) ASSERT_ACL_OK(aclrtDestroyStream(s));
}

}  // namespace
