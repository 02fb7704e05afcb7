#include "hccl/transport/shm_segment.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <new>

namespace ascend_sim {
namespace hccl {

namespace {

constexpr uint64_t kMagic = 0x4843434c53484d31ull;  // "HCCLSHM1"
constexpr size_t kHeaderBytes = 4096;

size_t segmentBytes(uint32_t size, uint64_t ring_bytes) {
  return kHeaderBytes + static_cast<size_t>(size - 1) * (sizeof(ShmRing) + ring_bytes);
}

std::string errnoText(const char* what, const std::string& name) {
  return std::string(what) + " " + name + ": " + std::strerror(errno);
}

// Shared (not FUTEX_PRIVATE): the word lives in memory mapped by several processes.
long futex(std::atomic<uint32_t>* word, int op, uint32_t value, const struct timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
}

}  // namespace

ShmSegment::ShmSegment(std::string name, int fd, void* base, size_t bytes, bool owned)
    : name_(std::move(name)),
      fd_(fd),
      base_(base),
      bytes_(bytes),
      owned_(owned),
      header_(static_cast<ShmSegmentHeader*>(base)) {}

std::unique_ptr<ShmSegment> ShmSegment::create(const std::string& name, uint32_t owner, uint32_t size,
                                               uint64_t ring_bytes, uint64_t nonce, std::string* why) {
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    *why = errnoText("cannot create shared memory", name);
    return nullptr;
  }
  const size_t bytes = segmentBytes(size, ring_bytes);
  auto fail = [&](const char* what) {
    *why = errnoText(what, name);
    close(fd);
    shm_unlink(name.c_str());
    return nullptr;
  };
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) return fail("cannot size shared memory");
  if (const int rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); rc != 0) {
    errno = rc;
    return fail("cannot reserve shared memory");
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) return fail("cannot lock shared memory");
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return fail("cannot map shared memory");
  auto* h = new (base) ShmSegmentHeader{};
  h->size = size;
  h->owner = owner;
  h->ring_bytes = ring_bytes;
  h->nonce = nonce;
  std::unique_ptr<ShmSegment> seg(new ShmSegment(name, fd, base, bytes, true));
  for (uint32_t q = 0; q < size; ++q) {
    if (q == owner) continue;
    ShmRing& r = *new (seg->slot(q)) ShmRing{};
    r.head.store(0, std::memory_order_relaxed);
    r.tail.store(0, std::memory_order_relaxed);
  }
  // The magic last: a peer that sees it sees a fully initialised segment.
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kMagic;
  return seg;
}

std::unique_ptr<ShmSegment> ShmSegment::open(const std::string& name, uint32_t owner, uint32_t size, uint64_t nonce,
                                             std::string* why) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    *why = errnoText("cannot open shared memory", name);
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < kHeaderBytes) {
    *why = "shared memory " + name + " is not a segment of this communicator";
    close(fd);
    return nullptr;
  }
  const size_t bytes = static_cast<size_t>(st.st_size);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    *why = errnoText("cannot map shared memory", name);
    close(fd);
    return nullptr;
  }
  std::unique_ptr<ShmSegment> seg(new ShmSegment(name, fd, base, bytes, false));
  const ShmSegmentHeader& h = seg->header();
  std::atomic_thread_fence(std::memory_order_acquire);
  if (h.magic != kMagic || h.nonce != nonce || h.owner != owner || h.size != size ||
      segmentBytes(size, h.ring_bytes) != bytes) {
    *why = "shared memory " + name + " does not hold the segment rank " + std::to_string(owner) +
           " published (another host's /dev/shm?)";
    return nullptr;
  }
  return seg;
}

ShmSegment::~ShmSegment() {
  munmap(base_, bytes_);
  if (owned_) unlink();
  close(fd_);  // releases the owner's flock
}

void ShmSegment::unlink() {
  if (!owned_ || unlinked_) return;
  shm_unlink(name_.c_str());
  unlinked_ = true;
}

char* ShmSegment::slot(uint32_t sender) {
  const uint32_t index = sender < header_->owner ? sender : sender - 1;
  return static_cast<char*>(base_) + kHeaderBytes + index * (sizeof(ShmRing) + header_->ring_bytes);
}

void ShmSegment::ringDoorbell() {
  // seq_cst on both sides (here and in sleepOnDoorbell) so that either the
  // sleeper sees the new value or this thread sees the sleeper.
  header_->doorbell.fetch_add(1, std::memory_order_seq_cst);
  if (header_->sleepers.load(std::memory_order_seq_cst) > 0) futex(&header_->doorbell, FUTEX_WAKE, INT_MAX, nullptr);
}

void ShmSegment::sleepOnDoorbell(uint32_t seen, std::chrono::microseconds max) {
  struct timespec ts;
  ts.tv_sec = static_cast<time_t>(max.count() / 1000000);
  ts.tv_nsec = static_cast<long>(max.count() % 1000000) * 1000;
  header_->sleepers.fetch_add(1, std::memory_order_seq_cst);
  if (header_->doorbell.load(std::memory_order_seq_cst) == seen) futex(&header_->doorbell, FUTEX_WAIT, seen, &ts);
  header_->sleepers.fetch_sub(1, std::memory_order_seq_cst);
}

bool ShmSegment::ownerAlive() {
  if (owned_) return true;
  if (flock(fd_, LOCK_SH | LOCK_NB) == 0) {
    flock(fd_, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

}  // namespace hccl
}  // namespace ascend_sim
