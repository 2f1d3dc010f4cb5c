#include "models/trainer/trainer.h"

#include "models/trainer/splitmix.h"
#include "models/trainer/worker_pool.h"

#include <xmmintrin.h>  // MXCSR: x86-64 only, like the rest of the build

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kp {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t k_eval_chunk = 256;

// Flush-to-zero and denormals-are-zero for the scope of one step, restored after. Momentum
// buffers of parameters whose gradient is zero (dead ReLUs, b = 1) decay geometrically into
// denormals, which cost ~100x per operation on x86 and made the optimizer 60% of an MLP b=1 step.
// MXCSR is per thread, so this cannot affect concurrent trials; same seed, same result.
class FlushDenormals {
 public:
  FlushDenormals() : m_saved(_mm_getcsr()) { _mm_setcsr(m_saved | 0x8040); }  // FTZ | DAZ
  ~FlushDenormals() { _mm_setcsr(m_saved); }
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  unsigned m_saved;
};

int64_t checked_max_batch(const Dataset& data, const TrialConfig& cfg) {
  if (cfg.batch < 1) throw std::invalid_argument("batch must be >= 1");
  if (cfg.batch > data.train.n)
    throw std::invalid_argument("batch " + std::to_string(cfg.batch) +
                                " exceeds the training set (" + std::to_string(data.train.n) + ")");
  return std::max(cfg.batch, k_eval_chunk);
}

}  // namespace

Trainer::Trainer(const ResolvedNetwork& net, const Dataset& data, const TrialConfig& config)
    : m_data(data),
      m_cfg(config),
      m_net(net, checked_max_batch(data, config), config.seed, config.init, config.threads,
            config.path),
      m_opt(config.optimizer, m_net.num_params(), m_net.pool(), config.grad_sq_norm,
            !m_net.fast_path()),
      m_perm(static_cast<size_t>(data.train.n)),
      m_labels(static_cast<size_t>(m_net.max_batch())),
      m_next_x(static_cast<size_t>(m_net.input_elements())) {
  if (data.train.sample.elements() != m_net.input_elements())
    throw std::invalid_argument("the dataset's samples do not match the network input");
  m_pos = data.train.n;  // forces a shuffle before the first batch
  // The fused update forms the dense weight gradients; the Adam family's plain loop cannot.
  m_net.set_defer_weight_grads(!is_adam_family(config.optimizer.kind));
}

const int64_t* Trainer::draw() {
  const int64_t n = m_data.train.n;
  if (m_pos + m_cfg.batch > n) {  // a new epoch; the incomplete tail of the last one is dropped
    for (int64_t i = 0; i < n; ++i) m_perm[static_cast<size_t>(i)] = i;
    uint64_t state = splitmix64(m_cfg.seed * 0x100000001b3ull + static_cast<uint64_t>(m_epoch));
    for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates with a portable draw
      state = splitmix64(state);
      const int64_t j = static_cast<int64_t>(state % static_cast<uint64_t>(i + 1));
      std::swap(m_perm[static_cast<size_t>(i)], m_perm[static_cast<size_t>(j)]);
    }
    m_pos = 0;
    ++m_epoch;
  }
  const int64_t* idx = m_perm.data() + m_pos;
  m_pos += m_cfg.batch;
  return idx;
}

void Trainer::next_batch() {
  const Split& s = m_data.train;
  const int64_t per = s.sample.elements();
  float* x = m_net.input();
  int32_t* labels = m_labels.data();
  if (m_next_drawn) {  // batch 1: drawn by the last step
    std::copy(m_next_x.begin(), m_next_x.end(), x);
    labels[0] = m_next_label;
    m_next_drawn = false;
    return;
  }
  const int64_t* idx = draw();
  // Split across a multi-threaded trial's threads by samples (each writes its own columns):
  // on one thread the gather kept the helper waiting for ~1.5% of an MLP b=128 step.
  trainer_detail::parallel_for(m_net.pool(), m_cfg.batch, 16, [&](int64_t lo, int64_t hi) {
    gather(s, idx + lo, hi - lo, x + lo * per, labels + lo);
  });
}

