#include "hccl/transport/shm_transport.h"

#include <immintrin.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hccl/hccl_error.h"
#include "hccl/transport/shm_segment.h"

namespace ascend_sim {
namespace hccl {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kDefaultRingBytes = size_t(4) << 20;
constexpr size_t kChunkBytes = size_t(256) << 10;  // published (head/tail) after each chunk
constexpr size_t kFrameHeaderBytes = 16;           // {tag, bytes}
constexpr auto kSpin = std::chrono::microseconds(30);
constexpr auto kSleepSlice = std::chrono::milliseconds(10);  // liveness probes and deadline checks

struct Unexpected;

}  // namespace

class ShmTransfer final : public PendingTransfer {
 public:
  ShmTransfer(std::shared_ptr<ShmEngine> e, bool s, int p, uint64_t t, char* d, size_t b, ReceiveReducer* r)
      : engine(std::move(e)), send(s), peer(p), tag(t), data(d), bytes(b), reducer(r) {}
  ~ShmTransfer() override;

  std::shared_ptr<ShmEngine> engine;
  const bool send;
  const int peer;
  const uint64_t tag;
  char* const data;
  const size_t bytes;
  ReceiveReducer* const reducer;  // a reducing receive (Note [Reducing while receiving])
  size_t moved = 0;  // sends: frame bytes written (header included); receives: payload bytes read
  alignas(16) char carry[16];  // a reducing receive: the start of an element split between chunks
  size_t carry_bytes = 0;
  bool complete = false;
  Unexpected* source = nullptr;  // a receive waiting for a parked frame to finish
};

namespace {

struct Unexpected {
  uint64_t tag;
  std::vector<char> data;
  size_t filled = 0;
  ShmTransfer* claimed = nullptr;
};

// One peer as this rank sees it.
struct Peer {
  std::unique_ptr<ShmSegment> segment;  // the peer's: holds our outbound ring
  std::deque<ShmTransfer*> sends;       // posted, in order; the front is being written
  std::deque<ShmTransfer*> recvs;       // posted and not yet matched, in order
  std::deque<std::unique_ptr<Unexpected>> unexpected;
  // The inbound frame being read.
  char header[kFrameHeaderBytes];
  size_t header_read = 0;
  uint64_t payload_left = 0;
  ShmTransfer* into_recv = nullptr;
  Unexpected* into_unexpected = nullptr;  // neither: discard (its receive was dropped)
};

// Copies up to n bytes into the ring at byte count `at` (wrapping).
void ringCopyIn(char* ring, size_t cap, uint64_t at, const char* src, size_t n) {
  const size_t pos = at % cap, first = std::min(n, cap - pos);
  std::memcpy(ring + pos, src, first);
  if (n > first) std::memcpy(ring, src + first, n - first);
}

void ringCopyOut(const char* ring, size_t cap, uint64_t at, char* dst, size_t n) {
  const size_t pos = at % cap, first = std::min(n, cap - pos);
  if (dst) {
    std::memcpy(dst, ring + pos, first);
    if (n > first) std::memcpy(dst + first, ring, n - first);
  }
}

// dst (op)= src over `bytes` (whole elements). A frame after one of odd length leaves the ring's
// elements unaligned, and the reduction loops need aligned operands: those go through an aligned
// bounce buffer (Note [Reducing while receiving]).
void reduceWhole(ShmTransfer& t, char* dst, const char* src, size_t bytes) {
  const size_t elem = t.reducer->elementBytes();
  if (reinterpret_cast<uintptr_t>(src) % elem == 0) {
    t.reducer->reduceBytes(dst, src, bytes);
    return;
  }
  alignas(64) char bounce[4096];  // a multiple of every element size
  for (size_t done = 0; done < bytes; done += sizeof bounce) {
    const size_t n = std::min(sizeof bounce, bytes - done);
    std::memcpy(bounce, src + done, n);
    t.reducer->reduceBytes(dst + done, bounce, n);
  }
}

// Reduces the next n payload bytes of a reducing receive, contiguous at src, into its buffer,
// whole elements at a time; a split element waits in the carry (Note [Reducing while receiving]).
void reducePiece(ShmTransfer& t, const char* src, size_t n) {
  const size_t elem = t.reducer->elementBytes();
  char* dst = t.data + (t.moved - t.carry_bytes);
  t.moved += n;
  if (t.carry_bytes) {
    const size_t take = std::min(n, elem - t.carry_bytes);
    std::memcpy(t.carry + t.carry_bytes, src, take);
    t.carry_bytes += take, src += take, n -= take;
    if (t.carry_bytes < elem) return;
    t.reducer->reduceBytes(dst, t.carry, elem);
    dst += elem;
    t.carry_bytes = 0;
  }
  const size_t whole = n - n % elem;
  if (whole) reduceWhole(t, dst, src, whole);
  std::memcpy(t.carry, src + whole, n - whole);
  t.carry_bytes = n - whole;
}

// reducePiece for n bytes at byte count `at` of the ring (wrapping).
void ringReduceOut(const char* ring, size_t cap, uint64_t at, ShmTransfer& t, size_t n) {
  const size_t pos = at % cap, first = std::min(n, cap - pos);
  reducePiece(t, ring + pos, first);
  if (n > first) reducePiece(t, ring, n - first);
}

std::string who(int peer) { return "rank " + std::to_string(peer); }

}  // namespace

class ShmEngine {
 public:
  ShmEngine(int rank, int size, std::unique_ptr<ShmSegment> mine, std::vector<std::unique_ptr<ShmSegment>> peers)
      : rank_(rank), size_(size), mine_(std::move(mine)), peers_(size) {
    for (int q = 0; q < size; ++q) peers_[q].segment = std::move(peers[q]);
  }
  ~ShmEngine() = default;

