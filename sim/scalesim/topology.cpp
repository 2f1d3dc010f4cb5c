#include "sim/scalesim/topology.h"

#include <sstream>

#include "core/config_error.h"
#include "core/csv_line.h"
#include "sim/scalesim/text_fields.h"

namespace kp {
namespace {

using scalesim_text::Field;
using scalesim_text::parse_int;
using scalesim_text::quoted;
using scalesim_text::trim;

const char* const kConvColumns[] = {"Layer name", "IFMAP Height", "IFMAP Width", "Filter Height",
                                    "Filter Width", "Channels", "Num Filter", "Strides"};
const char* const kGemmColumns[] = {"Layer", "M", "N", "K"};

// A topology row's fields (core/csv_line.h: quotes allowed), as slices of `storage`.
struct Row {
  std::vector<std::string> storage;
  std::vector<Field> fields;
  std::string error;
  int error_col = 0;
};

Row split_csv(const std::string& line) {
  const CsvLine split = split_csv_line(line);
  Row row;
  row.error = split.error;
  row.error_col = split.error_col;
  row.storage.reserve(split.fields.size());
  for (const CsvField& f : split.fields) row.storage.push_back(f.text);
  for (size_t i = 0; i < split.fields.size(); ++i) row.fields.push_back({row.storage[i], split.fields[i].col});
  // SCALE-Sim's files end each row with a comma: drop empty trailing fields.
  while (row.fields.size() > 1 && row.fields.back().text.empty()) row.fields.pop_back();
  return row;
}

// The largest GEMM dimension and MAC count a layer may have: the SystemC model steps every fold
// (ceil(M/R) x ceil(N/C) of them for OS), so a layer beyond this would run for days, and products
// of larger sizes overflow 64-bit cycle counts. ResNet-50's largest layer is M = 12544, 1.2e8 MACs.
constexpr int64_t kMaxGemmDim = int64_t{1} << 24;
constexpr double kMaxGemmMacs = 1e13;

}  // namespace

int64_t scalesim_ofmap_size(int64_t ifmap, int64_t filter, int64_t stride) {
  return (ifmap - filter + stride + stride - 1) / stride;
}

std::vector<ScaleSimLayer> parse_scalesim_topology(std::istream& in, const std::string& origin,
                                                   TopologyFormat format) {
  const bool conv = format == TopologyFormat::Conv;
  const char* const* columns = conv ? kConvColumns : kGemmColumns;
  const size_t ncols = conv ? 8 : 4;
  std::vector<Diagnostic> diags;
  std::vector<ScaleSimLayer> layers;
  std::string raw;
  int line_no = 0;
  bool header_seen = false;
  while (std::getline(in, raw)) {
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (trim(raw, 1).text.empty()) continue;
    if (!header_seen) {  // SCALE-Sim skips the first row whatever it says
      header_seen = true;
      continue;
    }
    const Row split = split_csv(raw);
    if (!split.error.empty()) {
      diags.push_back({origin, line_no, split.error_col, "", split.error});
      continue;
    }
    const std::vector<Field>& f = split.fields;
    if (f.size() < ncols) {
      const Field& last = f.back();
      diags.push_back({origin, line_no, last.col + static_cast<int>(last.text.size()), columns[f.size()],
                       "missing column " + std::to_string(f.size() + 1) + " of " + std::to_string(ncols) +
                           " (" + (conv ? "conv" : "gemm") + " topology)"});
      continue;
    }
    if (f.size() > ncols) {
      diags.push_back({origin, line_no, f[ncols].col, "",
                       "unexpected column " + std::to_string(ncols + 1) + ": a " + (conv ? "conv" : "gemm") +
                           " topology has " + std::to_string(ncols) + " columns, got " + quoted(f[ncols].text)});
      continue;
    }
    ScaleSimLayer layer;
    layer.name = std::string(f[0].text);
    layer.line = line_no;
    if (layer.name.empty()) diags.push_back({origin, line_no, f[0].col, columns[0], "expected a layer name"});
    int64_t v[8] = {};
    bool ok = true;
    for (size_t i = 1; i < ncols; ++i) {
      const auto n = parse_int(f[i].text);
      if (n && *n > kMaxGemmDim) {
        diags.push_back({origin, line_no, f[i].col, columns[i],
                         "got " + std::to_string(*n) + ", more than 16777216, the simulator's limit"});
        ok = false;
      } else if (!n || *n < 1) {
        diags.push_back({origin, line_no, f[i].col, columns[i],
                         "expected an integer >= 1, got " + (f[i].text.empty() ? std::string("nothing") : quoted(f[i].text))});
        ok = false;
      } else {
        v[i] = *n;
      }
    }
    if (!ok) continue;
    if (conv) {
      layer.ifmap_h = v[1], layer.ifmap_w = v[2], layer.filter_h = v[3], layer.filter_w = v[4];
      layer.channels = v[5], layer.num_filters = v[6], layer.stride = v[7];
      if (layer.filter_h > layer.ifmap_h || layer.filter_w > layer.ifmap_w) {
        const bool h = layer.filter_h > layer.ifmap_h;
        diags.push_back({origin, line_no, f[h ? 3 : 4].col, columns[h ? 3 : 4],
                         "filter is larger than the IFMAP (" + std::to_string(h ? layer.filter_h : layer.filter_w) +
                             " > " + std::to_string(h ? layer.ifmap_h : layer.ifmap_w) + ")"});
        continue;
      }
      const int64_t oh = scalesim_ofmap_size(layer.ifmap_h, layer.filter_h, layer.stride);
      const int64_t ow = scalesim_ofmap_size(layer.ifmap_w, layer.filter_w, layer.stride);
      // In double first: each size is <= 2^24, so FH * FW * C can overflow 64 bits.
      const double k = double(layer.filter_h) * double(layer.filter_w) * double(layer.channels);
      if (double(oh) * double(ow) > double(kMaxGemmDim) || k > double(kMaxGemmDim)) {
        diags.push_back({origin, line_no, f[1].col, "",
                         "layer's GEMM view (M = OFMAP pixels, K = FH*FW*C) has a side over 16777216"});
        continue;
      }
      layer.gemm = {oh * ow, layer.num_filters, layer.filter_h * layer.filter_w * layer.channels};
    } else {
      layer.gemm = {v[1], v[2], v[3]};
      // SCALE-Sim's gemm mode reads M x K as an M x K ifmap with a 1 x K filter and N filters.
      layer.ifmap_h = v[1], layer.ifmap_w = v[3], layer.filter_w = v[3], layer.num_filters = v[2];
    }
    const double macs = double(layer.gemm.m) * double(layer.gemm.n) * double(layer.gemm.k);
    if (macs > kMaxGemmMacs) {
      diags.push_back({origin, line_no, f[1].col, "",
                       "layer of M x N x K = " + std::to_string(layer.gemm.m) + " x " + std::to_string(layer.gemm.n) +
                           " x " + std::to_string(layer.gemm.k) + " is beyond the simulator's limit (each of M, N, "
                           "K <= 16777216 and M*N*K <= 1e13 MACs)"});
      continue;
    }
    layers.push_back(std::move(layer));
  }
  if (!header_seen) diags.push_back({origin, 0, 0, "", "empty topology file (expected a header row)"});
  else if (layers.empty() && diags.empty()) diags.push_back({origin, line_no, 1, "", "no layers after the header row"});
  if (!diags.empty()) throw ConfigError(std::move(diags));
  return layers;
}

std::vector<ScaleSimLayer> read_scalesim_topology(const std::string& path, TopologyFormat format) {
  std::istringstream in(scalesim_text::read_bounded_file(path, size_t{4} << 20, "SCALE-Sim topology file"));
  return parse_scalesim_topology(in, path, format);
}

}  // namespace kp