double Trainer::step() {
  const FlushDenormals ftz;
  next_batch();
  const double loss = m_net.forward_backward(m_labels.data(), m_cfg.batch);
  if (m_cfg.batch == 1) {
    // The next sample now, so that the update can form the first layer's product for it while
    // it writes that layer's weights (Network::fuse_next_product): one pass over them a step,
    // not two. MLP b=1 +28% on one thread (7 of 8 alternating bench pairs), +34% on two.
    gather(m_data.train, draw(), 1, m_next_x.data(), &m_next_label);
    m_next_drawn = true;
    m_net.fuse_next_product(m_next_x.data());
  }
  float* const w = m_net.params();  // first: it drops what fuse_packed_weights() arms
  // The update writes the large dense layers' new weights in their forward's panels as well:
  // the next forward reads those instead of packing the weights (Network::fuse_packed_weights).
  if (m_cfg.batch > 1) m_net.fuse_packed_weights();
  const auto& r1 = m_net.deferred_weight_grads();
  m_grad_sq = m_opt.step(w, m_net.grads(), m_step, r1.data(), r1.size());
  m_grad_sq_fused = !r1.empty();
  ++m_step;
  return loss;
}

double Trainer::last_grad_sq_norm() const {
  if (!m_cfg.grad_sq_norm)
    throw std::logic_error("last_grad_sq_norm() of a trial configured without grad_sq_norm");
  if (m_grad_sq_fused) return m_grad_sq;  // grads() lacks the deferred dense weight gradients
  const float* g = m_net.grads();
  double s = 0;
  for (int64_t i = 0, n = m_net.num_params(); i < n; ++i) s += double(g[i]) * g[i];
  return s;
}

double Trainer::evaluate(const Split& split) {
  if (split.n == 0) return 0;
  const FlushDenormals ftz;
  std::vector<int64_t> idx(static_cast<size_t>(k_eval_chunk));  // per evaluation, not per step
  int64_t errors = 0;
  for (int64_t b = 0; b < split.n; b += k_eval_chunk) {
    const int64_t count = std::min(k_eval_chunk, split.n - b);
    for (int64_t i = 0; i < count; ++i) idx[static_cast<size_t>(i)] = b + i;
    gather(split, idx.data(), count, m_net.input(), m_labels.data());
    m_net.evaluate(m_labels.data(), count, &errors);
  }
  return double(errors) / double(split.n);
}

bool Trainer::error_at_most(const Split& split, double target) {
  if (split.n == 0) return 0 <= target;
  const double n = double(split.n);
  // The largest error count e with e / n <= target, exactly as evaluate() divides.
  int64_t max_errors = static_cast<int64_t>(std::floor(target * n));
  while (max_errors < split.n && double(max_errors + 1) / n <= target) ++max_errors;
  while (max_errors >= 0 && double(max_errors) / n > target) --max_errors;
  if (max_errors < 0) return false;
  const FlushDenormals ftz;
  int64_t idx[k_eval_chunk];
  int64_t errors = 0;
  for (int64_t b = 0; b < split.n; b += k_eval_chunk) {
    const int64_t count = std::min(k_eval_chunk, split.n - b);
    for (int64_t i = 0; i < count; ++i) idx[i] = b + i;
    gather(split, idx, count, m_net.input(), m_labels.data());
    m_net.evaluate(m_labels.data(), count, &errors);
    if (errors > max_errors) return false;
  }
  return true;
}

TrialResult train_trial(const ResolvedNetwork& net, const Dataset& data, const TrialConfig& config,
                        int64_t stop_after_steps, StepObserver* observer) {
  const auto t0 = Clock::now();
  Trainer trainer(net, data, config);
  TrialResult r;
  const int64_t budget =
      stop_after_steps > 0 ? std::min(stop_after_steps, config.max_steps) : config.max_steps;
  const int64_t eval_every = std::max<int64_t>(config.eval_every, 1);
  double update_s = 0, loss_sum = 0;
  int64_t loss_count = 0;
  while (r.steps < budget) {
    const auto s0 = Clock::now();
    const double loss = trainer.step();
    update_s += std::chrono::duration<double>(Clock::now() - s0).count();
    ++r.steps;
    if (observer) observer->on_step(r.steps, loss, trainer);
    if (!std::isfinite(loss) || loss > config.divergence_loss) {
      r.diverged = true;
      break;
    }
    loss_sum += loss;
    ++loss_count;
    if (r.steps % eval_every == 0 || r.steps == budget) {
      const double err = trainer.evaluate(data.validation);
      r.curve.push_back({r.steps, err, loss_sum / double(loss_count)});
      loss_sum = 0;
      loss_count = 0;
      if (err <= config.target_error) {
        r.steps_to_target = r.steps;
        break;
      }
    }
  }
  r.mean_update_s = r.steps > 0 ? update_s / double(r.steps) : 0;
  r.wall_time_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

TrialConfig trial_config_from(const WorkloadSpec& w, int64_t batch) {
  TrialConfig c;
  c.batch = batch;
  c.optimizer = w.optimizer;
  c.max_steps = w.target.max_steps;
  c.eval_every = w.target.eval_every;
  c.target_error = w.target.validation_error;
  c.init = w.init;
  return c;
}

}  // namespace kp
