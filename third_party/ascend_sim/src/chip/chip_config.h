// Chip presets (docs/simulator.md §1) and the parsing of the environment / ini
// settings that select them.
//
// Note [Where the configuration comes from]
// Precedence, highest first: environment (ASCEND_SIM_SOC_VERSION,
// ASCEND_SIM_HBM_SIZE, ASCEND_SIM_DEVICE_COUNT, ASCEND_RT_VISIBLE_DEVICES),
// then the ini file given to aclInit ([soc] soc_version = Ascend910B2), then
// the default preset Ascend910A. The runtime reads it once, at first use; a
// bad value is reported by every call from then on (with the offending text).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ascend_sim/acl.h"

namespace ascend_sim {

struct ASCEND_SIM_API ChipConfig {
  const char* soc_name = "Ascend910A";    // stable pointer (aclrtGetSocName)
  int cube_cores = 32;                    // AI cores used by the Cube
  int vector_cores = 32;                  // AI cores used by the Vector unit
  double clock_hz = 1.0e9;                // core clock [Hz]
  double cube_macs_per_cycle = 4096;      // fp16 MACs per cycle per core (16x16x16)
  // int8 MACs per fp16 MAC cycle: the published figures give int8 twice the fp16 rate on both
  // families (910A 256 TFLOPS fp16 / 512 TOPS int8; 910B 313 / 640); the 2 is theirs, the
  // efficiency the same as fp16's (assumed).
  double cube_int8_speedup = 2.0;
  double vector_bytes_per_repeat = 256;   // bytes per vector repeat [B]
  double vector_cycles_per_repeat = 1;    // cycles per vector repeat (910A: 1, assumed)
  size_t hbm_bytes = size_t(32) << 30;    // HBM capacity per device [B]
  double hbm_bytes_per_s = 1.2e12;        // effective HBM bandwidth [B/s]
  double pcie_bytes_per_s = 25e9;         // host<->device copy rate [B/s] (assumed)
  bool fp16_saturation = true;            // 910A saturates, 910B follows IEEE
  size_t l2_bytes = size_t(32) << 20;     // L2 cache [B] (910A 32 MB, 910B2 192 MB)
  // Default ACL_PRECISION_MODE: 910A "allow_fp32_to_fp16", 910B2 "must_keep_origin_dtype".
  bool default_fp32_to_fp16 = true;
  // The cluster (collectives; docs/simulator.md §1, §6; Note [Cluster links] in hccl/link_model.h).
  // A server holds server_devices NPUs; HCCS fully connects the NPUs of one group of
  // hccs_group_size (910A: two groups of four; 910B2: one mesh of eight).
  int server_devices = 8;
  int hccs_group_size = 4;
  double link_bytes_per_s = 30e9;  // HCCS, one direction of one link [B/s] (910A 30 GB/s; 910B2 56 GB/s)
  double link_alpha_us = 5.0;      // latency per algorithm step inside a server [us] (assumed)
  // 910A: between the two HCCS groups, through each NPU's PCIe link and the host (assumed rate).
  double cross_group_bytes_per_s = 16e9;
  // Between servers: each NPU's own RoCE port (910A 100GE, 910B2 200GE), a non-blocking switch.
  double inter_host_bytes_per_s = 12.5e9;  // one direction [B/s]
  double inter_host_alpha_us = 20.0;       // latency per algorithm step between servers [us] (assumed)
  // 910A: the ranks of one communicator on one host must number 1, 2, 4 or 8
  // (HCCS connects cards 0-3 and 4-7 in two fully connected groups).
  bool hccl_ranks_per_host_1_2_4_8 = true;
  // HCCL's default algorithms of the Atlas A2 series (910B2) rather than the training series'
  // (Note [Algorithm choice] in hccl/algorithm_selection.h).
  bool hccl_a2_algorithm_rules = false;

  // "Ascend910A" or "Ascend910B2"; throws AclError(ACL_ERROR_INVALID_PARAM)
  // listing the known presets otherwise.
  static ChipConfig preset(const std::string& soc_version);
};

// "0,3" with `physical_count` devices -> {0, 3}. Throws
// AclError(ACL_ERROR_RT_INVALID_DEVICEID) on an empty entry, a non-number, an
// id outside [0, physical_count) or a duplicate, naming the entry.
ASCEND_SIM_API std::vector<int> parseVisibleDevices(const std::string& spec, int physical_count);

// "1073741824", "512K", "64M", "2G" (optionally with "B"/"iB") -> bytes.
// Throws AclError(ACL_ERROR_INVALID_PARAM) on anything else or zero.
ASCEND_SIM_API size_t parseByteSize(const std::string& text);

// Reads `[soc] soc_version` from a CANN-style ini file; "" if absent. Throws
// AclError(ACL_ERROR_INVALID_FILE) if the file cannot be read or a line is
// malformed.
ASCEND_SIM_API std::string readSocVersionFromIni(const std::string& path);

}  // namespace ascend_sim
