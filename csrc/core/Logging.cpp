#include "csrc/core/Logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace torch_npu {
namespace {

spdlog::level::level_enum levelFromEnv() {
  const char* v = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  const int level = (v && *v) ? std::atoi(v) : 3;  // CANN's default is ERROR
  switch (level) {
    case 0: return spdlog::level::debug;
    case 1: return spdlog::level::info;
    case 2: return spdlog::level::warn;
    case 3: return spdlog::level::err;
    default: return spdlog::level::off;
  }
}

std::shared_ptr<spdlog::logger> makeLogger() {
  const char* to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  std::shared_ptr<spdlog::sinks::sink> sink;
  if (to_stdout && std::string(to_stdout) == "1") {
    sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  auto log = std::make_shared<spdlog::logger>("torch_npu", sink);
  log->set_pattern("[%L] %Y-%m-%d %H:%M:%S.%e [torch_npu] [%t] %v");
  log->set_level(levelFromEnv());
  log->flush_on(spdlog::level::debug);
  return log;
}

// Deliberately leaked: logging from static destructors must stay valid.
std::shared_ptr<spdlog::logger>* loggerSlot() {
  static auto* slot = new std::shared_ptr<spdlog::logger>(makeLogger());
  return slot;
}

}  // namespace

spdlog::logger& logger() { return **loggerSlot(); }

}  // namespace torch_npu
