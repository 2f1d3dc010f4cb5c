#include "models/trainer/aligned_vector.h"
#include "models/trainer/network.h"

#include <Eigen/Core>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "models/trainer/fused_layer.h"
#include "models/trainer/reference_layers.h"
#include "models/trainer/softmax_loss.h"
#include "models/trainer/text_model.h"
#include "models/trainer/worker_pool.h"

namespace kp {

namespace {

// The layers (without the loss) in the order the trainer runs them: a ReLU followed by a max-pool
// runs after it instead, on a quarter of the elements. Same values: ReLU is monotonic, so
// max(relu(x)) = relu(max(x)) exactly, and the gradients match too (where the window's maximum
// is <= 0 both give zero; elsewhere both pick the same first maximum).
std::vector<ResolvedLayer> trainer_order(const ResolvedNetwork& net) {
  std::vector<ResolvedLayer> order(net.layers.begin(), net.layers.end() - 1);
  for (size_t i = 0; i + 1 < order.size(); ++i)
    if (order[i].spec.kind == LayerKind::Relu && order[i + 1].spec.kind == LayerKind::MaxPool) {
      ResolvedLayer pool = order[i + 1], relu = order[i];
      pool.in = relu.in;
      relu.in = relu.out = pool.out;
      order[i] = pool;
      order[i + 1] = relu;
      ++i;
    }
  return order;
}

}  // namespace

bool fast_path_available() {
  static const bool available = [] {
    const char* env = std::getenv("KP_TRAINER_PATH");
    if (env && std::strcmp(env, "reference") == 0) return false;
#ifdef __AVX512F__
    return trainer_detail::sgemm_available() && __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
  }();
  return available;
}

StepPath resolve_step_path(StepPath p) {
  if (p == StepPath::Auto) return fast_path_available() ? StepPath::Fast : StepPath::Reference;
  if (p == StepPath::Fast && !fast_path_available())
    throw std::invalid_argument(
        "the fast training step needs an AVX-512 build and CPU (and KP_TRAINER_PATH unset)");
  return p;
}

const char* step_path_name(StepPath p) {
  switch (p) {
    case StepPath::Auto: return "auto";
    case StepPath::Reference: return "reference";
    case StepPath::Fast: return "fast";
  }
  return "?";
}

template <class T>
struct Network<T>::Impl {
  std::vector<std::unique_ptr<trainer_detail::Layer<T>>> layers;
  // The same layers as fused ones (fast path); empty on the reference path.
  std::vector<trainer_detail::FusedLayer<T>*> fused;
  bool fast = false;
  std::vector<AlignedVector<T>> storage;  // the activations and their gradients
  std::vector<T*> acts;   // acts[0] = input, acts[i + 1] = output of layer i
  std::vector<T*> dacts;  // gradient of the loss w.r.t. acts[i]
  AlignedVector<T> params, grads;
  std::unique_ptr<trainer_detail::WorkerPool> pool;  // helpers of a multi-threaded trial
  trainer_detail::GemmWorkspace gemm_ws;  // packing space of every layer's products
  int64_t max_batch = 0, in_elems = 0, classes = 0;
  size_t first_trainable = 0;  // the first layer with parameters (layers.size() if none)
  bool input_grad = false, defer = false;
  std::vector<WeightGradBlock<T>> blocks;    // every dense layer's weight block
  std::vector<size_t> block_layers;          // the layer of each block
  std::vector<WeightGradBlock<T>> deferred;  // what the last forward_backward deferred
  std::unique_ptr<trainer_detail::SoftmaxLoss<T>> softmax;