  int rank() const { return rank_; }
  int size() const { return size_; }

  std::unique_ptr<ShmTransfer> post(const std::shared_ptr<ShmEngine>& self, bool send, int peer, uint64_t tag,
                                    char* data, size_t bytes, ReceiveReducer* reducer = nullptr) {
    if (peer < 0 || peer >= size_ || peer == rank_)
      throw TransportError(TransportFailure::kFailed, peer, "no peer " + who(peer) + " in a group of " +
                                                                std::to_string(size_));
    if (reducer && reducer->elementBytes() > sizeof(ShmTransfer::carry))
      throw std::logic_error("ShmTransport: elements wider than the carry");
    auto t = std::make_unique<ShmTransfer>(self, send, peer, tag, data, bytes, reducer);
    std::lock_guard<std::mutex> lock(mu_);
    throwIfUnusable(peer);
    Peer& p = peers_[peer];
    if (send) {
      p.sends.push_back(t.get());
    } else if (!claimParked(p, *t)) {
      p.recvs.push_back(t.get());
    }
    return t;
  }

  void wait(ShmTransfer& t, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    auto last_move = Clock::now();
    for (;;) {
      uint32_t seen;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (t.complete) return;
        throwIfUnusable(t.peer);
        seen = mine_->header().doorbell.load(std::memory_order_seq_cst);
        if (progress()) last_move = Clock::now();
        if (t.complete) return;
        if (peerGone(t.peer)) {
          progress();  // what it wrote before closing is ours
          if (t.complete) return;
          throw TransportError(TransportFailure::kClosed, t.peer, who(t.peer) + " closed the connection");
        }
      }
      const auto now = Clock::now();
      if (now >= deadline)
        throw TransportError(TransportFailure::kTimeout, t.peer,
                             "timed out after " + std::to_string(timeout.count()) + " ms waiting for " + who(t.peer));
      if (now - last_move < kSpin) {
        _mm_pause();
        continue;
      }
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - now);
      mine_->sleepOnDoorbell(seen, std::min<std::chrono::microseconds>(left + std::chrono::microseconds(1), kSleepSlice));
    }
  }

  void forget(ShmTransfer* t) {
    std::lock_guard<std::mutex> lock(mu_);
    Peer& p = peers_[t->peer];
    auto drop = [t](std::deque<ShmTransfer*>& q) {
      auto it = std::find(q.begin(), q.end(), t);
      if (it == q.end()) return false;
      q.erase(it);
      return true;
    };
    if (t->send) {
      const bool front = !p.sends.empty() && p.sends.front() == t;
      if (drop(p.sends) && front && t->moved > 0)
        markBroken(who(t->peer) + "'s stream was cut by a send dropped half way (after an earlier failure)");
      return;
    }
    drop(p.recvs);
    if (p.into_recv == t) p.into_recv = nullptr;  // the rest of its frame is discarded
    if (t->source) t->source->claimed = nullptr;
  }

  // Sets `closed` and rings every peer, so that their waits on us end.
  void close() {
    mine_->header().closed.store(1, std::memory_order_seq_cst);
    for (int q = 0; q < size_; ++q)
      if (q != rank_) peers_[q].segment->ringDoorbell();
  }

  uint64_t framesParked() {
    std::lock_guard<std::mutex> lock(mu_);
    return frames_parked_;
  }

  void abort() {
    aborted_.store(true, std::memory_order_seq_cst);
    close();
    mine_->ringDoorbell();  // wakes this rank's own waits
  }

 private:
  void throwIfUnusable(int peer) {
    if (aborted_.load()) throw TransportError(TransportFailure::kAborted, peer, "the communicator was aborted");
    if (!broken_.empty()) throw TransportError(TransportFailure::kFailed, peer, broken_);
  }

  void markBroken(const std::string& why) {
    if (broken_.empty()) broken_ = why;
  }

  bool peerGone(int q) {
    ShmSegment& s = *peers_[q].segment;
    if (s.header().closed.load(std::memory_order_seq_cst)) return true;
    const auto now = Clock::now();
    if (now - last_probe_ < kSleepSlice) return false;
    last_probe_ = now;
    return !s.ownerAlive();
  }

  // A receive posted after its frame arrived takes the parked copy.
  bool claimParked(Peer& p, ShmTransfer& t) {
    for (auto it = p.unexpected.begin(); it != p.unexpected.end(); ++it) {
      Unexpected& u = **it;
      if (u.tag != t.tag || u.claimed) continue;
      checkSize(t, u.data.size());
      u.claimed = &t;
      t.source = &u;
      if (u.filled == u.data.size()) finishParked(p, it);
      return true;
    }
    return false;
  }

  void finishParked(Peer& p, std::deque<std::unique_ptr<Unexpected>>::iterator it) {
    Unexpected& u = **it;
    ShmTransfer& t = *u.claimed;
    if (!u.data.empty()) {
      if (t.reducer)
        t.reducer->reduceBytes(t.data, u.data.data(), u.data.size());
      else
        std::memcpy(t.data, u.data.data(), u.data.size());
    }
    t.moved = t.bytes;
    t.complete = true;
    t.source = nullptr;
    p.unexpected.erase(it);
  }

  // The transport contract has both ends agree on sizes; a frame that does not is a protocol error.
  void markSizeMismatch(const ShmTransfer& t, uint64_t sent) {
    markBroken(who(t.peer) + " sent " + std::to_string(sent) + " bytes with tag " + std::to_string(t.tag) +
               " where this rank expected " + std::to_string(t.bytes));
  }

  void checkSize(ShmTransfer& t, uint64_t sent) {
    if (sent == t.bytes) return;
    markSizeMismatch(t, sent);
    throw TransportError(TransportFailure::kFailed, t.peer, broken_);
  }

  // Moves every posted transfer as far as the rings allow. True if anything moved.
  bool progress() {
    bool moved = false, completed = false;
    for (int q = 0; q < size_; ++q) {
      if (q == rank_) continue;
      moved |= pushSends(q, &completed);
      moved |= pullFrames(q, &completed);
    }
    if (completed) mine_->ringDoorbell();  // another thread of ours may wait for one of them
    return moved;
  }

  bool pushSends(int q, bool* completed) {
    Peer& p = peers_[q];
    if (p.sends.empty()) return false;
    ShmSegment& seg = *p.segment;
    ShmRing& ring = seg.ring(static_cast<uint32_t>(rank_));
    char* buf = seg.ringData(static_cast<uint32_t>(rank_));
    const size_t cap = seg.ringBytes();
    uint64_t head = ring.head.load(std::memory_order_relaxed);
    bool moved = false;
    while (!p.sends.empty()) {
      ShmTransfer& t = *p.sends.front();
      const size_t free_bytes = cap - static_cast<size_t>(head - ring.tail.load(std::memory_order_acquire));
      if (free_bytes == 0) break;
      const size_t frame = kFrameHeaderBytes + t.bytes;
      size_t n = std::min({free_bytes, kChunkBytes, frame - t.moved});
      if (t.moved < kFrameHeaderBytes) {
        uint64_t header[2] = {t.tag, t.bytes};
        n = std::min(n, kFrameHeaderBytes - t.moved);
        ringCopyIn(buf, cap, head, reinterpret_cast<const char*>(header) + t.moved, n);
      } else {
        ringCopyIn(buf, cap, head, t.data + (t.moved - kFrameHeaderBytes), n);
      }
      head += n;
      t.moved += n;
      ring.head.store(head, std::memory_order_release);
      seg.ringDoorbell();
      moved = true;
      if (t.moved == frame) {
        t.complete = true;
        *completed = true;
        p.sends.pop_front();
      }
    }
    return moved;
  }

  bool pullFrames(int q, bool* completed) {
    Peer& p = peers_[q];
    ShmRing& ring = mine_->ring(static_cast<uint32_t>(q));
    const char* buf = mine_->ringData(static_cast<uint32_t>(q));
    const size_t cap = mine_->ringBytes();
    uint64_t tail = ring.tail.load(std::memory_order_relaxed);
    bool moved = false;
    for (;;) {
      const size_t avail = static_cast<size_t>(ring.head.load(std::memory_order_acquire) - tail);
      if (avail == 0) break;
      if (p.header_read == 0 && p.recvs.empty()) break;  // Note [Frames wait in the ring]
      if (p.header_read < kFrameHeaderBytes) {
        const size_t n = std::min(avail, kFrameHeaderBytes - p.header_read);
        ringCopyOut(buf, cap, tail, p.header + p.header_read, n);
        p.header_read += n;
        tail += n;
        if (p.header_read == kFrameHeaderBytes) startFrame(p, completed);
      } else {
        const size_t n = std::min({avail, kChunkBytes, static_cast<size_t>(p.payload_left)});
        if (p.into_recv && p.into_recv->reducer) {
          ringReduceOut(buf, cap, tail, *p.into_recv, n);
        } else {
          char* dst = nullptr;
          if (p.into_recv) dst = p.into_recv->data + p.into_recv->moved, p.into_recv->moved += n;
          if (p.into_unexpected) dst = p.into_unexpected->data.data() + p.into_unexpected->filled,
                                 p.into_unexpected->filled += n;
          ringCopyOut(buf, cap, tail, dst, n);
        }
        tail += n;
        p.payload_left -= n;
        if (p.payload_left == 0) endFrame(p, completed);
      }
      ring.tail.store(tail, std::memory_order_release);
      p.segment->ringDoorbell();  // space for the sender
      moved = true;
    }
    return moved;
  }

  void startFrame(Peer& p, bool* completed) {
    uint64_t header[2];
    std::memcpy(header, p.header, sizeof(header));
    const uint64_t tag = header[0], bytes = header[1];
    p.payload_left = bytes;
    p.into_recv = nullptr;
    p.into_unexpected = nullptr;
    auto it = std::find_if(p.recvs.begin(), p.recvs.end(), [tag](ShmTransfer* t) { return t->tag == tag; });
    if (it != p.recvs.end()) {
      ShmTransfer* t = *it;
      p.recvs.erase(it);
      if (bytes == t->bytes)
        p.into_recv = t;
      else  // the frame is discarded; every wait now fails
        markSizeMismatch(*t, bytes);
    } else {
      ++frames_parked_;
      p.unexpected.push_back(std::make_unique<Unexpected>());
      p.into_unexpected = p.unexpected.back().get();
      p.into_unexpected->tag = tag;
      p.into_unexpected->data.resize(bytes);
    }
    if (bytes == 0) endFrame(p, completed);
  }

  void endFrame(Peer& p, bool* completed) {
    if (p.into_recv && p.into_recv->carry_bytes)
      markBroken(who(p.into_recv->peer) + " sent " + std::to_string(p.into_recv->bytes) +
                 " bytes to a reducing receive: not a whole number of elements");
    if (p.into_recv) {
      p.into_recv->complete = true;
      *completed = true;
    }
    if (Unexpected* u = p.into_unexpected; u && u->claimed) {
      auto it = std::find_if(p.unexpected.begin(), p.unexpected.end(), [u](auto& x) { return x.get() == u; });
      finishParked(p, it);
      *completed = true;
    }
    p.header_read = 0;
    p.into_recv = nullptr;
    p.into_unexpected = nullptr;
  }

  const int rank_, size_;
  std::unique_ptr<ShmSegment> mine_;
  std::vector<Peer> peers_;  // peers_[rank_].segment is null
  std::mutex mu_;            // everything below and the Peer queues
  std::atomic<bool> aborted_{false};
  std::string broken_;  // the stream to some peer is unusable (a protocol error)
  Clock::time_point last_probe_{};
  uint64_t frames_parked_ = 0;
};

