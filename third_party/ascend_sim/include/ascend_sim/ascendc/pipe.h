// Ascend C on the simulator: TPipe (the block's buffer manager), TQue (buffers passed between pipes
// with the alloc / enque / deque / free protocol) and TBuf (a scratch buffer).
//
// Note [Queue protocol]
// A TQue<pos, depth> gets `num` buffers of `len` bytes from TPipe::InitBuffer. A producer takes a
// free buffer (AllocTensor), fills it and passes it on (EnQue); the consumer takes the oldest
// passed buffer (DeQue), uses it and gives it back (FreeTensor). On the chip EnQue/DeQue are the
// flags that make the consumer's pipe wait for the producer's; here that wait is the buffer's
// timeline (Note [Block timeline]). What breaks the protocol is an AI Core exception naming the
// queue: AllocTensor with every buffer taken, EnQue beyond the depth or of a tensor the queue did
// not allocate, DeQue from an empty queue, FreeTensor of a tensor that is not the queue's or still
// queued, any of them before InitBuffer.
#pragma once

#include <deque>

#include "ascend_sim/ascendc/tensor.h"

namespace AscendC {

template <TPosition pos, int32_t depth>
class TQue {
  static_assert(depth >= 1, "a TQue needs depth >= 1");

 public:
  template <typename T>
  LocalTensor<T> AllocTensor() {
    checkInitialised("AllocTensor");
    for (size_t n = 0; n < slots_.size(); ++n) {
      Slot& s = slots_[(next_ + n) % slots_.size()];
      if (!s.allocated) {
        s.allocated = true;
        next_ = (next_ + n + 1) % slots_.size();
        return LocalTensor<T>(s.buffer, reinterpret_cast<T*>(s.buffer->data), s.buffer->bytes / sizeof(T));
      }
    }
    sim::fail(name() + "::AllocTensor: all " + std::to_string(slots_.size()) +
              " buffers are allocated (FreeTensor a tensor of this queue first)");
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& t) {
    checkInitialised("EnQue");
    Slot& s = slotOf(t.buffer(), "EnQue");
    if (!s.allocated) sim::fail(name() + "::EnQue of a tensor that is not allocated (AllocTensor it first)");
    if (s.queued) sim::fail(name() + "::EnQue of a tensor that is already queued");
    if (queue_.size() >= static_cast<size_t>(depth))
      sim::fail(name() + "::EnQue: the queue already holds " + std::to_string(depth) +
                " tensors, its depth (DeQue one first)");
    s.queued = true;
    queue_.push_back(&s);
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    checkInitialised("DeQue");
    if (queue_.empty()) sim::fail(name() + "::DeQue from an empty queue (EnQue a tensor first)");
    Slot* s = queue_.front();
    queue_.pop_front();
    s->queued = false;
    return LocalTensor<T>(s->buffer, reinterpret_cast<T*>(s->buffer->data), s->buffer->bytes / sizeof(T));
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t) {
    checkInitialised("FreeTensor");
    Slot& s = slotOf(t.buffer(), "FreeTensor");
    if (!s.allocated) sim::fail(name() + "::FreeTensor of a tensor that is already free");
    if (s.queued) sim::fail(name() + "::FreeTensor of a tensor that is still queued (DeQue it first)");
    s.allocated = false;
  }
  // Queued tensors.
  int32_t GetTensorCountInQue() const { return static_cast<int32_t>(queue_.size()); }
  bool VacantInQue() const { return queue_.size() < static_cast<size_t>(depth); }
  bool HasTensorInQue() const { return !queue_.empty(); }

  // TPipe::InitBuffer's half.
  void init(uint8_t num, uint32_t len) {
    if (!slots_.empty()) sim::fail(name() + ": TPipe::InitBuffer called twice for the same queue");
    if (num == 0 || len == 0)
      sim::fail(name() + ": TPipe::InitBuffer needs at least one buffer of at least one byte (got " +
                std::to_string(num) + " x " + std::to_string(len) + " bytes)");
    for (uint8_t i = 0; i < num; ++i)
      slots_.push_back(Slot{sim::block().newBuffer(pos, len, name() + " buffer " + std::to_string(i))});
  }
  static std::string name() {
    return std::string("TQue<") + sim::positionName(pos) + ", " + std::to_string(depth) + ">";
  }

 private:
  struct Slot {
    sim::Buffer* buffer = nullptr;
    bool allocated = false;
    bool queued = false;
  };
  void checkInitialised(const char* api) const {
    if (slots_.empty()) sim::fail(name() + "::" + api + " before TPipe::InitBuffer gave the queue its buffers");
  }
  Slot& slotOf(sim::Buffer* b, const char* api) {
    for (Slot& s : slots_)
      if (s.buffer == b) return s;
    sim::fail(name() + "::" + api + " of a tensor that this queue did not allocate" +
              (b ? " (it belongs to " + b->owner + ")" : std::string(" (it was never allocated)")));
  }

  std::vector<Slot> slots_;
  std::deque<Slot*> queue_;
  size_t next_ = 0;
};

// A scratch buffer (usually VECCALC) without a queue.
template <TPosition pos>
class TBuf {
 public:
  template <typename T>
  LocalTensor<T> Get() {
    checkInitialised();
    return LocalTensor<T>(buffer_, reinterpret_cast<T*>(buffer_->data), buffer_->bytes / sizeof(T));
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t len) {
    checkInitialised();
    if (uint64_t{len} * sizeof(T) > buffer_->bytes)
      sim::fail(name() + "::Get(" + std::to_string(len) + "): the buffer holds " + std::to_string(buffer_->bytes) +
                " bytes");
    return LocalTensor<T>(buffer_, reinterpret_cast<T*>(buffer_->data), len);
  }
  void init(uint32_t len) {
    if (buffer_) sim::fail(name() + ": TPipe::InitBuffer called twice for the same buffer");
    if (len == 0) sim::fail(name() + ": TPipe::InitBuffer needs at least one byte");
    buffer_ = sim::block().newBuffer(pos, len, name());
  }
  static std::string name() { return std::string("TBuf<") + sim::positionName(pos) + ">"; }

 private:
  void checkInitialised() const {
    if (!buffer_) sim::fail(name() + "::Get before TPipe::InitBuffer gave the buffer its memory");
  }
  sim::Buffer* buffer_ = nullptr;
};

// Hands out the block's on-chip memory to queues and buffers; gives it back when destroyed.
class TPipe {
 public:
  TPipe() { sim::block().marks(marks_); }
  ~TPipe() { Destroy(); }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <TPosition pos, int32_t depth>
  bool InitBuffer(TQue<pos, depth>& que, uint8_t num, uint32_t len) {
    que.init(num, len);
    return true;
  }
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.init(len);
    return true;
  }
  // Gives the pipe's memory back (once): a later TPipe of the same kernel can use it again.
  void Destroy() {
    if (!destroyed_ && sim::current_block) sim::current_block->releaseTo(marks_);
    destroyed_ = true;
  }

 private:
  uint64_t marks_[static_cast<int>(sim::Memory::kCount)] = {};
  bool destroyed_ = false;
};

}  // namespace AscendC
