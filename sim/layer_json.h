#pragma once
// The per-layer fields both fidelities report beyond name, phase, GEMM, cycles, utilisation and
// seconds: compute and stall cycles, SRAM and DRAM bytes, per-action counts (energy) and tiles.
// Contract: writes keys into the JSON object the caller has open; every key names its unit.
#include "core/json_writer.h"
#include "sim/update_model.h"

namespace kp {

void write_layer_detail(JsonWriter& j, const LayerRecord& l);

}  // namespace kp