ShmTransfer::~ShmTransfer() { engine->forget(this); }

namespace {

uint64_t randomNonce() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

std::string segmentName(uint64_t nonce) {
  static std::atomic<unsigned> counter{0};
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(nonce));
  return "/ascend_sim_hccl." + std::to_string(getpid()) + "." + std::to_string(counter++) + "." + hex;
}

// Reads key from every other rank; HCCL_E_TIMEOUT naming the first silent one.
std::vector<std::string> readFromAll(SimStore& store, const std::string& key, int rank, int size,
                                     std::chrono::milliseconds timeout) {
  std::vector<std::string> values(size);
  for (int q = 0; q < size; ++q) {
    if (q == rank) continue;
    if (!store.get(key + std::to_string(q), timeout, &values[q]))
      throwHccl(HCCL_E_TIMEOUT, "rank " + std::to_string(q) + " did not publish '" + key + "' for the shared-memory "
                                "transport within " + std::to_string(timeout.count()) + " ms");
  }
  return values;
}

}  // namespace

std::unique_ptr<ShmTransport> ShmTransport::connect(const Options& o, SimStore& store, std::string* why) {
  const size_t ring_bytes = o.ring_bytes ? o.ring_bytes : kDefaultRingBytes;
  const uint64_t nonce = randomNonce();
  const std::string name = segmentName(nonce);
  std::string reason;
  std::unique_ptr<ShmSegment> mine = ShmSegment::create(name, o.rank, o.size, ring_bytes, nonce, &reason);
  store.set("shm/" + std::to_string(o.rank), mine ? name + "\n" + std::to_string(nonce) : "-\n" + reason);

  const std::vector<std::string> published = readFromAll(store, "shm/", o.rank, o.size, o.timeout);
  std::vector<std::unique_ptr<ShmSegment>> peers(o.size);
  bool ok = mine != nullptr;
  for (int q = 0; q < o.size && ok; ++q) {
    if (q == o.rank) continue;
    const std::string& v = published[q];
    const size_t nl = v.find('\n');
    if (nl == std::string::npos || v.compare(0, nl, "-") == 0) {
      ok = false;
      reason = "rank " + std::to_string(q) + ": " + (nl == std::string::npos ? v : v.substr(nl + 1));
      break;
    }
    const uint64_t peer_nonce = std::stoull(v.substr(nl + 1));
    peers[q] = ShmSegment::open(v.substr(0, nl), static_cast<uint32_t>(q), static_cast<uint32_t>(o.size), peer_nonce,
                                &reason);
    ok = peers[q] != nullptr;
  }
  store.set("shm_ok/" + std::to_string(o.rank), ok ? "1" : "0\n" + reason);
  const std::vector<std::string> verdicts = readFromAll(store, "shm_ok/", o.rank, o.size, o.timeout);
  if (mine) mine->unlink();  // every peer mapped it or gave up
  for (int q = 0; q < o.size && ok; ++q) {
    if (q == o.rank || verdicts[q] == "1") continue;
    ok = false;
    const size_t nl = verdicts[q].find('\n');
    reason = "rank " + std::to_string(q) + ": " + (nl == std::string::npos ? verdicts[q] : verdicts[q].substr(nl + 1));
  }
  if (!ok) {
    if (why) *why = reason;
    return nullptr;
  }
  auto engine = std::make_shared<ShmEngine>(o.rank, o.size, std::move(mine), std::move(peers));
  return std::unique_ptr<ShmTransport>(new ShmTransport(std::move(engine)));
}

