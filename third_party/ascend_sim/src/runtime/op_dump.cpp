// Op data dump and overflow detection (Note [Op dump] in op_dump.h).
#include "runtime/op_dump.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/dtype.h"
#include "kernel/format_access.h"
#include "format/format_registry.h"
#include "runtime/error_state.h"

namespace ascend_sim {
namespace {

[[noreturn]] void badConfig(const std::string& path, const std::string& what) {
  throwAcl(ACL_ERROR_INVALID_FILE, "dump config " + path + ": " + what);
}

std::string jsonString(const std::string& s) {
  std::ostringstream os;
  os << '"';
  for (char c : s) {
    if (c == '"' || c == '\\') os << '\\' << c;
    else if (static_cast<unsigned char>(c) < 0x20) os << "\\u00" << "0123456789abcdef"[(c >> 4) & 0xf] << "0123456789abcdef"[c & 0xf];
    else os << c;
  }
  os << '"';
  return os.str();
}

std::string jsonShape(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// numpy's type string of what the dump writes for `dt` (bf16 is widened).
const char* npyDescr(aclDataType dt) {
  switch (dt) {
    case ACL_FLOAT: case ACL_BF16: return "<f4";
    case ACL_FLOAT16: return "<f2";
    case ACL_DOUBLE: return "<f8";
    case ACL_COMPLEX64: return "<c8";
    case ACL_BOOL: return "|b1";
    case ACL_INT8: return "|i1";
    case ACL_UINT8: return "|u1";
    case ACL_INT16: return "<i2";
    case ACL_UINT16: return "<u2";
    case ACL_INT32: return "<i4";
    case ACL_UINT32: return "<u4";
    case ACL_INT64: return "<i8";
    case ACL_UINT64: return "<u8";
    default: return nullptr;
  }
}

// NumPy format 1.0: magic, version, header length, a dict padded with spaces
// to a multiple of 64 bytes and ended by '\n', then the raw C-order data.
void writeNpy(const std::string& path, const char* descr, const Shape& shape, const void* data, size_t bytes) {
  std::string dims = "(";
  for (size_t i = 0; i < shape.size(); ++i) dims += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  dims += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + dims + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throwAcl(ACL_ERROR_INVALID_FILE, "op dump: cannot write " + path);
  const uint16_t len = static_cast<uint16_t>(header.size());
  f.write("\x93NUMPY\x01\x00", 8);
  f.write(reinterpret_cast<const char*>(&len), 2);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f) throwAcl(ACL_ERROR_INVALID_FILE, "op dump: writing " + path + " failed");
}

// Writes t (its data: storage bytes) as <dir>/<file>; returns its manifest object.
std::string dumpTensor(const TensorArg& t, const std::string& dir, const std::string& file) {
  const Shape logical = logicalShape(t.origin_format, t.origin_shape);
  std::ostringstream entry;
  entry << "{\"file\": " << jsonString(file) << ", \"dtype\": " << jsonString(dtypeName(t.dtype))
        << ", \"shape\": " << jsonShape(logical) << ", \"format\": " << jsonString(formatToString(t.origin_format))
        << ", \"storage_format\": " << jsonString(formatToString(t.format))
        << ", \"storage_shape\": " << jsonShape(t.shape) << "}";
  const char* descr = npyDescr(t.dtype);
  StorageMap map;
  std::string err;
  if (!descr || !t.data || !makeStorageMap(t.format, t.dtype, logical, &map, &err))
    return entry.str();  // listed without a file: nothing readable to write
  const size_t n = static_cast<size_t>(map.logicalNumel());
  if (t.dtype == ACL_BF16) {
    std::vector<float> values(n);
    loadLogicalFloat(t, map, values.data());
    writeNpy(dir + "/" + file, descr, logical, values.data(), n * sizeof(float));
  } else {
    std::vector<char> packed(n * dtypeSize(t.dtype));
    gatherLogical(t, map, packed.data());
    writeNpy(dir + "/" + file, descr, logical, packed.data(), packed.size());
  }
  return entry.str();
}

bool hasNonFinite(const TensorArg& t) {
  if (!isFloatDtype(t.dtype) || !t.data) return false;
  const int64_t n = t.numel();
  std::vector<float> chunk(4096);
  for (int64_t first = 0; first < n; first += 4096) {
    const int64_t len = std::min<int64_t>(4096, n - first);
    loadFloat(t.dtype, t.data, first, 1, len, chunk.data());
    for (int64_t i = 0; i < len; ++i)
      if (!std::isfinite(chunk[static_cast<size_t>(i)])) return true;
  }
  return false;
}

std::string joinList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

}  // namespace

DumpConfig readDumpConfig(const std::string& json_path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(json_path);  // JSON is YAML's flow style
  } catch (const YAML::BadFile&) {
    badConfig(json_path, "cannot be read");
  } catch (const YAML::Exception& e) {
    badConfig(json_path, std::string("is not valid JSON: ") + e.what());
  }
  const YAML::Node dump = root.IsMap() ? root["dump"] : YAML::Node();
  if (!dump || !dump.IsMap()) badConfig(json_path, "needs a \"dump\" object");
  DumpConfig c;
  try {
    if (!dump["dump_path"] || dump["dump_path"].as<std::string>().empty())
      badConfig(json_path, "needs \"dump_path\", the directory to dump into");
    c.path = dump["dump_path"].as<std::string>();
    const std::string mode = dump["dump_mode"] ? dump["dump_mode"].as<std::string>() : "output";
    if (mode != "input" && mode != "output" && mode != "all")
      badConfig(json_path, "dump_mode must be \"input\", \"output\" or \"all\", not \"" + mode + "\"");
    c.inputs = mode != "output";
    c.outputs = mode != "input";
    const std::string debug = dump["dump_debug"] ? dump["dump_debug"].as<std::string>() : "off";
    if (debug != "on" && debug != "off") badConfig(json_path, "dump_debug must be \"on\" or \"off\", not \"" + debug + "\"");
    c.overflow_only = debug == "on";
    if (const YAML::Node list = dump["dump_list"]) {
      if (!list.IsSequence()) badConfig(json_path, "dump_list must be a list of {\"layer\": [...]} objects");
      for (const YAML::Node& item : list) {
        if (!item.IsMap()) badConfig(json_path, "dump_list must be a list of {\"layer\": [...]} objects");
        if (const YAML::Node layers = item["layer"])
          for (const YAML::Node& layer : layers) c.layers.push_back(layer.as<std::string>());
      }
    }
  } catch (const YAML::Exception& e) {
    badConfig(json_path, std::string("has a field of the wrong type: ") + e.what());
  }
  return c;
}

