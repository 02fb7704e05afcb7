#include "csrc/core/AllocatorConfig.h"

#include <cstdlib>
#include <sstream>

#include <c10/util/Exception.h>

namespace torch_npu {
namespace allocator {

namespace {

constexpr const char* kVariable = "PYTORCH_NPU_ALLOC_CONF";
constexpr size_t kMiB = size_t{1} << 20;

double numberOf(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  TORCH_CHECK(!value.empty() && end == value.c_str() + value.size(), kVariable, ": ", key, " needs a number, got '",
              value, "'");
  return v;
}

}  // namespace

AllocatorConfig parseAllocatorConfig(const std::string& text) {
  AllocatorConfig config;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    const size_t colon = item.find(':');
    TORCH_CHECK(colon != std::string::npos, kVariable, ": expected key:value, got '", item, "'");
    const std::string key = item.substr(0, colon), value = item.substr(colon + 1);
    if (key == "max_split_size_mb") {
      const double mb = numberOf(key, value);
      TORCH_CHECK(mb > 20, kVariable, ": max_split_size_mb must be more than 20 (MiB), got ", value);
      config.max_split_size = static_cast<size_t>(mb) * kMiB;
    } else if (key == "garbage_collection_threshold") {
      const double t = numberOf(key, value);
      TORCH_CHECK(t > 0 && t < 1, kVariable, ": garbage_collection_threshold must be between 0 and 1, got ", value);
      config.garbage_collection_threshold = t;
    } else if (key == "expandable_segments") {
      TORCH_CHECK(value == "True" || value == "False", kVariable, ": expandable_segments must be True or False, got '",
                  value, "'");
      config.expandable_segments = value == "True";
    } else {
      TORCH_CHECK(false, kVariable, ": unknown option '", key,
                  "' (the NPU allocator takes max_split_size_mb, garbage_collection_threshold and "
                  "expandable_segments)");
    }
  }
  return config;
}

const AllocatorConfig& allocatorConfig() {
  static const AllocatorConfig config = [] {
    const char* text = std::getenv(kVariable);
    return text == nullptr ? AllocatorConfig{} : parseAllocatorConfig(text);
  }();
  return config;
}

}  // namespace allocator
}  // namespace torch_npu
