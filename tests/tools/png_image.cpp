#include "tests/tools/png_image.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace kp::test {
namespace {

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// The Paeth predictor of the PNG specification (ISO/IEC 15948, section 9.4).
int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

bool read_png(const std::string& path, RgbImage& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (f.size() < 8 || !std::equal(sig, sig + 8, f.begin())) return error = path + ": not a PNG", false;
  int channels = 0, bit_depth = 0, interlace = 0;
  std::vector<uint8_t> idat;
  for (size_t at = 8; at + 12 <= f.size();) {
    const uint32_t len = be32(&f[at]);
    if (at + 12 + len > f.size()) return error = path + ": truncated chunk", false;
    const std::string type(f.begin() + static_cast<long>(at) + 4, f.begin() + static_cast<long>(at) + 8);
    const uint8_t* d = &f[at + 8];
    if (type == "IHDR") {
      out.width = static_cast<int>(be32(d));
      out.height = static_cast<int>(be32(d + 4));
      bit_depth = d[8];
      const int colour_type = d[9];
      interlace = d[12];
      channels = colour_type == 0 ? 1 : colour_type == 4 ? 2 : colour_type == 2 ? 3 : colour_type == 6 ? 4 : 0;
    } else if (type == "IDAT") {
      idat.insert(idat.end(), d, d + len);
    }
    at += 12 + len;
  }
  if (channels == 0 || bit_depth != 8 || interlace != 0 || out.width <= 0 || out.height <= 0)
    return error = path + ": unsupported PNG format (need 8-bit, non-interlaced, grey/RGB/RGBA)", false;
  const size_t stride = static_cast<size_t>(out.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * out.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, idat.data(), idat.size()) != Z_OK || raw_len != raw.size())
    return error = path + ": corrupt image data", false;
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  out.rgb.assign(static_cast<size_t>(out.width) * out.height * 3, 0);
  for (int y = 0; y < out.height; ++y) {
    const uint8_t* row = &raw[y * (stride + 1)];
    const int filter = row[0];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? cur[i - channels] : 0, b = prev[i];
      const int c = i >= static_cast<size_t>(channels) ? prev[i - channels] : 0;
      const int pred = filter == 0 ? 0 : filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : paeth(a, b, c);
      if (filter > 4) return error = path + ": bad filter type", false;
      cur[i] = static_cast<uint8_t>(row[1 + i] + pred);
    }
    for (int x = 0; x < out.width; ++x) {
      const uint8_t* px = &cur[static_cast<size_t>(x) * channels];
      uint8_t* o = &out.rgb[(static_cast<size_t>(y) * out.width + x) * 3];
      o[0] = px[0];
      o[1] = channels >= 3 ? px[1] : px[0];
      o[2] = channels >= 3 ? px[2] : px[0];
    }
    std::swap(prev, cur);
  }
  return true;
}

size_t count_coloured(const RgbImage& img, int x0, int y0, int x1, int y1, int spread) {
  size_t n = 0;
  for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(img.width, x1); ++x) {
      const uint8_t* p = img.at(x, y);
      if (std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]}) > spread) ++n;
    }
  return n;
}

}  // namespace kp::test
