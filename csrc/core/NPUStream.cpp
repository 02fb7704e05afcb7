#include "csrc/core/NPUStream.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <c10/util/ThreadLocalDebugInfo.h>

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

// A thread's current stream per device; kFollow: it never chose one for that device.
constexpr c10::StreamId kFollow = -1;
thread_local std::vector<c10::StreamId> tls_current_ids;

c10::StreamId& currentIdSlot(c10::DeviceIndex device) {
  if (tls_current_ids.empty()) tls_current_ids.assign(device_count(), kFollow);
  return tls_current_ids[device];
}

// Note [Streams of the autograd engine's NPU threads]: the caller's streams travel with its
// thread-local debug info, which the autograd engine installs on its worker for every node of the
// caller's backward (ThreadLocalState). The kind is one of c10's uint8_t values it does not name.
constexpr auto kBackwardStreams = static_cast<c10::DebugInfoKind>(0x4E);
struct BackwardStreams : c10::DebugInfoBase {
  std::vector<c10::StreamId> ids;
};

c10::StreamId currentId(c10::DeviceIndex device) {
  const c10::StreamId own = currentIdSlot(device);
  if (own != kFollow) return own;
  if (auto* published = static_cast<BackwardStreams*>(c10::ThreadLocalDebugInfo::get(kBackwardStreams)))
    return published->ids[device];
  return 0;
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

aclrtStream NPUStream::stream(bool need_empty) const {
  if (need_empty) TaskQueue::forDevice(device_index()).drain();
  return handle();
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

void setCurrentNPUStream(NPUStream stream) { currentIdSlot(stream.device_index()) = stream.id(); }

void publishBackwardStreams() {
  auto info = std::make_shared<BackwardStreams>();
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) info->ids.push_back(currentId(d));
  c10::ThreadLocalDebugInfo::_push(kBackwardStreams, std::move(info));
}

void unpublishBackwardStreams() { c10::ThreadLocalDebugInfo::_pop(kBackwardStreams); }

}  // namespace torch_npu
