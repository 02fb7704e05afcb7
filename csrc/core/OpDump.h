// Op data dump (torch.npu.init_dump / set_dump / finalize_dump) over CANN's
// aclmdlInitDump / aclmdlSetDump / aclmdlFinalizeDump, and the host scope
// (a module path) that every launch carries to the dump (Note [Op dump] in
// the simulator's runtime/op_dump.h).
#pragma once

#include <memory>
#include <string>

namespace torch_npu {

void initDump();
// Starts dumping per the JSON config at `config_path` (after initDump).
void setDump(const std::string& config_path);
// Finishes every device's queued work, then writes the dump's manifest.
void finalizeDump();

// The calling thread's launch scope ("" for none): each task it launches from
// now on carries it (LaunchTag::scope).
void setLaunchScope(const std::string& scope);
std::shared_ptr<const std::string> currentLaunchScope();

}  // namespace torch_npu