ShmTransport::~ShmTransport() { engine_->close(); }

int ShmTransport::rank() const { return engine_->rank(); }
int ShmTransport::size() const { return engine_->size(); }

std::unique_ptr<PendingTransfer> ShmTransport::postSend(int peer, uint64_t tag, const void* data, size_t bytes) {
  return engine_->post(engine_, true, peer, tag, static_cast<char*>(const_cast<void*>(data)), bytes);
}

std::unique_ptr<PendingTransfer> ShmTransport::postRecv(int peer, uint64_t tag, void* data, size_t bytes) {
  return engine_->post(engine_, false, peer, tag, static_cast<char*>(data), bytes);
}

std::unique_ptr<PendingTransfer> ShmTransport::postRecvReduce(int peer, uint64_t tag, void* data, size_t bytes,
                                                              ReceiveReducer& reducer) {
  return engine_->post(engine_, false, peer, tag, static_cast<char*>(data), bytes, &reducer);
}

void ShmTransport::wait(PendingTransfer& t, std::chrono::milliseconds timeout) {
  engine_->wait(static_cast<ShmTransfer&>(t), timeout);
}

void ShmTransport::abort() noexcept { engine_->abort(); }

uint64_t ShmTransport::framesParked() const { return engine_->framesParked(); }

}  // namespace hccl
}  // namespace ascend_sim
