// torchvision's operators for the detection suites: its _C library is loaded
// from the Python installation (it has no Python symbols, so a plain program
// can load it), and its ops are called through the dispatcher on either device.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>
#include <glob.h>

#include <string>
#include <tuple>

namespace torch_npu_test {

// Loads torchvision's operator library once; false when torchvision is not installed.
inline bool loadTorchvision() {
  static const bool loaded = [] {
    for (const char* pattern : {"/usr/lib/python3/dist-packages/torchvision/_C*.so",
                                "/usr/local/lib/python3*/dist-packages/torchvision/_C*.so"}) {
      glob_t g{};
      const bool found = glob(pattern, 0, nullptr, &g) == 0 && g.gl_pathc > 0;
      const std::string path = found ? g.gl_pathv[0] : "";
      globfree(&g);
      if (found && dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return true;
    }
    return false;
  }();
  return loaded;
}

template <typename Sig>
c10::TypedOperatorHandle<Sig> visionOp(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow((std::string("torchvision::") + name).c_str(), "").typed<Sig>();
}

#define SKIP_WITHOUT_TORCHVISION() \
  if (!::torch_npu_test::loadTorchvision()) GTEST_SKIP() << "torchvision is not installed"

}  // namespace torch_npu_test
