#pragma once
// Softmax cross-entropy over a batch of logits (classes x batch, column-major), the trainer's
// loss. Contract: operator() returns the loss summed over the batch (the caller divides by the
// batch for the mean), writes d(mean loss)/d logits to dlogits if not null and adds the count of
// misclassified samples (arg max != label; the first maximum wins) to *errors if not null. The
// samples are split across the pool's threads (if any): each sample is computed alike on any
// thread and the sum is taken in sample order afterwards, so the values do not depend on the
// threads. Each softmax is computed in double from max-shifted logits. No allocation after
// construction. Throws std::out_of_range for a label outside [0, classes), before any change.
// Internal to kp_trainer.
#include <cstdint>
#include <vector>

namespace kp::trainer_detail {

class WorkerPool;

template <class T>
class SoftmaxLoss {
 public:
  SoftmaxLoss(int64_t classes, int64_t max_batch);
  double operator()(const T* logits, const int32_t* labels, int64_t batch, T* dlogits,
                    int64_t* errors, WorkerPool* pool);

 private:
  void samples(const T* logits, const int32_t* labels, int64_t batch, int64_t n0, int64_t n1,
               T* dlogits);
  int64_t m_classes;
  std::vector<double> m_loss;   // each sample's loss
  std::vector<double> m_exp;    // each sample's exp(z - max z), computed once
  std::vector<uint8_t> m_wrong; // each sample's arg max != label
};

}  // namespace kp::trainer_detail
