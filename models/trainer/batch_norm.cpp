#include "models/trainer/batch_norm.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace kp::trainer_detail {

namespace {

constexpr double kEps = 1e-5, kMomentum = 0.1;  // PyTorch's defaults

// Activations are (features, batch) with features channels-last (HWC), so channel c of sample n
// at pixel s is x[(n * S + s) * C + c]: the per-channel loops run over rows of C contiguous
// values, N * S of them, and the sums over those rows are taken in that order.
template <class T>
class BatchNorm final : public FusedLayer<T> {
 public:
  explicit BatchNorm(const ResolvedLayer& l)
      : m_c(l.in.c), m_s(l.in.h * l.in.w), m_name(l.spec.name) {
    this->m_params = 2 * m_c;
    for (std::vector<double>* v : {&m_mean, &m_inv_std, &m_run_mean, &m_sum, &m_sum2})
      v->assign(static_cast<size_t>(m_c), 0.0);
    m_run_var.assign(static_cast<size_t>(m_c), 1.0);
  }
  void init(std::mt19937_64&, WeightInit) override {
    std::fill(this->m_w, this->m_w + m_c, T(1));
    std::fill(this->m_w + m_c, this->m_w + 2 * m_c, T(0));
  }
  void forward(const T* x, T* y, int64_t batch) override {
    const int64_t rows = batch * m_s;
    if (this->m_training) {
      if (rows < 2)
        throw std::invalid_argument("layer \"" + m_name + "\": batch_norm needs more than one "
                                    "value per channel to train (batch x height x width >= 2)");
      column_sums(x, rows, nullptr, m_sum);  // mean first, then the centred squares (two passes)
      for (int64_t c = 0; c < m_c; ++c) m_mean[size_t(c)] = m_sum[size_t(c)] / double(rows);
      column_sums(x, rows, m_mean.data(), m_sum2);
      for (int64_t c = 0; c < m_c; ++c) {
        const size_t i = size_t(c);
        const double var = m_sum2[i] / double(rows);
        m_inv_std[i] = 1.0 / std::sqrt(var + kEps);
        m_run_mean[i] = (1 - kMomentum) * m_run_mean[i] + kMomentum * m_mean[i];
        m_run_var[i] = (1 - kMomentum) * m_run_var[i] + kMomentum * var * double(rows) / double(rows - 1);
      }
      normalise(x, y, rows, m_mean.data(), m_inv_std.data());
    } else {
      for (int64_t c = 0; c < m_c; ++c)
        m_sum[size_t(c)] = 1.0 / std::sqrt(m_run_var[size_t(c)] + kEps);  // scratch: 1/std
      normalise(x, y, rows, m_run_mean.data(), m_sum.data());
    }
  }
  // Training-mode derivative (the last forward's batch statistics):
  //   dgamma = sum dy xhat, dbeta = sum dy, dx = gamma / std (dy - dbeta/N - xhat dgamma/N).
  void backward(const T* x, const T*, const T* dy, T* dx, int64_t batch) override {
    const int64_t rows = batch * m_s;
    for (int64_t c = 0; c < m_c; ++c) m_sum[size_t(c)] = m_sum2[size_t(c)] = 0.0;
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * m_c;
      const T* dr = dy + r * m_c;
      for (int64_t c = 0; c < m_c; ++c) {
        const size_t i = size_t(c);
        m_sum[i] += double(dr[c]);
        m_sum2[i] += double(dr[c]) * (double(xr[c]) - m_mean[i]) * m_inv_std[i];
      }
    }
    T* dgamma = this->m_dw;
    T* dbeta = this->m_dw + m_c;
    for (int64_t c = 0; c < m_c; ++c) {
      dgamma[c] = static_cast<T>(m_sum2[size_t(c)]);
      dbeta[c] = static_cast<T>(m_sum[size_t(c)]);
    }
    if (!dx) return;
    const T* gamma = this->m_w;
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * m_c;
      const T* dr = dy + r * m_c;
      T* out = dx + r * m_c;
      for (int64_t c = 0; c < m_c; ++c) {
        const size_t i = size_t(c);
        const double xhat = (double(xr[c]) - m_mean[i]) * m_inv_std[i];
        out[c] = static_cast<T>(double(gamma[c]) * m_inv_std[i] *
                                (double(dr[c]) - (m_sum[i] + xhat * m_sum2[i]) / double(rows)));
      }
    }
  }

 private:
  // sums[c] = sum over rows of x (centre == null) or of (x - centre[c])^2.
  void column_sums(const T* x, int64_t rows, const double* centre, std::vector<double>& sums) {
    for (int64_t c = 0; c < m_c; ++c) sums[size_t(c)] = 0.0;
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * m_c;
      for (int64_t c = 0; c < m_c; ++c) {
        const double v = centre ? double(xr[c]) - centre[c] : double(xr[c]);
        sums[size_t(c)] += centre ? v * v : v;
      }
    }
  }
  void normalise(const T* x, T* y, int64_t rows, const double* mean, const double* inv_std) {
    const T* gamma = this->m_w;
    const T* beta = this->m_w + m_c;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < m_c; ++c)
        y[r * m_c + c] = static_cast<T>(double(gamma[c]) * (double(x[r * m_c + c]) - mean[c]) *
                                            inv_std[c] + double(beta[c]));
  }

  int64_t m_c, m_s;
  std::string m_name;
  std::vector<double> m_mean, m_inv_std;     // of the last training forward, for backward
  std::vector<double> m_run_mean, m_run_var;  // for evaluation
  std::vector<double> m_sum, m_sum2;          // scratch
};

}  // namespace

template <class T>
std::unique_ptr<FusedLayer<T>> make_batch_norm(const ResolvedLayer& layer) {
  return std::make_unique<BatchNorm<T>>(layer);
}

template std::unique_ptr<FusedLayer<float>> make_batch_norm<float>(const ResolvedLayer&);
template std::unique_ptr<FusedLayer<double>> make_batch_norm<double>(const ResolvedLayer&);

}  // namespace kp::trainer_detail
