#include "models/trainer/softmax_loss.h"

#include <cmath>
#include <stdexcept>

#include "models/trainer/worker_pool.h"

namespace kp::trainer_detail {

namespace {

// Below this batch one thread computes the loss: a sample costs ~0.1-0.2 us (2 x classes exps
// for 10 classes), a fork-join ~1-5 us. At batch 1024 the loss ran on one thread for ~0.1-0.2
// ms of a ~6 ms MLP step on two threads, the helper idle.
constexpr int64_t kParallelMinSamples = 256;

}  // namespace

template <class T>
SoftmaxLoss<T>::SoftmaxLoss(int64_t classes, int64_t max_batch)
    : m_classes(classes),
      m_loss(static_cast<size_t>(max_batch)),
      m_exp(static_cast<size_t>(max_batch * classes)),
      m_wrong(static_cast<size_t>(max_batch)) {}

template <class T>
void SoftmaxLoss<T>::samples(const T* logits, const int32_t* labels, int64_t batch, int64_t n0,
                             int64_t n1, T* dlogits) {
  const int64_t classes = m_classes;
  for (int64_t n = n0; n < n1; ++n) {
    const T* zn = logits + n * classes;
    double* en = m_exp.data() + n * classes;
    const int32_t y = labels[n];
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c)
      if (zn[c] > zn[best]) best = c;
    const T zmax = zn[best];
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) {
      en[c] = std::exp(double(zn[c] - zmax));
      sum += en[c];
    }
    m_loss[static_cast<size_t>(n)] = std::log(sum) - double(zn[y] - zmax);
    m_wrong[static_cast<size_t>(n)] = best != y;
    if (dlogits) {
      T* dn = dlogits + n * classes;
      const double inv = 1.0 / (sum * double(batch));
      for (int64_t c = 0; c < classes; ++c) dn[c] = static_cast<T>(en[c] * inv);
      dn[y] -= static_cast<T>(1.0 / double(batch));
    }
  }
}

template <class T>
double SoftmaxLoss<T>::operator()(const T* logits, const int32_t* labels, int64_t batch,
                                  T* dlogits, int64_t* errors, WorkerPool* pool) {
  if (batch > static_cast<int64_t>(m_loss.size()))
    throw std::invalid_argument("SoftmaxLoss: batch above the constructed maximum");
  for (int64_t n = 0; n < batch; ++n)
    if (labels[n] < 0 || labels[n] >= m_classes)
      throw std::out_of_range("label outside [0, classes)");
  parallel_for(pool, batch, kParallelMinSamples,
               [&](int64_t n0, int64_t n1) { samples(logits, labels, batch, n0, n1, dlogits); });
  double total = 0;
  int64_t wrong = 0;
  for (int64_t n = 0; n < batch; ++n) {
    total += m_loss[static_cast<size_t>(n)];
    wrong += m_wrong[static_cast<size_t>(n)];
  }
  if (errors) *errors += wrong;
  return total;
}

template class SoftmaxLoss<float>;
template class SoftmaxLoss<double>;

}  // namespace kp::trainer_detail
