// The plugin's logger, configured like CANN's slog:
//   ASCEND_GLOBAL_LOG_LEVEL      0 debug, 1 info, 2 warning, 3 error (default), 4 null
//   ASCEND_SLOG_PRINT_TO_STDOUT  1: log to stdout; otherwise to stderr
#pragma once

#include <spdlog/spdlog.h>

namespace torch_npu {

// The process-wide logger (created on first use from the environment).
spdlog::logger& logger();

}  // namespace torch_npu

#define NPU_LOGD(...) ::torch_npu::logger().debug(__VA_ARGS__)
#define NPU_LOGI(...) ::torch_npu::logger().info(__VA_ARGS__)
#define NPU_LOGW(...) ::torch_npu::logger().warn(__VA_ARGS__)
#define NPU_LOGE(...) ::torch_npu::logger().error(__VA_ARGS__)
