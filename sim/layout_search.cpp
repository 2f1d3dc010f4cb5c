#include "sim/layout_search.h"

#include <limits>
#include <stdexcept>

namespace kp {

LayoutModel::LayoutModel(std::shared_ptr<const LayoutUpdate> update, LayoutChoice choice,
                         std::shared_ptr<const LayoutUpdate> final)
    : m_update(std::move(update)), m_final(std::move(final)), m_choice(choice) {}

UpdateResult LayoutModel::result_of(const LayoutResult& r) const {
  UpdateResult u = r.update;
  u.layout = r.layout;
  u.layout.micro_batch = r.micro_batch;
  u.memory = memory_parts(r.footprint);
  u.fits = r.fits;
  return u;
}

std::string LayoutModel::problem(int64_t batch, int64_t learners) const {
  if (m_choice.search) return "";
  const std::string why = m_update->problem(m_choice.fixed, learners);
  if (!why.empty()) return why;
  const Layout l = layout_for_chips(m_choice.fixed, learners);
  if (batch < l.dp) return "a batch of " + std::to_string(batch) + " is smaller than dp = " + std::to_string(l.dp);
  return "";
}

UpdateResult LayoutModel::simulate(int64_t batch, int64_t learners, std::vector<LayerRecord>*) const {
  if (batch < 1 || learners < 1) throw std::invalid_argument("simulate: batch and learners must be >= 1");
  if (!m_choice.search) {
    if (!problem(batch, learners).empty()) {
      UpdateResult none;
      none.fits = false;
      none.layout = m_choice.fixed;
      return none;
    }
    const Layout l = layout_for_chips(m_choice.fixed, learners);
    ++m_evaluated;
    return result_of((m_final ? m_final : m_update)->simulate(batch, l));
  }
  bool have = false, have_fit = false;
  LayoutResult best;
  for (int64_t tp = 1; tp <= learners && tp <= 1024; tp *= 2)
    for (int64_t pp = 1; tp * pp <= learners; pp *= 2) {
      Layout base;
      base.tp = tp, base.pp = pp;
      if (!m_update->problem(base, learners).empty()) continue;
      base = layout_for_chips(base, learners);
      if (batch < base.dp) continue;
      const int64_t replica = (batch + base.dp - 1) / base.dp;
      for (int zero = 0; zero <= (base.dp > 1 ? 3 : 0); ++zero)
        for (int64_t micro = 0; micro <= replica; micro = micro == 0 ? 1 : 2 * micro)
          for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
            Layout l = base;
            l.zero = zero, l.micro_batch = micro, l.recompute = rc;
            const LayoutResult r = m_update->simulate(batch, l);
            ++m_evaluated;
            const double t = r.update.breakdown.t_update_s;
            if (r.fits) {
              if (!have_fit || t < best.update.breakdown.t_update_s) best = r;
              have = have_fit = true;
              break;  // heavier recomputation only costs time
            }
            if (!have_fit && (!have || r.footprint.total_bytes() < best.footprint.total_bytes())) best = r, have = true;
          }
    }
  if (!have) {
    UpdateResult none;
    none.fits = false;
    return none;
  }
  if (m_final) {
    Layout l = best.layout;
    l.micro_batch = best.micro_batch;
    return result_of(m_final->simulate(batch, l));
  }
  return result_of(best);
}

}  // namespace kp
