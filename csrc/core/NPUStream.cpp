#include "csrc/core/NPUStream.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "csrc/core/NPUException.h"
#include "csrc/core/NPUFunctions.h"
#include "csrc/core/TaskQueue.h"

namespace torch_npu {
namespace {

struct DeviceStreams {
  std::once_flag created[kStreamsPerPool + 1];
  std::array<aclrtStream, kStreamsPerPool + 1> handles{};
  std::atomic<uint32_t> next_pool_index{0};
};

// One entry per device; deliberately leaked (see Note [NPU stream ids]).
DeviceStreams& streamsOf(c10::DeviceIndex device) {
  static auto* all = [] {
    auto* v = new std::vector<std::unique_ptr<DeviceStreams>>();
    for (int i = 0; i < device_count(); ++i) v->push_back(std::make_unique<DeviceStreams>());
    return v;
  }();
  check_device_index(device);
  return *(*all)[device];
}

c10::DeviceIndex resolve(c10::DeviceIndex device) {
  if (device < 0) return current_device();
  check_device_index(device);
  return device;
}

thread_local std::vector<c10::StreamId> tls_current_ids;
thread_local bool tls_chose_stream = false;  // Note [Streams of the autograd engine's NPU threads]

c10::StreamId& currentIdSlot(c10::DeviceIndex device) {
  if (tls_current_ids.empty()) tls_current_ids.assign(device_count(), 0);
  return tls_current_ids[device];
}

// The streams published for threads that never chose one (0, the default stream, when none is).
std::vector<std::atomic<c10::StreamId>>& backwardStreams() {
  static auto* v = new std::vector<std::atomic<c10::StreamId>>(static_cast<size_t>(device_count()));
  return *v;
}

c10::StreamId currentId(c10::DeviceIndex device) {
  if (tls_chose_stream) return currentIdSlot(device);
  return backwardStreams()[device].load(std::memory_order_relaxed);
}

c10::Stream makeStream(c10::DeviceIndex device, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::DeviceType::PrivateUse1, device), id);
}

}  // namespace

NPUStream::NPUStream(c10::Stream stream) : stream_(stream) {
  TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1,
              "NPUStream: expected a stream of an npu device, got ", stream);
  TORCH_CHECK(stream.id() >= 0 && stream.id() <= kStreamsPerPool, "NPUStream: invalid stream id ",
              stream.id());
}

namespace {
// The handle of stream `stream_id` of `device`, whose streams are `s`, created at its first use.
aclrtStream streamHandle(DeviceStreams& s, c10::DeviceIndex device, c10::StreamId stream_id) {
  const auto id = static_cast<size_t>(stream_id);
  std::call_once(s.created[id], [&] {
    DeviceSwitch guard(device);
    NPU_CHECK_ACL(aclrtCreateStream(&s.handles[id]));
  });
  return s.handles[id];
}
}  // namespace

aclrtStream NPUStream::handle() const {
  return streamHandle(streamsOf(device_index()), device_index(), stream_.id());
}

bool NPUStream::query() const {
  if (!TaskQueue::forDevice(device_index()).idle()) return false;
  int32_t idle = 0;
  NPU_CHECK_ACL(aclrtStreamQuery(handle(), &idle));
  return idle != 0;
}

void NPUStream::synchronize() const {
  TaskQueue::forDevice(device_index()).drain();
  NPU_CHECK_ACL(aclrtSynchronizeStream(handle()));
}

NPUStream getDefaultNPUStream(c10::DeviceIndex device) {
  return NPUStream(makeStream(resolve(device), 0));
}

NPUStream getCurrentNPUStream(c10::DeviceIndex device) {
  device = resolve(device);
  return NPUStream(makeStream(device, currentId(device)));
}

aclrtStream currentStreamHandle(c10::DeviceIndex device) {
  DeviceStreams& s = streamsOf(device);  // checks `device` before currentIdSlot indexes by it
  return streamHandle(s, device, currentId(device));
}

NPUStream getStreamFromPool(c10::DeviceIndex device) {
  device = resolve(device);
  const uint32_t n = streamsOf(device).next_pool_index.fetch_add(1);
  return NPUStream(makeStream(device, static_cast<c10::StreamId>(1 + n % kStreamsPerPool)));
}

void setCurrentNPUStream(NPUStream stream) {
  if (!tls_chose_stream) {  // from now on the thread's own slots; they start from what it used so far
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) currentIdSlot(d) = currentId(d);
    tls_chose_stream = true;
  }
  currentIdSlot(stream.device_index()) = stream.id();
}

std::vector<c10::StreamId> publishBackwardStreams() {
  std::vector<std::atomic<c10::StreamId>>& published = backwardStreams();
  std::vector<c10::StreamId> previous(published.size());
  for (size_t d = 0; d < published.size(); ++d)
    previous[d] = published[d].exchange(currentId(static_cast<c10::DeviceIndex>(d)));
  return previous;
}

void restoreBackwardStreams(const std::vector<c10::StreamId>& previous) {
  std::vector<std::atomic<c10::StreamId>>& published = backwardStreams();
  for (size_t d = 0; d < published.size() && d < previous.size(); ++d) published[d].store(previous[d]);
}

}  // namespace torch_npu