OpDump& OpDump::get() {
  static OpDump* dump = new OpDump();  // leaked: stream workers may run during exit
  return *dump;
}

void OpDump::init() {
  std::lock_guard<std::mutex> lock(mu_);
  initialized_ = true;
  active_.store(false, std::memory_order_release);
  next_index_ = 0;
  type_counts_.clear();
  entries_.clear();
}

void OpDump::configure(const std::string& cfg_path) {
  DumpConfig c = readDumpConfig(cfg_path);
  std::error_code ec;
  std::filesystem::create_directories(c.path, ec);
  if (ec) throwAcl(ACL_ERROR_INVALID_FILE, "dump config " + cfg_path + ": cannot create dump_path " + c.path + ": " + ec.message());
  std::lock_guard<std::mutex> lock(mu_);
  if (!initialized_) throwAcl(ACL_ERROR_UNINITIALIZE, "call aclmdlInitDump before aclmdlSetDump");
  config_ = std::move(c);
  active_.store(true, std::memory_order_release);
}

void OpDump::finalize() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!initialized_) throwAcl(ACL_ERROR_UNINITIALIZE, "aclmdlFinalizeDump without aclmdlInitDump");
  initialized_ = false;
  const bool was_active = active_.exchange(false, std::memory_order_acq_rel);
  if (!was_active) return;
  const std::string mode = config_.inputs && config_.outputs ? "all" : config_.inputs ? "input" : "output";
  std::ofstream f(config_.path + "/manifest.json");
  f << "{\"dump_mode\": " << jsonString(mode) << ", \"dump_debug\": " << jsonString(config_.overflow_only ? "on" : "off")
    << ", \"ops_executed\": " << next_index_ << ",\n \"ops\": [\n";
  std::sort(entries_.begin(), entries_.end());  // streams finish ops out of launch order
  for (size_t i = 0; i < entries_.size(); ++i) f << "  " << entries_[i].second << (i + 1 < entries_.size() ? ",\n" : "\n");
  f << " ]}\n";
  if (!f) throwAcl(ACL_ERROR_INVALID_FILE, "op dump: writing " + config_.path + "/manifest.json failed");
  entries_.clear();
}

