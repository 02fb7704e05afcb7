// Op data dump and overflow detection: aclmdlInitDump / aclmdlSetDump /
// aclmdlFinalizeDump.
//
// Note [Op dump]
// CANN dumps the inputs and/or outputs of the ops a JSON config selects, as
// the device runs them; its overflow-detection mode (dump_debug "on") dumps
// only the ops that overflowed. The simulator does the same on the stream
// worker around each op's compute (runOp in acl_op_api.cpp):
// - every op executed while dumping gets a running index and a name,
//   "<op type>_<n>" (n counts that type), whether it is dumped or not, so a
//   filter does not rename ops;
// - an op is selected when dump_list is empty or one of its "layer" entries
//   is its op type, its name, or its scope (the host's module path, see
//   aclsimSetTaskScope) or a dotted prefix of that scope;
// - inputs are copied before compute (an in-place op overwrites them);
// - each tensor is written as a .npy file in its logical layout (private
//   formats converted like TransData, bf16 widened to float32), and the op's
//   entry (index, name, type, scope, stream, overflow, tensors with dtype,
//   logical shape, storage format and shape) joins the manifest that
//   aclmdlFinalizeDump writes as manifest.json;
// - an op overflowed when it raised the device's float status (saturation
//   chips, Note [fp16 overflow in the store]), or, on IEEE chips, when a floating output
//   holds inf/NaN while no floating input did.
// Real CANN writes binary dump files under <path>/<time>/<device>/...; the
// simulator writes .npy files directly into dump_path, which is what users
// convert CANN's files to anyway.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernel/kernel.h"

namespace ascend_sim {

struct DumpConfig {
  std::string path;                 // dump_path
  bool inputs = false;              // dump_mode input / all
  bool outputs = true;              // dump_mode output / all
  bool overflow_only = false;       // dump_debug "on"
  std::vector<std::string> layers;  // dump_list[*].layer (empty: every op)
};

// Reads a CANN dump config (JSON: {"dump": {...}}); throws AclError
// (ACL_ERROR_INVALID_FILE) naming what is wrong.
DumpConfig readDumpConfig(const std::string& json_path);

class OpDump {
 public:
  static OpDump& get();

  void init();                                 // aclmdlInitDump
  void configure(const std::string& cfg_path);  // aclmdlSetDump
  void finalize();                             // aclmdlFinalizeDump: writes manifest.json

  bool active() const { return active_.load(std::memory_order_acquire); }

  // One executing op's dump state, from begin() to end().
  struct Pending {
    uint64_t index = 0;
    std::string name;
    std::string scope;
    bool selected = false;
    std::vector<std::vector<char>> inputs;  // storage bytes before compute
  };
  // Before compute (stream worker): names the op, decides, copies inputs.
  std::unique_ptr<Pending> begin(const OpCall& call, const std::string& scope);
  // After compute: writes the selected tensors and the manifest entry.
  void end(std::unique_ptr<Pending> op, const OpCall& call, int stream_id, bool raised_float_status);

 private:
  bool selects(const std::string& op_type, const std::string& name, const std::string& scope) const;

  std::mutex mu_;
  std::atomic<bool> active_{false};
  bool initialized_ = false;
  DumpConfig config_;
  uint64_t next_index_ = 0;
  std::unordered_map<std::string, uint64_t> type_counts_;
  std::vector<std::pair<uint64_t, std::string>> entries_;  // (index, manifest entry as JSON)
};

}  // namespace ascend_sim
