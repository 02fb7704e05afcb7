// The local IPv4 address a rank's transport listens on, and the host identity
// ranks compare to count how many of them share a host.
#pragma once

#include <string>

namespace ascend_sim {
namespace hccl {

struct LocalAddress {
  std::string ip;      // dotted IPv4
  std::string source;  // where it came from, for messages
};

// config_ip if non-null, else $HCCL_IF_IP, else the host name's address when
// it belongs to this machine (bindable), else 127.0.0.1. An explicit address
// that cannot be bound throws HcclError(HCCL_E_TCP_CONNECT) naming its source.
LocalAddress chooseLocalAddress(const char* config_ip);

// gethostname(), or "localhost" if it fails.
std::string localHostName();

}  // namespace hccl
}  // namespace ascend_sim
