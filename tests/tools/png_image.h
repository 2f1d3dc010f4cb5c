#pragma once
// A minimal PNG reader for tests that inspect screenshots (8-bit greyscale, grey+alpha, RGB or
// RGBA, not interlaced: what Chromium writes). Contract: returns false with `error` set for any
// other format or a corrupt file; on success `rgb` holds width*height*3 bytes, row-major, alpha
// dropped (a screenshot is opaque).
#include <cstdint>
#include <string>
#include <vector>

namespace kp::test {

struct RgbImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;

  const uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
};

bool read_png(const std::string& path, RgbImage& out, std::string& error);

// Pixels of the rectangle [x0, x1) x [y0, y1) whose channels differ by more than `spread`
// (coloured marks; black, white and grey text or grid lines do not count).
size_t count_coloured(const RgbImage& img, int x0, int y0, int x1, int y1, int spread = 60);

}  // namespace kp::test
