#include "ascendc/kernel_trace.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace ascend_sim {
namespace {

const char* pipeName(int pipe) {
  static const char* const names[] = {"S (scalar)",         "V (Vector)",      "M (Cube)",        "MTE1 (L1 -> L0)",
                                      "MTE2 (GM -> local)", "MTE3 (UB -> GM)", "FIX (L0C -> out)"};
  return pipe >= 0 && pipe < 7 ? names[pipe] : "?";
}

std::string jsonString(const std::string& s) {
  std::ostringstream os;
  os << '"';
  for (char c : s) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (static_cast<unsigned char>(c) < 0x20)
      os << ' ';
    else
      os << c;
  }
  os << '"';
  return os.str();
}

}  // namespace

std::unique_ptr<KernelTrace> KernelTrace::begin(const std::string& kernel, uint32_t block_dim) {
  const char* dir = std::getenv("ASCEND_SIM_KERNEL_TRACE_DIR");
  if (!dir || !*dir) return nullptr;
  static std::atomic<uint64_t> launches{0};
  auto t = std::unique_ptr<KernelTrace>(new KernelTrace());
  t->dir_ = dir;
  t->kernel_ = kernel;
  t->launch_ = ++launches;
  t->block_dim_ = block_dim;
  t->contexts_.resize(std::min(block_dim, kMaxBlocks));
  return t;
}

void KernelTrace::attach(aclsimKernelBlock* block) {
  if (block->block_idx >= contexts_.size()) return;
  contexts_[block->block_idx] = BlockContext{this, block->block_idx};
  block->on_instruction = &KernelTrace::onInstruction;
  block->on_instruction_ctx = &contexts_[block->block_idx];
}

void KernelTrace::onInstruction(void* ctx, int pipe, const char* instruction, double start_us, double end_us) {
  auto* c = static_cast<BlockContext*>(ctx);
  KernelTrace& t = *c->trace;
  if (t.events_.size() >= kMaxEvents) {
    ++t.dropped_;
    return;
  }
  t.events_.push_back(Event{c->block, pipe, instruction ? instruction : "?", start_us, end_us});
}

std::string KernelTrace::write() const {
  const std::string path = dir_ + "/" + std::to_string(launch_) + "_" + kernel_ + ".json";
  std::error_code ignored;  // a failure shows as the file's
  std::filesystem::create_directories(dir_, ignored);
  std::ofstream out(path);
  if (!out) return "";
  out << std::setprecision(12) << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"kernel\": " << jsonString(kernel_)
      << ", \"blockDim\": " << block_dim_ << ", \"droppedEvents\": " << dropped_ << "}, \"traceEvents\": [";
  bool comma = false;
  auto sep = [&] {
    if (comma) out << ",\n";
    comma = true;
  };
  for (uint32_t b = 0; b < contexts_.size(); ++b) {
    sep();
    out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << b
        << ", \"args\": {\"name\": " << jsonString(kernel_ + " block " + std::to_string(b)) << "}}";
    for (int p = 0; p < 7; ++p) {
      sep();
      out << "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " << b << ", \"tid\": " << p
          << ", \"args\": {\"name\": " << jsonString(pipeName(p)) << "}}";
    }
  }
  for (const Event& e : events_) {
    sep();
    out << "{\"name\": " << jsonString(e.name) << ", \"ph\": \"X\", \"pid\": " << e.block << ", \"tid\": " << e.pipe
        << ", \"ts\": " << e.start_us << ", \"dur\": " << (e.end_us - e.start_us) << "}";
  }
  out << "]}\n";
  return out ? path : "";
}

}  // namespace ascend_sim
