// Note [Persistent compile cache]
// ACL_OP_COMPILER_CACHE_MODE and ACL_OP_COMPILER_CACHE_DIR, as CANN's disk
// cache of compiled operators. With a directory set, every op "compile" (a
// new plan key with JIT compilation, a new binary key with prebuilt binaries,
// Note [Binary op mode]) is looked up in <dir>/kernel_meta/<hash>.json:
//   enable (default)  a file whose recorded key text equals this key's is a
//                     load, not a compile (the compile count does not grow;
//                     the INFO log says "Load op from the disk cache"); a
//                     miss compiles and writes the file;
//   force             every compile ignores and rewrites the files it meets
//                     (after a toolchain change, as in CANN);
//   disable           the directory is neither read nor written.
// The key text names the op type, tensors, attributes and launch context, so
// a hash collision cannot turn a compile into a load. Files are written to a
// temporary name and renamed, so processes sharing a directory (DDP ranks)
// never read a partial file. Without a directory nothing touches the disk.
#pragma once

#include <string>

namespace ascend_sim {

// Whether a compile of `key_text` can be loaded from the disk cache.
bool diskCacheHas(const std::string& key_text);
// Records a compile of `key_text` (enable / force modes with a directory).
void diskCacheStore(const std::string& key_text);

}  // namespace ascend_sim
