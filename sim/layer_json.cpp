#include "sim/layer_json.h"

namespace kp {

void write_layer_detail(JsonWriter& j, const LayerRecord& l) {
  j.key("compute_cycles").value(l.compute_cycles).key("stall_cycles").value(l.stall_cycles);
  j.key("sram_bytes").value(l.sram_bytes).key("dram_read_bytes").value(l.dram_read_bytes);
  j.key("dram_write_bytes").value(l.dram_write_bytes);
  j.key("macs").value(l.macs).key("vector_ops").value(l.vector_ops).key("tiles").value(l.tiles);
}

}  // namespace kp
