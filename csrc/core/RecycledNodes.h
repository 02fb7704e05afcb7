// RecycledNodes: a memory resource for many objects of a few fixed sizes, used by one thread at a
// time (its owner's lock). It keeps the memory of each freed object in a free list per size and
// hands it out again, so a container that inserts and erases in a steady state (a std::pmr::set
// of cached blocks, say) stops calling malloc and free. It never returns memory to the heap: its
// owners live for the whole process. More than kClasses distinct sizes, or over-aligned objects,
// fall back to plain operator new/delete.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory_resource>
#include <new>

namespace torch_npu {

class RecycledNodes final : public std::pmr::memory_resource {
 private:
  struct FreeNode {
    FreeNode* next;
  };
  struct SizeClass {
    size_t bytes = 0;
    FreeNode* head = nullptr;
  };
  static constexpr int kClasses = 4;
  SizeClass classes_[kClasses];

  SizeClass* classFor(size_t bytes, size_t alignment) {
    if (alignment > alignof(std::max_align_t)) return nullptr;
    for (SizeClass& c : classes_) {
      if (c.bytes == bytes) return &c;
      if (c.bytes == 0) {
        c.bytes = bytes;
        return &c;
      }
    }
    return nullptr;
  }

  void* do_allocate(size_t bytes, size_t alignment) override {
    bytes = std::max(bytes, sizeof(FreeNode));
    SizeClass* c = classFor(bytes, alignment);
    if (c != nullptr && c->head != nullptr) {
      FreeNode* n = c->head;
      c->head = n->next;
      return n;
    }
    return ::operator new(bytes, std::align_val_t(alignment));
  }

  void do_deallocate(void* p, size_t bytes, size_t alignment) override {
    bytes = std::max(bytes, sizeof(FreeNode));
    SizeClass* c = classFor(bytes, alignment);
    if (c == nullptr) {
      ::operator delete(p, std::align_val_t(alignment));
      return;
    }
    c->head = new (p) FreeNode{c->head};
  }

  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace torch_npu
