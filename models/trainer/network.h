#pragma once
// A trainable network built from a ResolvedNetwork (the same Spec the simulator lowers). Contract:
// every buffer (activations, gradients, im2col columns) is allocated in the constructor for
// `max_batch` samples; a step allocates nothing. The last layer must be softmax_cross_entropy
// (the loss, mean over the batch). Parameters and their gradients each live in one flat array
// (layer by layer, weights then bias), so optimizers and gradient statistics are plain loops.
// T is float for training and double for the numeric gradient check. Not thread-safe; one
// Network per trial, and trials on different threads do not interact.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/network_spec.h"
#include "core/workload_spec.h"
#include "models/trainer/transformer_spec.h"

namespace kp {

namespace trainer_detail {
class GemmWorkspace;
class PackedA;
class WorkerPool;
}

constexpr int kMaxTrialThreads = 8;

// Which training step a network runs. Reference: each layer's forward and backward written
// plainly on Eigen's products (reference_layers.h), the optimizer a plain loop; single-threaded
// arithmetic, so the same bits on any thread count. Fast: the fused AVX-512 kernels
// (fused_layer.h), which agree with the reference to the tolerance stated in
// tests/models/trainer/reference_step_test.cpp. Auto: Fast where fast_path_available().
enum class StepPath { Auto, Reference, Fast };
// Whether the fast path can run: built with AVX-512 (KP_TRAINER_NATIVE on an AVX-512 CPU), the
// CPU has AVX-512F, and the environment does not set KP_TRAINER_PATH=reference (which runs
// everything, the test suite included, on the reference alone).
bool fast_path_available();
// Auto resolved; Fast where the fast path is unavailable throws std::invalid_argument.
StepPath resolve_step_path(StepPath path);
const char* step_path_name(StepPath path);

// Parameters [offset, offset + rows * cols) are a column-major rows x cols weight matrix whose
// gradient is dy x^T, dy (rows x batch) and x (cols x batch) column-major: a dense layer's
// weight gradient, left for the optimizer to form inside its update. At batch 1 it is an outer
// product; above, a GEMM whose tiles go straight into the update (`grad` holds its partial sums
// over depth blocks, `ws` its packing space; both belong to the network).
template <class T>
struct WeightGradBlock {
  int64_t offset = 0, rows = 0, cols = 0, batch = 1;
  const T* dy = nullptr;
  const T* x = nullptr;
  T* grad = nullptr;
  trainer_detail::GemmWorkspace* ws = nullptr;
  // Batch 1, set by Network::fuse_next_product: the update also writes the next step's product
  // W_new next_x, column part p's sums at next_sums + p * rows (the forward's parts and order).
  const T* next_x = nullptr;
  T* next_sums = nullptr;
  // Set by Network::fuse_packed_weights: the update also writes the new weights into this, in
  // the panels the layer's next forward product reads (gemm.h), instead of that product packing
  // them.
  trainer_detail::PackedA* packed = nullptr;
};

template <class T>
class Network {
 public:
  // Initialised from `seed` (He or Glorot). Throws std::invalid_argument for unsupported layers
  // or threads outside [1, kMaxTrialThreads]. With threads > 1 the large products are split
  // across that many threads (created here); every value is the same as with one thread.
  // On the reference path the threads serve only the loss (its values do not depend on them).
  Network(const ResolvedNetwork& net, int64_t max_batch, uint64_t seed,
          WeightInit init = WeightInit::He, int threads = 1, StepPath path = StepPath::Auto);
  // A causal transformer LM (transformer_spec.h) on the reference path: one "sample" of the
  // network is a token column (input: its id; label: the next token), so a batch of B
  // sequences is B * spec.context columns, up to max_sequences sequences. Glorot init.
  Network(const TransformerSpec& spec, int64_t max_sequences, uint64_t seed);
  ~Network();
  Network(Network&&) noexcept;
  Network& operator=(Network&&) noexcept;

  bool fast_path() const;  // the path resolved at construction is Fast
  int64_t max_batch() const;
  int64_t input_elements() const;   // per sample, channels-last (HWC)
  int64_t classes() const;
  int64_t num_params() const;
  // Writable parameters; drops the packed weights fuse_packed_weights() armed (the caller may
  // change the weights through this pointer).
  T* params();
  const T* params() const;
  const T* grads() const;

  // The batch is read from here: input_elements() x batch, column-major (one sample per column).
  T* input();
  // The trial's helper threads (null with one thread), for filling input() in parallel.
  trainer_detail::WorkerPool* pool() const;
  // Forward (training mode: batch norm normalises with the batch's statistics and updates its
  // running ones), loss and backward for `batch` samples of input(); returns the mean
  // cross-entropy and fills grads() (and input_grad() if enabled). Labels are in [0, classes()).
  double forward_backward(const int32_t* labels, int64_t batch);
  // Forward only, in evaluation mode (batch norm uses its running statistics); returns the
  // summed cross-entropy and adds misclassified samples to *errors.
  double evaluate(const int32_t* labels, int64_t batch, int64_t* errors);
  void set_compute_input_grad(bool on);
  const T* input_grad() const;
  // Leave the dense weight gradients out of grads() and describe them instead in
  // deferred_weight_grads() (valid until the next forward), so the optimizer forms them inside
  // its update: at batch 1 always, above batch 1 for float where the AVX-512 sgemm is built.
  // Fast path only: the reference path always writes every gradient to grads().
  void set_defer_weight_grads(bool on);
  // The deferred blocks of the last forward_backward (empty unless it deferred), by offset.
  const std::vector<WeightGradBlock<T>>& deferred_weight_grads() const;
  // After a batch-1 forward_backward that deferred: asks the optimizer's next step (on these
  // blocks) to also form the first layer's product for the next sample next_x (input_elements()
  // floats, unchanged until the next forward), as it writes that layer's new weights: one pass
  // over them a step instead of two. The next batch-1 forward whose input equals next_x then
  // skips that product; the parameters must change only by that step in between. False (and
  // nothing asked) where the first layer with parameters is not such a dense layer (float with
  // AVX-512, at most kColumnOrderMaxRows = 256 outputs). The values are those of the product
  // computed apart.
  bool fuse_next_product(const T* next_x);
  // After a forward_backward that deferred, at a batch above 1: asks the optimizer's next step
  // (on these blocks) to also write the new weights of each dense layer of >= 2^20 weights
  // whose forward packs them for its product (float with AVX-512, batch > 24) into the panels
  // that product reads, as the update writes them: those layers' forwards and the next input
  // gradient then read them instead of packing the weights (or their transpose), until the next
  // forward_backward has run or params() is called. So call params() first, and pass these
  // blocks to the optimizer before any forward. The values are those of the product packing
  // the weights itself. Returns whether a layer was armed.
  bool fuse_packed_weights();

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

extern template class Network<float>;
extern template class Network<double>;

}  // namespace kp
