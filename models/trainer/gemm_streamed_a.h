#pragma once
// Internal to gemm.cpp (AVX-512 builds only): a product whose A is read in place (few columns of
// C: the dense forward at batches <= 24) and large (>= kStreamedAMinFloats: from memory, not
// cache), computed in sub-blocks of kStreamedASteps depth steps across all of C's rows, so that
// each sub-block's columns of a column-major A (16 x lda floats, contiguous) stream from memory
// once, in order, instead of each 32-row panel walking the whole depth at a stride of lda
// (4 KiB for the Simple CNN's fc1). Each element of C keeps its partial sum between
// sub-blocks in `partial` (exact: a float stored and loaded back), so it is the same chain of
// FMAs over the depth block as the kernel's, added to C once: the values are bit-identical.
#include <cstdint>

#include "models/trainer/gemm.h"

namespace kp::trainer_detail {

constexpr int64_t kStreamedAMinFloats = int64_t{1} << 20;  // 4 MiB
constexpr int64_t kStreamedASteps = 16;

// Whether an in-place A of m x k goes by sub-blocks, given `partial_floats` of scratch.
bool streams_a(int64_t m, int64_t k, int64_t nc, int64_t nr, int64_t partial_floats);

// One depth block [pc, pc + kc) of C (m x nc at c, leading dimension ldc) (+)= A B: `a` is A at
// (0, pc) (column-major, lda), `wb` B's packed panels of this block (kNr columns each, panel jr
// at wb + jr * kc), `partial` scratch of round_up(m, 32) x round_up(nc, kNr) floats. acc: add to
// C; a sink, if given, receives the finished tiles (i_off, j_off: C's place in the product).
template <int64_t kNr>
void streamed_a_block(int64_t m, int64_t nc, int64_t kc, const float* a, int64_t lda,
                      const float* wb, float* partial, float* c, int64_t ldc, bool acc,
                      TileSink* sink, int64_t i_off, int64_t j_off, int part);

}  // namespace kp::trainer_detail
