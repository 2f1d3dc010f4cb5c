#include "models/trainer/text_model.h"

#include <stdexcept>
#include <string>

#include "models/trainer/reference_layers.h"
#include "models/trainer/splitmix.h"

namespace kp::trainer_detail {

template <class T>
std::vector<SizedLayer<T>> make_transformer_layers(const TransformerSpec& s, int64_t max_tokens,
                                                   uint64_t seed) {
  for (int64_t v : {s.vocab, s.context, s.d_model, s.heads, s.layers, s.d_ff})
    if (v < 1) throw std::invalid_argument("transformer: every size must be >= 1");
  const int64_t d = s.d_model;
  uint64_t dropout_seed = splitmix64(seed ^ 0xd20b0a7ull);  // one stream per dropout layer
  auto dropout = [&] { return make_dropout<T>(d, s.dropout, dropout_seed = splitmix64(dropout_seed)); };
  std::vector<SizedLayer<T>> out;
  out.emplace_back(make_embedding<T>(s.vocab, d, s.context), d);
  for (int64_t b = 0; b < s.layers; ++b) {
    std::vector<SizedLayer<T>> attn, ffn;
    attn.emplace_back(make_layer_norm<T>(d, max_tokens), d);
    attn.emplace_back(make_causal_attention<T>(d, s.heads, s.context, max_tokens), d);
    attn.emplace_back(dropout(), d);
    ffn.emplace_back(make_layer_norm<T>(d, max_tokens), d);
    ffn.emplace_back(make_reference_dense<T>(d, s.d_ff, true), s.d_ff);
    ffn.emplace_back(make_gelu<T>(s.d_ff), s.d_ff);
    ffn.emplace_back(make_reference_dense<T>(s.d_ff, d, true), d);
    ffn.emplace_back(dropout(), d);
    out.emplace_back(make_residual<T>(d, std::move(attn), max_tokens), d);
    out.emplace_back(make_residual<T>(d, std::move(ffn), max_tokens), d);
  }
  out.emplace_back(make_layer_norm<T>(d, max_tokens), d);
  out.emplace_back(make_reference_dense<T>(d, s.vocab, true), s.vocab);
  return out;
}

template std::vector<SizedLayer<float>> make_transformer_layers<float>(const TransformerSpec&,
                                                                       int64_t, uint64_t);
template std::vector<SizedLayer<double>> make_transformer_layers<double>(const TransformerSpec&,
                                                                         int64_t, uint64_t);

}  // namespace kp::trainer_detail
