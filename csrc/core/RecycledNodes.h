// RecycledNodes: a memory resource for many objects of a few fixed sizes, used by one thread at a
// time (its owner's lock). It keeps the memory of each freed object in a free list per size and
// hands it out again, so a container that inserts and erases in a steady state (a std::pmr::set
// of cached blocks, say) stops calling malloc and free. Freed memory goes back to the heap only
// when the resource is destroyed (the caching allocator's never are: they live for the process).
// More than kClasses distinct sizes, or over-aligned objects, use plain operator new/delete.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory_resource>
#include <new>

namespace torch_npu {

class RecycledNodes final : public std::pmr::memory_resource {
 public:
  RecycledNodes() = default;
  RecycledNodes(const RecycledNodes&) = delete;
  RecycledNodes& operator=(const RecycledNodes&) = delete;
  ~RecycledNodes() override {
    for (SizeClass& c : classes_) {
      while (c.head != nullptr) {
        FreeNode* n = c.head;
        c.head = n->next;
        ::operator delete(n);
      }
    }
  }

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
    if (c == nullptr) return ::operator new(bytes, std::align_val_t(alignment));
    if (c->head == nullptr) return ::operator new(bytes);  // aligned for any alignment <= max_align_t
    FreeNode* n = c->head;
    c->head = n->next;
    return n;
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
