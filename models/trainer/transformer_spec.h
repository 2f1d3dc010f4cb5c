#pragma once
// A small causal transformer language model (GPT-2's pre-norm layout, Radford et al. 2019):
// token + position embedding, `layers` blocks of x + attn(LN(x)) and x + FFN(LN(x)) (FFN:
// dense d_model -> d_ff, GELU, dense d_ff -> d_model; dropout after each branch), a final layer
// norm and a dense head to vocab logits, trained on next-token cross-entropy at every position.
// The trainer's own description until core's network spec names these layer kinds (it would
// then lower to: embedding, layernorm, attention, dense, gelu, dropout, and a residual add).
#include <cstdint>

namespace kp {

struct TransformerSpec {
  int64_t vocab = 256;    // byte-level
  int64_t context = 64;   // tokens per sequence
  int64_t d_model = 128;
  int64_t heads = 4;
  int64_t layers = 2;
  int64_t d_ff = 512;
  double dropout = 0.0;
};

}  // namespace kp
