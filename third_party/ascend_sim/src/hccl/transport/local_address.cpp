#include "ascend_sim/hccl_sim.h"
#include "hccl/transport/local_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "hccl/hccl_error.h"

namespace ascend_sim {
namespace hccl {

namespace {

constexpr const char* kLoopback = "127.0.0.1";

// "" on success, else the reason `ip` cannot be listened on here.
std::string bindError(const std::string& ip) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  if (inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) return "not a dotted IPv4 address";
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::strerror(errno);
  std::string err;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) err = std::strerror(errno);
  ::close(fd);
  return err;
}

LocalAddress explicitAddress(const std::string& ip, const std::string& source) {
  const std::string err = bindError(ip);
  if (!err.empty())
    throwHccl(HCCL_E_TCP_CONNECT, "cannot use transport address '" + ip + "' from " + source + ": " + err +
                                      " (give an IPv4 address of this machine, or leave it unset)");
  return LocalAddress{ip, source};
}

}  // namespace

std::string localHostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "localhost";
  return buf;
}

LocalAddress chooseLocalAddress(const char* config_ip) {
  if (config_ip && *config_ip) return explicitAddress(config_ip, "HcclSimCommConfig.ifIp");
  if (const char* env = std::getenv("HCCL_IF_IP"); env && *env) return explicitAddress(env, "HCCL_IF_IP");
  const std::string host = localHostName();
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) == 0) {
    for (addrinfo* a = res; a; a = a->ai_next) {
      char ip[INET_ADDRSTRLEN] = {};
      auto* sin = reinterpret_cast<sockaddr_in*>(a->ai_addr);
      if (!inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof ip)) continue;
      if (bindError(ip).empty()) {
        freeaddrinfo(res);
        return LocalAddress{ip, "host name '" + host + "'"};
      }
    }
    freeaddrinfo(res);
  }
  return LocalAddress{kLoopback, "loopback (host name '" + host + "' has no local IPv4 address)"};
}

}  // namespace hccl
}  // namespace ascend_sim