bool OpDump::selects(const std::string& op_type, const std::string& name, const std::string& scope) const {
  if (config_.layers.empty()) return true;
  for (const std::string& layer : config_.layers) {
    if (layer == op_type || layer == name || layer == scope) return true;
    if (scope.size() > layer.size() && scope.compare(0, layer.size(), layer) == 0 && scope[layer.size()] == '.') return true;
  }
  return false;
}

std::unique_ptr<OpDump::Pending> OpDump::begin(const OpCall& call, const std::string& scope) {
  auto op = std::make_unique<Pending>();
  bool want_inputs = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!active_.load(std::memory_order_relaxed)) return nullptr;
    op->index = next_index_++;
    op->name = call.op_type + "_" + std::to_string(type_counts_[call.op_type]++);
    op->scope = scope;
    op->selected = selects(call.op_type, op->name, scope);
    want_inputs = op->selected && (config_.inputs || config_.overflow_only);
  }
  if (want_inputs)
    for (const TensorArg& t : call.inputs) {
      const char* p = static_cast<const char*>(t.data);
      op->inputs.emplace_back(p, p ? p + t.bytes : p);
    }
  return op;
}

void OpDump::end(std::unique_ptr<Pending> op, const OpCall& call, int stream_id, bool raised_float_status) {
  if (!op || !op->selected) return;
  DumpConfig c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!active_.load(std::memory_order_relaxed)) return;
    c = config_;
  }
  std::vector<TensorArg> inputs(call.inputs);
  for (size_t i = 0; i < inputs.size() && i < op->inputs.size(); ++i)
    inputs[i].data = op->inputs[i].empty() ? nullptr : op->inputs[i].data();
  bool overflow = raised_float_status;
  if (!overflow && !call.ctx.fp16_saturation && c.overflow_only) {  // IEEE chips: inf/NaN made by this op
    bool out_bad = false, in_bad = false;
    for (const TensorArg& t : call.outputs) out_bad = out_bad || hasNonFinite(t);
    if (out_bad)
      for (const TensorArg& t : inputs) in_bad = in_bad || hasNonFinite(t);
    overflow = out_bad && !in_bad;
  }
  if (c.overflow_only && !overflow) return;
  const std::string stem = std::to_string(op->index) + "." + op->name;
  std::vector<std::string> in_entries, out_entries;
  if (c.inputs || c.overflow_only)
    for (size_t i = 0; i < inputs.size(); ++i)
      in_entries.push_back(dumpTensor(inputs[i], c.path, stem + ".input." + std::to_string(i) + ".npy"));
  if (c.outputs || c.overflow_only)
    for (size_t i = 0; i < call.outputs.size(); ++i)
      out_entries.push_back(dumpTensor(call.outputs[i], c.path, stem + ".output." + std::to_string(i) + ".npy"));
  std::ostringstream entry;
  entry << "{\"index\": " << op->index << ", \"op_name\": " << jsonString(op->name)
        << ", \"op_type\": " << jsonString(call.op_type) << ", \"scope\": " << jsonString(op->scope)
        << ", \"device\": " << call.device << ", \"stream\": " << stream_id
        << ", \"overflow\": " << (overflow ? "true" : "false") << ", \"inputs\": " << joinList(in_entries)
        << ", \"outputs\": " << joinList(out_entries) << "}";
  std::lock_guard<std::mutex> lock(mu_);
  entries_.emplace_back(op->index, entry.str());
}

}  // namespace ascend_sim
