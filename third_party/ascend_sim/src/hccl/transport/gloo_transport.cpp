#include "hccl/transport/gloo_transport.h"

#include <signal.h>
#include <sys/socket.h>

#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>

#include "hccl/hccl_error.h"
#include "hccl/transport/gloo_store_adapter.h"

namespace ascend_sim {
namespace hccl {

class GlooTransfer final : public PendingTransfer {
 public:
  GlooTransfer(std::unique_ptr<gloo::transport::UnboundBuffer> b, int p, bool s)
      : buf(std::move(b)), peer(p), send(s) {}
  std::unique_ptr<gloo::transport::UnboundBuffer> buf;
  const int peer;
  const bool send;
};

namespace {

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// gloo messages start with "[file:line] "; keep what follows.
std::string stripLocation(const std::string& msg) {
  if (!msg.empty() && msg[0] == '[') {
    const size_t end = msg.find("] ");
    if (end != std::string::npos) return msg.substr(end + 2);
  }
  return msg;
}

// Note [SIGPIPE and dead peers]
// gloo's TCP pairs write to their sockets without MSG_NOSIGNAL, so a write to
// a peer that has just died raises SIGPIPE, whose default action kills the
// process — before gloo can report the broken connection as an error that
// the communicator turns into an HCCL failure on this rank. Python already
// ignores SIGPIPE; for C++ programs the transport does the same when the
// signal still has its default disposition (a handler the program installed
// is left alone). A dead peer then fails the collective with EPIPE.
void ignoreSigpipeIfDefault() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, nullptr);
  }
}

}  // namespace

std::unique_ptr<GlooTransport> GlooTransport::connect(const Options& o, SimStore& store) {
  ignoreSigpipeIfDefault();
  std::unique_ptr<GlooTransport> t(new GlooTransport(o.rank, o.size));
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = o.ip;
    attr.ai_family = AF_INET;
    t->device_ = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throwHccl(HCCL_E_TCP_CONNECT, "cannot open a transport on " + o.ip + ": " + stripLocation(e.what()));
  }
  auto ctx = std::make_shared<gloo::rendezvous::Context>(o.rank, o.size);
  ctx->setTimeout(o.timeout);
  GlooStoreAdapter adapter(store, o.timeout);
  try {
    ctx->connectFullMesh(adapter, t->device_);
  } catch (const HcclError&) {
    throw;
  } catch (const std::exception& e) {
    throwHccl(HCCL_E_TCP_CONNECT, "rank " + std::to_string(o.rank) + " could not connect to its peers from " +
                                      o.ip + ": " + stripLocation(e.what()));
  }
  t->context_ = std::move(ctx);
  return t;
}

GlooTransport::~GlooTransport() {
  // Context first (its pairs close softly), then the device (joins its loop).
  context_.reset();
  device_.reset();
}

void GlooTransport::throwIfAborted(int peer) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_) throw TransportError(TransportFailure::kAborted, peer, "the communicator was aborted");
}

std::unique_ptr<GlooTransfer> GlooTransport::post(bool send, int peer, uint64_t tag, void* data, size_t bytes) {
  throwIfAborted(peer);
  try {
    auto t = std::make_unique<GlooTransfer>(context_->createUnboundBuffer(data, bytes), peer, send);
    if (send)
      t->buf->send(peer, tag, 0, bytes);
    else
      t->buf->recv(peer, tag, 0, bytes);
    return t;
  } catch (const std::exception& e) {
    throw translate(e, peer, std::chrono::milliseconds(0));
  }
}

std::unique_ptr<PendingTransfer> GlooTransport::postSend(int peer, uint64_t tag, const void* data, size_t bytes) {
  return post(true, peer, tag, const_cast<void*>(data), bytes);  // gloo only reads a send buffer
}

std::unique_ptr<PendingTransfer> GlooTransport::postRecv(int peer, uint64_t tag, void* data, size_t bytes) {
  return post(false, peer, tag, data, bytes);
}

void GlooTransport::wait(PendingTransfer& pending, std::chrono::milliseconds timeout) {
  auto& t = static_cast<GlooTransfer&>(pending);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) throw TransportError(TransportFailure::kAborted, t.peer, "the communicator was aborted");
    waiting_.insert(&t);
  }
  bool completed = false;
  try {
    completed = t.send ? t.buf->waitSend(nullptr, timeout) : t.buf->waitRecv(nullptr, timeout);
  } catch (const std::exception& e) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      waiting_.erase(&t);
    }
    throw translate(e, t.peer, timeout);
  }
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.erase(&t);
  if (!completed) throw TransportError(TransportFailure::kAborted, t.peer, "the communicator was aborted");
}

void GlooTransport::abort() noexcept {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) return;
    aborted_ = true;
    for (GlooTransfer* t : waiting_) {
      t->buf->abortWaitRecv();
      t->buf->abortWaitSend();
    }
  }
  try {
    if (context_) context_->closeConnections();
  } catch (...) {
    // Closing is best effort; the waits have already been woken.
  }
}

TransportError GlooTransport::translate(const std::exception& e, int peer, std::chrono::milliseconds timeout) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_) return TransportError(TransportFailure::kAborted, peer, "the communicator was aborted");
  }
  const std::string msg = e.what();
  const std::string who = "rank " + std::to_string(peer);
  if (contains(msg, "Timed out waiting"))
    return TransportError(TransportFailure::kTimeout, peer,
                          "timed out after " + std::to_string(timeout.count()) + " ms waiting for " + who);
  if (contains(msg, "closed by peer") || contains(msg, "reset by peer") || contains(msg, "Socket closed") ||
      contains(msg, "Broken pipe"))
    return TransportError(TransportFailure::kClosed, peer, who + " closed the connection");
  if (contains(msg, "Application timeout caused pair closure"))
    return TransportError(TransportFailure::kFailed, peer,
                          "the connection to " + who + " was closed after an earlier timeout on this rank");
  return TransportError(TransportFailure::kFailed, peer, "transfer with " + who + " failed: " + stripLocation(msg));
}

}  // namespace hccl
}  // namespace ascend_sim
