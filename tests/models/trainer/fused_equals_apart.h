#pragma once
// The check shared by the fusion tests (relu_fusion_test.cpp, pool_fusion_test.cpp): a network
// whose layers the trainer fuses against one that computes the same function with the layers
// run apart. Both from seed 5 (the same parameters: the same layers with parameters, in the
// same order), fed the same inputs uniform in [input_lo, 1): the loss, every gradient and the
// input gradient bit for bit over two steps (the second from updated weights), then the
// evaluation's loss and errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/network_spec.h"
#include "models/trainer/network.h"

namespace kp::test {

template <class T>
void expect_fused_equals_apart(const ResolvedNetwork& fused_net, const ResolvedNetwork& apart_net,
                               int64_t batch, int threads, float input_lo) {
  Network<T> fused(fused_net, batch, 5, WeightInit::He, threads);
  Network<T> apart(apart_net, batch, 5, WeightInit::He, threads);
  ASSERT_EQ(fused.num_params(), apart.num_params());
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(input_lo, 1);
  for (int64_t i = 0; i < fused.input_elements() * batch; ++i)
    fused.input()[i] = apart.input()[i] = T(u(rng));
  std::vector<int32_t> labels;
  for (int64_t n = 0; n < batch; ++n) labels.push_back(int32_t(n % fused.classes()));
  fused.set_compute_input_grad(true);
  apart.set_compute_input_grad(true);
  const std::string where = "batch " + std::to_string(batch) + ", " + std::to_string(threads) +
                            " thread(s), " + (sizeof(T) == 4 ? "float" : "double");
  for (int step = 0; step < 2; ++step) {  // the second step starts from updated weights
    ASSERT_EQ(fused.forward_backward(labels.data(), batch),
              apart.forward_backward(labels.data(), batch))
        << where;
    for (int64_t i = 0; i < fused.num_params(); ++i)
      ASSERT_EQ(fused.grads()[i], apart.grads()[i]) << where << ", parameter " << i;
    for (int64_t i = 0; i < fused.input_elements() * batch; ++i)
      ASSERT_EQ(fused.input_grad()[i], apart.input_grad()[i]) << where << ", input " << i;
    for (int64_t i = 0; i < fused.num_params(); ++i) {
      fused.params()[i] -= T(0.1) * fused.grads()[i];
      apart.params()[i] -= T(0.1) * apart.grads()[i];
    }
  }
  int64_t errors_fused = 0, errors_apart = 0;  // evaluation runs the fused forward too
  ASSERT_EQ(fused.evaluate(labels.data(), batch, &errors_fused),
            apart.evaluate(labels.data(), batch, &errors_apart))
      << where;
  EXPECT_EQ(errors_fused, errors_apart) << where;
}

}  // namespace kp::test
