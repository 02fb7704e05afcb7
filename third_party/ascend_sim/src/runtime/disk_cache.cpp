#include "runtime/disk_cache.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "runtime/compile_options.h"
#include "runtime/fnv_hash.h"

namespace ascend_sim {
namespace {

std::string entryPath(const std::string& dir, const std::string& key_text) {
  FnvHasher h;
  h.str(key_text);
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.json", static_cast<unsigned long long>(h.h));
  return dir + "/kernel_meta/" + name;
}

// The JSON entry: the key text as one escaped string.
std::string entryText(const std::string& key_text) {
  std::string escaped;
  for (char c : key_text) {
    if (c == '"' || c == '\\') escaped += '\\';
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped += c;
  }
  return "{\"simulator\": \"ascend_sim\", \"key\": \"" + escaped + "\"}\n";
}

}  // namespace

bool diskCacheHas(const std::string& key_text) {
  const std::string dir = compilerCacheDir();
  if (dir.empty() || compilerCacheMode() != CompilerCacheMode::kEnable) return false;
  std::ifstream in(entryPath(dir, key_text));
  if (!in) return false;
  std::stringstream content;
  content << in.rdbuf();
  return content.str() == entryText(key_text);
}

void diskCacheStore(const std::string& key_text) {
  const std::string dir = compilerCacheDir();
  if (dir.empty() || compilerCacheMode() == CompilerCacheMode::kDisable) return;
  ::mkdir((dir + "/kernel_meta").c_str(), 0755);  // may exist already
  const std::string path = entryPath(dir, key_text);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return;  // a read-only cache directory only costs the next process a compile
    out << entryText(key_text);
    if (!out) return;
  }
  std::rename(tmp.c_str(), path.c_str());
}

}  // namespace ascend_sim
