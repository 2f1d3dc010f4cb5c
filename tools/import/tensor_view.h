#pragma once
// The kneepoint layout of a tensor, batch axis left out. Contract: an image is C x H x W
// (ONNX NCHW), a sequence S x F whatever the order ONNX holds it in ([N,S,F], [S,N,F], or
// channels-first [N,F,S] around a 1-D convolution), a vector F, token ids S; matches() says
// whether an ONNX shape (batch included) holds this layout.
#include <cstdint>
#include <string>
#include <vector>

namespace kp {

struct TensorView {
  enum Kind { None, Image, Sequence, Vector, Tokens };
  Kind kind = None;
  int64_t c = 0, h = 0, w = 0;  // image
  int64_t s = 0, f = 0;         // sequence (s, f), vector (f), tokens (s)

  static TensorView image(int64_t c, int64_t h, int64_t w) { return {Image, c, h, w, 0, 0}; }
  static TensorView sequence(int64_t s, int64_t f) { return {Sequence, 0, 0, 0, s, f}; }
  static TensorView vector(int64_t f) { return {Vector, 0, 0, 0, 0, f}; }
  static TensorView tokens(int64_t s) { return {Tokens, 0, 0, 0, s, 0}; }

  int64_t features() const { return kind == Image ? c : f; }
  bool matches(const std::vector<int64_t>& shape, int64_t batch) const;
  std::string text() const;  // e.g. "image 64x56x56", "sequence 16x64"
};

}  // namespace kp