  // Fast path: a layer that works in chunks of samples (conv2d) runs a sample-wise next layer
  // (max-pool) on each chunk it computes; a dense layer next to a ReLU does the ReLU's work in
  // its product's epilogue (the layer before writes the ReLU's output, the layer after its input
  // gradient); a max-pool takes the ReLU after it both ways (the layer after that ReLU, a
  // convolution or a flatten, does not). Gains: docs/trainer_performance.md.
  void fuse_neighbours(const std::vector<ResolvedLayer>& order) {
    for (size_t r = 1; r < order.size(); ++r) {
      trainer_detail::SampleStage<T>* stage = fused[r]->sample_stage();
      if (stage && fused[r - 1]->fuse_next(stage, acts[r + 1], dacts[r + 1]))
        fused[r]->skip_fused(true, true);
    }
    for (size_t r = 1; r < order.size(); ++r) {
      if (order[r].spec.kind != LayerKind::Relu) continue;
      const bool fwd = fused[r - 1]->fuse_relu_output(acts[r + 1]);
      const bool bwd = (r + 1 < order.size() && fused[r + 1]->fuse_relu_input_grad(dacts[r])) ||
                       (fwd && fused[r - 1]->fuse_relu_output_grad(dacts[r + 1]));
      fused[r]->skip_fused(fwd, bwd);
    }
  }
  // The flat parameter and gradient arrays, each layer's views into them, its initial values.
  void bind_and_init(uint64_t seed, WeightInit init) {
    int64_t total = 0;
    for (auto& l : layers) total += l->param_count();
    first_trainable = layers.size();
    for (size_t i = layers.size(); i-- > 0;)
      if (layers[i]->param_count() > 0) first_trainable = i;
    params.assign(static_cast<size_t>(total), T(0));
    grads.assign(static_cast<size_t>(total), T(0));
    std::mt19937_64 rng(seed);
    int64_t off = 0;
    for (auto& l : layers) {
      l->bind(params.data() + off, grads.data() + off);
      l->init(rng, init);
      off += l->param_count();
    }
  }
  void disarm() {
    for (auto* l : fused) l->disarm_packed_weights();
  }
  // Softmax cross-entropy on the logits: the summed loss; d(mean loss)/d logits to dlogits.
  double loss(const int32_t* labels, int64_t batch, T* dlogits, int64_t* errors) {
    return (*softmax)(acts.back(), labels, batch, dlogits, errors, pool.get());
  }
  void forward(int64_t batch, bool training) {
    if (batch < 1 || batch > max_batch)
      throw std::invalid_argument("batch " + std::to_string(batch) + " outside [1, max_batch]");
    for (auto& l : layers) l->set_training(training);
    for (size_t i = 0; i < layers.size(); ++i)
      layers[i]->forward(acts[i], acts[i + 1], batch);
  }
};

template <class T>
Network<T>::Network(const ResolvedNetwork& net, int64_t max_batch, uint64_t seed, WeightInit init,
                    int threads, StepPath path)
    : m(std::make_unique<Impl>()) {
  m->fast = resolve_step_path(path) == StepPath::Fast;
  if (threads < 1 || threads > kMaxTrialThreads)
    throw std::invalid_argument("threads must be in [1, " + std::to_string(kMaxTrialThreads) +
                                "]");
  if (threads > 1) {
    m->pool = std::make_unique<trainer_detail::WorkerPool>(threads);
    m->gemm_ws.set_pool(m->pool.get());
  }
  if (net.layers.empty() || net.layers.back().spec.kind != LayerKind::SoftmaxCrossEntropy)
    throw std::invalid_argument("the trainer needs a softmax_cross_entropy last layer");
  if (max_batch < 1) throw std::invalid_argument("max_batch must be >= 1");
  m->max_batch = max_batch;
  m->in_elems = net.input.elements();
  m->classes = net.layers.back().in.elements();
  m->softmax = std::make_unique<trainer_detail::SoftmaxLoss<T>>(m->classes, max_batch);
  m->storage.reserve(2 * net.layers.size());  // no reallocation: acts keeps pointers into it
  auto buffer = [&](int64_t elements) {
    m->storage.emplace_back(static_cast<size_t>(elements * max_batch));
    return m->storage.back().data();
  };
  m->acts.push_back(buffer(m->in_elems));
  m->dacts.push_back(buffer(m->in_elems));
  const std::vector<ResolvedLayer> order =
      m->fast ? trainer_order(net)
              : std::vector<ResolvedLayer>(net.layers.begin(), net.layers.end() - 1);
  for (const ResolvedLayer& l : order) {
    if (m->fast) {
      m->layers.push_back(trainer_detail::make_layer<T>(l, max_batch, &m->gemm_ws));
      m->fused.push_back(static_cast<trainer_detail::FusedLayer<T>*>(m->layers.back().get()));
    } else {
      m->layers.push_back(trainer_detail::make_reference_layer<T>(l, max_batch));
    }
    // A flatten keeps the memory order (HWC), so its output is its input: no copy either way.
    const bool flat = l.spec.kind == LayerKind::Flatten;
    m->acts.push_back(flat ? m->acts.back() : buffer(l.out.elements()));
    m->dacts.push_back(flat ? m->dacts.back() : buffer(l.out.elements()));
  }
  if (m->fast) m->fuse_neighbours(order);
  m->bind_and_init(seed, init);
  int64_t off = 0;
  for (size_t i = 0; i < m->fused.size(); ++i) {
    WeightGradBlock<T> r;
    if (m->fused[i]->weight_matrix(&r.rows, &r.cols)) {
      r.offset = off;
      r.dy = m->dacts[i + 1];
      r.x = m->acts[i];
      r.grad = m->grads.data() + off;
      r.ws = &m->gemm_ws;
      m->blocks.push_back(r);
      m->block_layers.push_back(i);
    }
    off += m->layers[i]->param_count();
  }
  m->deferred.reserve(m->blocks.size());
}

template <class T>
Network<T>::Network(const TransformerSpec& spec, int64_t max_sequences, uint64_t seed)
    : m(std::make_unique<Impl>()) {
  if (max_sequences < 1) throw std::invalid_argument("max_sequences must be >= 1");
  m->max_batch = max_sequences * spec.context;
  m->in_elems = 1;  // a token id
  m->classes = spec.vocab;
  std::vector<trainer_detail::SizedLayer<T>> layers =
      trainer_detail::make_transformer_layers<T>(spec, m->max_batch, seed);
  m->softmax = std::make_unique<trainer_detail::SoftmaxLoss<T>>(m->classes, m->max_batch);
  m->storage.reserve(2 * layers.size() + 2);  // no reallocation: acts keeps pointers into it
  auto buffer = [&](int64_t elements) {
    m->storage.emplace_back(static_cast<size_t>(elements * m->max_batch));
    return m->storage.back().data();
  };
  m->acts.push_back(buffer(1));
  m->dacts.push_back(buffer(1));
  for (auto& [layer, out] : layers) {
    m->layers.push_back(std::move(layer));
    m->acts.push_back(buffer(out));
    m->dacts.push_back(buffer(out));
  }
  m->bind_and_init(seed, WeightInit::Glorot);
}

template <class T>
Network<T>::~Network() = default;
template <class T>
Network<T>::Network(Network&&) noexcept = default;
template <class T>
Network<T>& Network<T>::operator=(Network&&) noexcept = default;

template <class T>
bool Network<T>::fast_path() const { return m->fast; }
template <class T>
int64_t Network<T>::max_batch() const { return m->max_batch; }
template <class T>
int64_t Network<T>::input_elements() const { return m->in_elems; }
template <class T>
int64_t Network<T>::classes() const { return m->classes; }
template <class T>
int64_t Network<T>::num_params() const { return static_cast<int64_t>(m->params.size()); }
template <class T>
T* Network<T>::params() {
  m->disarm();
  return m->params.data();
}
template <class T>
const T* Network<T>::params() const { return m->params.data(); }
template <class T>
const T* Network<T>::grads() const { return m->grads.data(); }
template <class T>
T* Network<T>::input() { return m->acts[0]; }
template <class T>
trainer_detail::WorkerPool* Network<T>::pool() const { return m->pool.get(); }
template <class T>
void Network<T>::set_compute_input_grad(bool on) { m->input_grad = on; }
template <class T>
const T* Network<T>::input_grad() const { return m->dacts[0]; }

template <class T>
void Network<T>::set_defer_weight_grads(bool on) {
  m->defer = on && m->fast;
  for (auto* l : m->fused) l->set_defer_weight_grad(on);
}
template <class T>
const std::vector<WeightGradBlock<T>>& Network<T>::deferred_weight_grads() const {
  return m->deferred;
}

template <class T>
bool Network<T>::fuse_next_product(const T* next_x) {
  if (!m->fast || m->deferred.empty()) return false;
  WeightGradBlock<T>& b = m->deferred.front();
  if (b.batch != 1 || b.x != m->acts[0]) return false;  // the input layer's block, at batch 1
  T* const sums = m->fused[m->first_trainable]->arm_next_product(next_x);
  if (!sums) return false;
  b.next_x = next_x;
  b.next_sums = sums;
  return true;
}

template <class T>
bool Network<T>::fuse_packed_weights() {
  // forward_backward defers all blocks or none, so deferred block i is layer block_layers[i]'s.
  if (!m->deferred.empty() && m->deferred.size() != m->block_layers.size()) {
    std::fprintf(stderr, "Network: %zu deferred blocks of %zu (internal bug)\n",
                 m->deferred.size(), m->block_layers.size());
    std::abort();
  }
  bool any = false;
  for (size_t i = 0; i < m->deferred.size(); ++i) {
    WeightGradBlock<T>& b = m->deferred[i];
    if (b.batch > 1) b.packed = m->fused[m->block_layers[i]]->arm_packed_weights(b.batch);
    any = any || b.packed;
  }
  return any;
}

template <class T>
double Network<T>::forward_backward(const int32_t* labels, int64_t batch) {
  m->forward(batch, true);
  m->deferred.clear();  // capacity kept: no allocation
  if (m->defer && trainer_detail::defers_weight_grad<T>(batch))
    for (WeightGradBlock<T> b : m->blocks) {
      b.batch = batch;
      m->deferred.push_back(b);
    }
  const double loss = m->loss(labels, batch, m->dacts.back(), nullptr) / double(batch);
  // A layer's input gradient is needed only if a layer below it has parameters (or the caller
  // asked for the input gradient): the MLP's first dense layer follows a flatten, and its input
  // gradient (784 x 256 x batch multiply-adds, a fifth of an MLP step) fed nothing.
  for (size_t i = m->layers.size(); i-- > 0;) {
    T* dx = (i > m->first_trainable || m->input_grad) ? m->dacts[i] : nullptr;
    m->layers[i]->backward(m->acts[i], m->acts[i + 1], m->dacts[i + 1], dx,
                           batch);
  }
  m->disarm();  // the weights change after this step
  return loss;
}

template <class T>
double Network<T>::evaluate(const int32_t* labels, int64_t batch, int64_t* errors) {
  m->forward(batch, false);
  return m->loss(labels, batch, nullptr, errors);
}

template class Network<float>;
template class Network<double>;

}  // namespace kp
