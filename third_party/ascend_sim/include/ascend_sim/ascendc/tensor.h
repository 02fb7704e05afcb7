// Ascend C on the simulator: GlobalTensor (global memory, HBM) and LocalTensor (a buffer on chip).
#pragma once

#include "ascend_sim/ascendc/block.h"

namespace AscendC {

// Elements of global memory, by device address. SetGlobalBuffer's optional size bounds every access
// through the tensor; without it, accesses are checked against the device allocation they fall in.
template <typename T>
class GlobalTensor {
 public:
  GlobalTensor() = default;
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize = 0) {
    addr_ = buffer;
    size_ = bufferSize;
  }
  GlobalTensor operator[](uint64_t offset) const {
    GlobalTensor t;
    t.addr_ = addr_ + offset;
    t.size_ = size_ == 0 ? 0 : (offset <= size_ ? size_ - offset : 0);
    t.bounded_ = bounded_ || size_ != 0;
    return t;
  }
  __gm__ T* GetPhyAddr() const { return addr_; }
  __gm__ T* GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
  uint64_t GetSize() const { return size_; }

  T GetValue(uint64_t i) const {
    T v;
    std::memcpy(&v, view(i, 1, "GlobalTensor::GetValue"), sizeof(T));
    sim::block().scalarGm();
    return v;
  }
  void SetValue(uint64_t i, T v) const {
    std::memcpy(view(i, 1, "GlobalTensor::SetValue"), &v, sizeof(T));
    sim::block().scalarGm();
  }

  // Host view of elements [first, first + count), after the bounds checks.
  T* view(uint64_t first, uint64_t count, const char* api) const {
    const std::string what =
        std::string(api) + " of elements [" + std::to_string(first) + ", " + std::to_string(first + count) + ")";
    if (!addr_) sim::fail(what + " of a GlobalTensor without SetGlobalBuffer");
    if ((size_ != 0 || bounded_) && (first > size_ || count > size_ - first))
      sim::fail("out-of-bounds global memory access: " + what + " of a GlobalTensor of " + std::to_string(size_) +
                " elements");
    return static_cast<T*>(sim::gmView(addr_ + first, count * sizeof(T), what));
  }

 private:
  __gm__ T* addr_ = nullptr;
  uint64_t size_ = 0;
  bool bounded_ = false;  // a slice of a sized tensor: size_ 0 means empty, not unknown
};

// `count` elements of a buffer on chip (from TQue::AllocTensor, TQue::DeQue or TBuf::Get).
template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(sim::Buffer* buffer, T* data, uint32_t count) : buf_(buffer), data_(data), count_(count) {}

  LocalTensor operator[](uint32_t offset) const {
    if (offset > count_)
      sim::fail("LocalTensor[" + std::to_string(offset) + "] is past the end of a tensor of " + std::to_string(count_) +
                " elements (" + owner() + ")");
    return LocalTensor(buf_, data_ + offset, count_ - offset);
  }
  uint32_t GetSize() const { return count_; }
  uint32_t GetLength() const { return count_ * sizeof(T); }
  TPosition GetPosition() const { return buf_ ? buf_->pos : TPosition::MAX; }
  // Byte offset in its memory.
  uint64_t GetPhyAddr() const {
    return buf_ ? buf_->offset + static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(data_) - buf_->data) : 0;
  }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    return LocalTensor<U>(buf_, reinterpret_cast<U*>(data_), static_cast<uint32_t>(count_ * sizeof(T) / sizeof(U)));
  }

  // Scalar access: the scalar unit waits until the value was written (Note [Block timeline]).
  T GetValue(uint32_t i) const {
    check(i, "GetValue");
    sim::block().scalarRead(buf_);
    return data_[i];
  }
  void SetValue(uint32_t i, T v) {
    check(i, "SetValue");
    sim::block().scalarRead(buf_);
    data_[i] = v;
  }
  T& operator()(uint32_t i) {
    check(i, "operator()");
    sim::block().scalarRead(buf_);
    return data_[i];
  }

  // Used by the instructions (data_copy.h, vector.h, cube.h).
  T* data() const { return data_; }
  sim::Buffer* buffer() const { return buf_; }
  std::string owner() const { return buf_ ? buf_->owner : std::string("an unallocated LocalTensor"); }
  // The tensor is allocated and holds `count` elements; `api` names the instruction.
  void require(int64_t count, const char* api, const char* role) const {
    if (!buf_) sim::fail(std::string(api) + ": " + role + " is a LocalTensor that was never allocated");
    if (count < 0) sim::fail(std::string(api) + ": negative count " + std::to_string(count));
    if (static_cast<uint64_t>(count) > count_)
      sim::fail(std::string(api) + ": " + role + " holds " + std::to_string(count_) +
                " elements, the instruction needs " + std::to_string(count) + " (" + owner() + ")");
  }

 private:
  void check(uint32_t i, const char* api) const {
    if (!buf_) sim::fail(std::string("LocalTensor::") + api + " on a LocalTensor that was never allocated");
    if (i >= count_)
      sim::fail(std::string("LocalTensor::") + api + "(" + std::to_string(i) + ") is past the end of a tensor of " +
                std::to_string(count_) + " elements (" + owner() + ")");
  }

  sim::Buffer* buf_ = nullptr;
  T* data_ = nullptr;
  uint32_t count_ = 0;
};

}  // namespace AscendC
