#pragma once
// A software prefetch hint for the trainer's streaming loops: the GEMM's depth loop
// (gemm_depth_loop.h) and the optimizer's update (update_lanes.h). Internal to kp_trainer; x86
// only, like the rest of the build.
#include <xmmintrin.h>

#include <cstdint>

namespace kp::trainer_detail {

// A hint to load the line `floats` past p into L1. Integer arithmetic: the address may lie past
// the operand's end (a prefetch never faults), where pointer arithmetic would be undefined.
inline void prefetch(const float* p, int64_t floats) {
  const auto addr = reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(floats) * sizeof(float);
  _mm_prefetch(reinterpret_cast<const char*>(addr), _MM_HINT_T0);
}

}  // namespace kp::trainer_detail
