// What the detection suites share: torch_npu's custom ops called through the
// dispatcher (npu:: namespace) and a check that a call fails with a message.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include <string>

namespace torch_npu_test {

// npuOp with the name given without its namespace ("npu_iou" for npu::npu_iou).
template <typename Sig>
c10::TypedOperatorHandle<Sig> npuDetectionOp(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow((std::string("npu::") + name).c_str(), "").typed<Sig>();
}

// fn() must throw a c10::Error whose message contains `text`.
template <typename Fn>
void expectErrorMentioning(Fn fn, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning " << text;
  } catch (const c10::Error& e) { EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what(); }
}

}  // namespace torch_npu_test
