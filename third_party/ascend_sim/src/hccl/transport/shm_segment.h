// One rank's shared-memory segment for the shared-memory transport: a header
// with the rank's doorbell, and one inbound ring per peer.
//
// Note [Shared-memory rings]
// Rank r owns one POSIX shared-memory object. It holds, for every other rank
// q, the ring that carries q's bytes to r: a single-producer single-consumer
// byte stream, where `head` counts the bytes q wrote and `tail` the bytes r
// read (both only grow; the position in the buffer is the count modulo the
// capacity). The writer publishes data with a release store of head, the
// reader frees space with a release store of tail.
//
// Every process maps every segment. A rank sleeps on the doorbell of its own
// segment (a futex word, shared between processes): whoever writes into a
// ring of r, frees space in a ring r writes into, or closes, bumps r's
// doorbell, and wakes r only when a thread of r sleeps there (`sleepers`).
//
// Liveness: the owner holds an exclusive flock on its segment for as long as
// it lives. A peer that finds nothing to do for a while probes that lock; if
// it can take it, the owner is gone (crashed or killed: a clean exit sets
// `closed` first). flock works across pid namespaces, unlike kill(pid, 0).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ascend_sim/acl.h"  // ASCEND_SIM_API

namespace ascend_sim {
namespace hccl {

struct ShmRing {
  alignas(64) std::atomic<uint64_t> head;  // bytes written by the sender
  alignas(64) std::atomic<uint64_t> tail;  // bytes read by the owner
};

struct ShmSegmentHeader {
  uint64_t magic;
  uint64_t nonce;  // random: proves that a peer opened this segment, not a namesake
  uint32_t size;   // ranks of the communicator
  uint32_t owner;  // rank owning the segment
  uint64_t ring_bytes;
  alignas(64) std::atomic<uint32_t> doorbell;
  std::atomic<uint32_t> sleepers;
  std::atomic<uint32_t> closed;  // the owner sends and receives nothing more
};

static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "the rings rely on address-free atomics in shared memory");

class ASCEND_SIM_API ShmSegment {  // exported for the tests
 public:
  // Creates, sizes (the memory is reserved up front, so that a full /dev/shm
  // fails here and not with SIGBUS later), maps and locks a new segment.
  // Returns null and sets *why when the host cannot provide it.
  static std::unique_ptr<ShmSegment> create(const std::string& name, uint32_t owner, uint32_t size,
                                            uint64_t ring_bytes, uint64_t nonce, std::string* why);
  // Maps a peer's segment and checks its header. Null and *why on failure.
  static std::unique_ptr<ShmSegment> open(const std::string& name, uint32_t owner, uint32_t size, uint64_t nonce,
                                          std::string* why);
  ~ShmSegment();
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  // Removes the name (mappings stay valid). Owner only, once every peer mapped it.
  void unlink();

  ShmSegmentHeader& header() { return *header_; }
  uint64_t ringBytes() const { return header_->ring_bytes; }
  // The ring carrying `sender`'s bytes to the owner, and its buffer.
  ShmRing& ring(uint32_t sender) { return *reinterpret_cast<ShmRing*>(slot(sender)); }
  char* ringData(uint32_t sender) { return slot(sender) + sizeof(ShmRing); }

  // Bumps the doorbell and wakes the owner's sleeping threads, if any.
  void ringDoorbell();
  // Sleeps while the doorbell still reads `seen`, at most `max`.
  void sleepOnDoorbell(uint32_t seen, std::chrono::microseconds max);
  // False once the owner's process is gone (its flock was released).
  bool ownerAlive();

 private:
  ShmSegment(std::string name, int fd, void* base, size_t bytes, bool owned);
  char* slot(uint32_t sender);

  std::string name_;
  int fd_;
  void* base_;
  size_t bytes_;
  bool owned_;
  bool unlinked_ = false;
  ShmSegmentHeader* header_;
};

}  // namespace hccl
}  // namespace ascend_sim
