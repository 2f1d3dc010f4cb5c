# Sources of the SCALE-Sim-exact fold timing and SCALE-Sim file formats, relative to sim/.
# Included by sim/CMakeLists.txt into kp_sim.
set(KP_SIM_SCALESIM_SOURCES
  fold_timing.cpp
  scalesim/text_fields.cpp
  scalesim/scalesim_config.cpp
  scalesim/topology.cpp
  scalesim/compute_report.cpp
  scalesim/stall_model.cpp
  scalesim/scalesim_run.cpp
)

# The SystemC model (issue 3), absolute paths: links PkgConfig::SYSTEMC, so it must stay out of
# kp_sim (libsystemc defines main()); tests/sim compiles it into its own binary.
set(KP_SIM_SYSTEMC_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/systolic_sc.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_pool.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_fork.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_dram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_sram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_dma.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/sc_compute_unit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/chip_executor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../systemc/scalesim_sc.cpp
)
