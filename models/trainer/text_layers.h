#pragma once
// The reference path's layers for text (a causal transformer LM), written against the trainer's
// own small configuration until core's network spec names these kinds. Activations are
// (features, tokens) column-major, the tokens of a sequence consecutive (token t of sequence n
// is column n * context + t), so a "batch" of the network is sequences x context columns; a
// layer's buffers are sized for max_tokens columns. Plain loops and Eigen products, sums in
// index order: the same bits on any thread count. Internal to kp_trainer.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "models/trainer/layers.h"

namespace kp::trainer_detail {

// Token ids (one float per column, exact integers in [0, vocab)) to E[:, id] + P[:, t]: a
// token table E (d x vocab) then a learned position table P (d x context), both N(0, 0.02^2)
// (GPT-2). Its input has no gradient (dx, if asked, is zeroed). An id outside [0, vocab)
// throws std::out_of_range (the loader validates the data; this is a caller's bug).
template <class T>
std::unique_ptr<Layer<T>> make_embedding(int64_t vocab, int64_t d, int64_t context);
// Per column: (x - mean) / sqrt(var + 1e-5) * gamma + beta (Ba et al. 2016); gamma 1, beta 0.
template <class T>
std::unique_ptr<Layer<T>> make_layer_norm(int64_t d, int64_t max_tokens);
// Causal multi-head self-attention (Vaswani et al. 2017) over each sequence of `context`
// columns: qkv = Wqkv x + b (3d x d: the rows of q, then k, then v, head h at rows h * d/heads),
// softmax(q^T k / sqrt(d/heads)) over the keys at or before each query, heads concatenated,
// y = Wo o + bo. Throws std::invalid_argument where heads does not divide d; a batch not a
// multiple of context is a caller's bug (std::invalid_argument).
template <class T>
std::unique_ptr<Layer<T>> make_causal_attention(int64_t d, int64_t heads, int64_t context,
                                                int64_t max_tokens);
// GELU, exact: x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) (Hendrycks & Gimpel 2016).
template <class T>
std::unique_ptr<Layer<T>> make_gelu(int64_t features);
// Inverted dropout: in training each element is zeroed with probability p, else scaled by
// 1 / (1 - p); evaluation passes x through. The mask of the k-th training forward is a hash of
// (seed, k, element), so the same seed drops the same elements on every run and thread count;
// backward uses the last training forward's mask.
template <class T>
std::unique_ptr<Layer<T>> make_dropout(int64_t features, double p, uint64_t seed);

// A layer and the features per column of its output.
template <class T>
using SizedLayer = std::pair<std::unique_ptr<Layer<T>>, int64_t>;
// y = x + f(x), f the chain of `inner` (each fed the previous one's output; the last must give
// `features` back): a transformer block's residual branch. Its parameters are the inner layers'
// in order.
template <class T>
std::unique_ptr<Layer<T>> make_residual(int64_t features, std::vector<SizedLayer<T>> inner,
                                        int64_t max_tokens);

}  // namespace kp::trainer_detail
