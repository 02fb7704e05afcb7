#include "csrc/core/NPUGraph.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include <c10/util/Exception.h>

#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/TaskQueue.h"
#include "ascend_sim/acl_sim.h"

namespace torch_npu {

namespace {

// Graph ids and pool-handle ids come from one counter, so no two pools share an id (as in c10/cuda).
uint64_t nextGraphId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

// The streams capturing now (Note [NPU graphs]); `active` lets the common case skip the mutex.
struct Captures {
  std::mutex mu;
  std::vector<std::pair<c10::DeviceIndex, aclrtStream>> streams;
  std::atomic<int> active{0};
};
Captures& captures() {
  static auto* c = new Captures();  // leaked: graphs may be reset during static destruction
  return *c;
}

void addCapture(c10::DeviceIndex device, aclrtStream stream) {
  Captures& c = captures();
  std::lock_guard<std::mutex> lock(c.mu);
  c.streams.emplace_back(device, stream);
  c.active.store(static_cast<int>(c.streams.size()));
}

void removeCapture(aclrtStream stream) {
  Captures& c = captures();
  std::lock_guard<std::mutex> lock(c.mu);
  c.streams.erase(std::remove_if(c.streams.begin(), c.streams.end(), [&](const auto& e) { return e.second == stream; }),
                  c.streams.end());
  c.active.store(static_cast<int>(c.streams.size()));
}

}  // namespace

bool streamIsCapturing(aclrtStream stream) {
  Captures& c = captures();
  if (c.active.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(c.mu);
  return std::any_of(c.streams.begin(), c.streams.end(), [&](const auto& e) { return e.second == stream; });
}

bool deviceIsCapturing(c10::DeviceIndex device) {
  Captures& c = captures();
  if (c.active.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(c.mu);
  return std::any_of(c.streams.begin(), c.streams.end(), [&](const auto& e) { return e.first == device; });
}

void refuseDuringCapture(c10::DeviceIndex device, const char* what, aclrtStream stream) {
  Captures& c = captures();
  if (c.active.load(std::memory_order_relaxed) == 0) return;
  std::vector<aclrtStream> refused;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    for (const auto& [d, s] : c.streams)
      if (stream ? s == stream : d == device) refused.push_back(s);
  }
  if (refused.empty()) return;
  for (aclrtStream s : refused) NPU_CHECK_ACL_WARN(aclsimInvalidateCapture(s, what));
  TORCH_CHECK(false, what, " is not permitted while ",
              stream ? "the current stream" : "a stream of npu:", stream ? "" : std::to_string(device),
              " captures an NPU graph; the capture is invalidated");
}

allocator::MempoolId graphPoolHandle() { return {0, nextGraphId()}; }

NPUGraph::NPUGraph() : id_(nextGraphId()) {}

NPUGraph::~NPUGraph() { abort_capture(); }

void NPUGraph::capture_begin(allocator::MempoolId pool) {
  TORCH_CHECK(!has_graph_ && !capturing_,
              "This NPUGraph instance already owns a captured graph (or is capturing one). To capture a new graph, "
              "create a new instance or call reset() first.");
  TORCH_CHECK((pool.first == 0) != (pool.second == 0) || (pool.first == 0 && pool.second == 0),
              "NPUGraph.capture_begin: pool must be another graph's pool() or a graph_pool_handle(), got (", pool.first,
              ", ", pool.second, ")");
  const NPUStream stream = getCurrentNPUStream();
  TORCH_CHECK(stream.id() != 0,
              "NPU graphs must be captured on a non-default stream (use torch.npu.graph(...), or capture inside "
              "`with torch.npu.stream(s)`). After capture, it is fine to replay them on the default stream.");
  device_ = stream.device_index();
  capture_stream_ = stream.id();
  capture_handle_ = stream.handle();
  mempool_id_ = (pool.first == 0 && pool.second == 0) ? allocator::MempoolId{id_, 0} : pool;
  TaskQueue::forDevice(device_).drain();  // what was launched before the capture stays out of it
  allocator::beginAllocateToPool(device_, mempool_id_, capture_stream_);
  const aclError status = [&] {
    DeviceSwitch guard(device_);
    return aclmdlRICaptureBegin(capture_handle_, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  }();
  if (status != ACL_SUCCESS) {
    const std::string message = aclGetRecentErrMsg();
    allocator::endAllocateToPool(device_, mempool_id_, capture_stream_);
    allocator::releasePool(device_, mempool_id_);
    TORCH_CHECK(false, "NPUGraph.capture_begin failed with ", aclErrorName(status), ": ", message);
  }
  addCapture(device_, capture_handle_);
  capturing_ = true;
}

// Ends the capture whatever happened during it; returns with model_ set if it is valid, and raises
// the first error otherwise (a queued launch that failed, or the call that invalidated the capture).
void NPUGraph::finishCapture() {
  std::string queue_error;
  try {
    TaskQueue::forDevice(device_).drain();
  } catch (const std::exception& e) { queue_error = e.what(); }
  removeCapture(capture_handle_);
  allocator::endAllocateToPool(device_, mempool_id_, capture_stream_);
  capturing_ = false;
  aclmdlRI model = nullptr;
  const aclError status = [&] {
    DeviceSwitch guard(device_);
    return aclmdlRICaptureEnd(capture_handle_, &model);
  }();
  const std::string message = status == ACL_SUCCESS ? std::string() : aclGetRecentErrMsg();
  if (status != ACL_SUCCESS || !queue_error.empty()) {
    if (model) {
      DeviceSwitch guard(device_);
      NPU_CHECK_ACL_WARN(aclmdlRIDestroy(model));
    }
    allocator::releasePool(device_, mempool_id_);
    TORCH_CHECK(false, "NPUGraph.capture_end: the capture failed: ",
                queue_error.empty() ? std::string() : queue_error + (message.empty() ? "" : "; "),
                message.empty() ? std::string() : std::string(aclErrorName(status)) + ": " + message);
  }
  model_ = model;
  has_graph_ = true;
}

void NPUGraph::capture_end() {
  TORCH_CHECK(capturing_, "NPUGraph.capture_end called without a capture_begin on this graph");
  TORCH_CHECK(getCurrentNPUStream(device_).id() == capture_stream_,
              "NPUGraph.capture_end must be called on the stream the capture began on (stream ", capture_stream_,
              " of npu:", static_cast<int>(device_), "), but the current stream is ",
              getCurrentNPUStream(device_).id());
  finishCapture();
}

void NPUGraph::replay() {
  TORCH_CHECK(has_graph_, "NPUGraph.replay called without a preceding successful capture");
  const aclmdlRI model = model_;
  const aclrtStream stream = getCurrentNPUStream(device_).handle();
  TaskQueue::forDevice(device_).enqueue(
      CallTask{"ModelExecute", [model, stream] { return aclmdlRIExecuteAsync(model, stream); }});
}

void NPUGraph::reset() {
  TORCH_CHECK(!capturing_, "NPUGraph.reset called during a capture; end the capture first");
  if (!has_graph_) return;
  // Queued replays reach the device before the model goes. An earlier task's error that the drain
  // raises is raised again once the graph is gone, not instead of releasing it.
  std::exception_ptr queue_error;
  try {
    TaskQueue::forDevice(device_).drain();
  } catch (...) { queue_error = std::current_exception(); }
  const aclmdlRI model = std::exchange(model_, nullptr);
  has_graph_ = false;
  allocator::releasePool(device_, mempool_id_);
  {
    DeviceSwitch guard(device_);
    NPU_CHECK_ACL_WARN(aclmdlRIDestroy(model));
  }
  if (queue_error) std::rethrow_exception(queue_error);
}

void NPUGraph::abort_capture() {
  if (capturing_) {
    try {
      finishCapture();
    } catch (const std::exception&) {  // the capture's own failure: the caller reports another error
    }
  }
  try {
    reset();
  } catch (const std::exception&) {}
}

allocator::MempoolId NPUGraph::pool() const {
  TORCH_CHECK(has_graph_ || capturing_, "NPUGraph.pool: the graph has no memory pool before its capture begins");
  return mempool_id_;
}

size_t NPUGraph::task_count() const {
  if (!has_graph_) return 0;
  size_t n = 0;
  NPU_CHECK_ACL(aclsimModelTaskCount(model_, &n));
  return n;
}

}  // namespace torch_npu
