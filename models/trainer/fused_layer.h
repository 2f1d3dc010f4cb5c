#pragma once
// The fast path's layers (AVX-512 kernels, fusion with neighbours): Layer plus the hooks through
// which the network fuses a layer with its neighbours and the optimizer's update. Each hook's
// values are those of running the layers apart. Internal to kp_trainer (includes Eigen; compiled
// with the trainer's own flags, so never include it from outside models/trainer).
#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/network_spec.h"
#include "models/trainer/gemm.h"
#include "models/trainer/layers.h"

namespace kp::trainer_detail {

// A layer that works sample by sample (max-pool), so that the layer before it can run it on each
// chunk of samples it has just computed, while the chunk is in cache (conv2d.cpp). x and dx are
// the chunk's own buffers (sample n0 first); y and dy the whole batch's, as in Layer.
template <class T>
class SampleStage {
 public:
  virtual void forward_samples(const T* x, T* y, int64_t n0, int64_t nb) = 0;
  virtual void backward_samples(const T* dy, T* dx, int64_t n0, int64_t nb) = 0;

 protected:
  ~SampleStage() = default;
};

template <class T>
class FusedLayer : public Layer<T> {
 public:
  // A dense layer's weight block (rows = outputs, cols = inputs, at the start of its
  // parameters); with deferral on, backward() leaves that gradient unwritten where
  // defers_weight_grad<T>(batch).
  virtual bool weight_matrix(int64_t* /*rows*/, int64_t* /*cols*/) const { return false; }
  void set_defer_weight_grad(bool on) { m_defer_weight_grad = on; }
  // Fusion with a neighbouring ReLU, chosen by the network; the values are those of running it
  // apart. After fuse_relu_output(y), forward() writes the ReLU of its output to y (its own
  // output buffer then only holds scratch); after fuse_relu_input_grad(dx), backward() writes its
  // input gradient masked by x > 0 (x: the previous ReLU's output) to dx (its own dx: scratch).
  // Each returns false where the layer cannot fuse (then nothing changes).
  virtual bool fuse_relu_output(T* /*relu_y*/) { return false; }
  virtual bool fuse_relu_input_grad(T* /*relu_dx*/) { return false; }
  // Where the layer after the ReLU does not take its backward, the layer before may: after
  // fuse_relu_output(y) and then fuse_relu_output_grad(dy), backward() uses the ReLU's output
  // gradient dy, masked by y > 0, as its own output gradient.
  virtual bool fuse_relu_output_grad(const T* /*relu_dy*/) { return false; }
  // Fusion with the next layer when that one works sample by sample (its sample_stage() is not
  // null): after fuse_next(stage, y, dy), forward() runs the stage on its output chunk by chunk
  // into the stage's output y, and backward() forms its output gradient from the stage's dy the
  // same way; its own output buffer and output gradient are then unused. False where the layer
  // does not fuse (then nothing changes).
  virtual SampleStage<T>* sample_stage() { return nullptr; }
  virtual bool fuse_next(SampleStage<T>* /*stage*/, T* /*y*/, const T* /*dy*/) { return false; }
  // A ReLU or max-pool whose forward or backward a neighbour took over computes nothing there.
  virtual void skip_fused(bool /*forward*/, bool /*backward*/) {}
  // Batch 1 (a dense layer, float with AVX-512): where the optimizer's next step writes this
  // layer's product for the input next_x (its column parts' sums), or null where it cannot. The
  // next batch-1 forward whose input equals next_x bit for bit takes those sums instead of
  // multiplying (the same values: column_panels.h); the parameters must change only by that
  // step in between.
  virtual T* arm_next_product(const T* /*next_x*/) { return nullptr; }
  // Above batch 1 (a dense layer, float with AVX-512): the panels its forward's product reads
  // the weights from at this batch, which the optimizer's next step fills with the new weights,
  // or null where the layer packs none or is too small to gain (dense.cpp). Until
  // disarm_packed_weights(), forwards and input gradients read the weights from there; the
  // parameters must change only by that step in between.
  virtual trainer_detail::PackedA* arm_packed_weights(int64_t /*batch*/) { return nullptr; }
  virtual void disarm_packed_weights() {}

 protected:
  bool m_defer_weight_grad = false;
};

// Whether a deferred dense weight gradient is left to the optimizer at this batch: the outer
// product at batch 1; the fused GEMM epilogue up to kFusedMaxBatch, for float with the AVX-512
// sgemm. Above, the product dominates and the update's weights and velocities, streamed between
// the GEMM's depth blocks, evicted its packed panels from L2 (MLP b=1024: 10% slower fused,
// b=4..128: 1.0-1.6x faster; bench_trainer on the Xeon of models/trainer/README.md).
constexpr int64_t kFusedMaxBatch = 256;
template <class T>
bool defers_weight_grad(int64_t batch) {
  return batch == 1 ||
         (std::is_same_v<T, float> && sgemm_available() && batch <= kFusedMaxBatch);
}

// Throws std::invalid_argument for a layer kind the trainer does not implement. Layers with
// products reserve their packing space in `ws` (shared by the network's layers: one runs at a
// time) and keep the pointer.
template <class T>
std::unique_ptr<FusedLayer<T>> make_layer(const ResolvedLayer& layer, int64_t max_batch,
                                          GemmWorkspace* ws);

}  // namespace kp::trainer_detail
