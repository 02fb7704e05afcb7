#include "chip/chip_config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "common/acl_error.h"

namespace ascend_sim {

namespace {
std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}
}  // namespace

ChipConfig ChipConfig::preset(const std::string& soc_version) {
  ChipConfig c;
  if (soc_version == "Ascend910A") {
    return c;  // defaults above are the 910A
  }
  if (soc_version == "Ascend910B2") {
    c.soc_name = "Ascend910B2";
    c.cube_cores = 24;
    c.vector_cores = 48;
    c.clock_hz = 1.8e9;
    c.vector_cycles_per_repeat = 2;  // assumed (docs/simulator.md §1.2)
    c.hbm_bytes = size_t(64) << 30;
    c.hbm_bytes_per_s = 1.6e12;  // assumed
    c.fp16_saturation = false;
    c.l2_bytes = size_t(192) << 20;
    c.default_fp32_to_fp16 = false;
    c.link_bytes_per_s = 56e9;        // 392 GB/s of HCCS per chip over 7 links (docs/simulator.md §1.2)
    c.hccs_group_size = 8;            // Atlas 800T A2: one full mesh of eight
    c.inter_host_bytes_per_s = 25e9;  // 200GE RoCE per NPU
    c.hccl_ranks_per_host_1_2_4_8 = false;
    c.hccl_a2_algorithm_rules = true;
    return c;
  }
  throwAcl(ACL_ERROR_INVALID_PARAM, "unknown SoC version '" + soc_version +
                                        "' (known presets: Ascend910A, Ascend910B2)");
}

std::vector<int> parseVisibleDevices(const std::string& spec, int physical_count) {
  std::vector<int> ids;
  std::set<int> seen;
  std::stringstream ss(spec);
  std::string item;
  const std::string range = "valid physical ids are 0.." + std::to_string(physical_count - 1);
  while (std::getline(ss, item, ',')) {
    std::string t = trim(item);
    if (t.empty())
      throwAcl(ACL_ERROR_RT_INVALID_DEVICEID,
               "ASCEND_RT_VISIBLE_DEVICES='" + spec + "' has an empty entry");
    if (!std::all_of(t.begin(), t.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }) ||
        t.size() > 9)
      throwAcl(ACL_ERROR_RT_INVALID_DEVICEID, "ASCEND_RT_VISIBLE_DEVICES='" + spec + "': entry '" + t +
                                                  "' is not a device id (" + range + ")");
    int id = std::stoi(t);
    if (id >= physical_count)
      throwAcl(ACL_ERROR_RT_INVALID_DEVICEID, "ASCEND_RT_VISIBLE_DEVICES='" + spec + "': device " + t +
                                                  " does not exist (" + range + ")");
    if (!seen.insert(id).second)
      throwAcl(ACL_ERROR_RT_INVALID_DEVICEID,
               "ASCEND_RT_VISIBLE_DEVICES='" + spec + "': device " + t + " is listed twice");
    ids.push_back(id);
  }
  if (ids.empty())
    throwAcl(ACL_ERROR_RT_INVALID_DEVICEID, "ASCEND_RT_VISIBLE_DEVICES='" + spec + "' lists no device");
  return ids;
}

size_t parseByteSize(const std::string& text) {
  std::string t = trim(text);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  std::string digits = t.substr(0, i);
  std::string suffix = trim(t.substr(i));
  for (auto& ch : suffix) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") shift = 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") shift = 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") shift = 30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB") shift = 40;
  else digits.clear();
  if (digits.empty() || digits.size() > 15)
    throwAcl(ACL_ERROR_INVALID_PARAM, "bad byte size '" + text + "' (expected e.g. 1073741824, 512M or 2G)");
  unsigned long long v = std::stoull(digits);
  if (v == 0) throwAcl(ACL_ERROR_INVALID_PARAM, "byte size '" + text + "' must be positive");
  if (shift && v > (~0ull >> shift))
    throwAcl(ACL_ERROR_INVALID_PARAM, "byte size '" + text + "' is too large");
  return static_cast<size_t>(v << shift);
}

std::string readSocVersionFromIni(const std::string& path) {
  std::ifstream in(path);
  if (!in) throwAcl(ACL_ERROR_INVALID_FILE, "cannot open config file '" + path + "'");
  std::string line, section, soc;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']')
        throwAcl(ACL_ERROR_INVALID_FILE, path + ":" + std::to_string(lineno) + ": malformed section '" + t + "'");
      section = trim(t.substr(1, t.size() - 2));
      continue;
    }
    size_t eq = t.find('=');
    if (eq == std::string::npos)
      throwAcl(ACL_ERROR_INVALID_FILE,
               path + ":" + std::to_string(lineno) + ": expected 'key = value', got '" + t + "'");
    if (section == "soc" && trim(t.substr(0, eq)) == "soc_version") soc = trim(t.substr(eq + 1));
  }
  return soc;
}

}  // namespace ascend_sim
