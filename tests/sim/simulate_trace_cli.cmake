# `kneepoint simulate --fidelity systemc --format json --trace TRACE` end to end (run by ctest through
# cmake -P): exit 0, per-layer stall cycles and DRAM bytes in the JSON, a trace with the DMA and DRAM
# channel tracks; on 8 learners of two nodes (NET_HW) also every link the all-reduce uses, with its
# collective steps; the same with the analytic fidelity is exit 2 naming --trace.
execute_process(COMMAND ${KNEEPOINT} simulate --hw ${HW} --workload ${WL} --batch 8 --fidelity systemc
                        --format json --trace ${TRACE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kneepoint simulate --trace failed (${rc}): ${err}")
endif()
foreach(key "\"fidelity\":\"systemc\"" "\"stall_cycles\":" "\"dram_read_bytes\":" "\"compute_cycles\":")
  string(FIND "${out}" "${key}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected ${key} in the JSON, got: ${out}")
  endif()
endforeach()
file(READ ${TRACE} trace)
foreach(track "\"DMA\"" "\"DRAM channel 0\"" "\"array 0\"" "\"vector unit 0\"")
  string(FIND "${trace}" "${track}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected the ${track} track in ${TRACE}")
  endif()
endforeach()
execute_process(COMMAND ${KNEEPOINT} simulate --hw ${HW} --workload ${WL} --batch 8 --trace ${TRACE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "--trace: error: a timeline needs --fidelity systemc" at)
if(NOT rc EQUAL 2 OR at EQUAL -1)
  message(FATAL_ERROR "expected exit 2 naming --trace, got ${rc}: ${err}")
endif()
execute_process(COMMAND ${KNEEPOINT} simulate --hw ${NET_HW} --workload ${WL} --batch 64 --learners 8
                        --fidelity systemc --trace ${TRACE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kneepoint simulate --learners 8 --trace failed (${rc}): ${err}")
endif()
file(READ ${TRACE} trace)
foreach(key "\"interconnect\"" "\"node 0 NIC up\"" "\"node 1 NIC down\"" "\"chip 3 -> node 0 host\""
            "\"bucket 0 step 0\"" "\"bucket 0 step 13\"" "\"array 0\"")
  string(FIND "${trace}" "${key}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected ${key} in ${TRACE}")
  endif()
endforeach()
string(FIND "${trace}" "\"bucket 0 step 14\"" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "a ring of 8 has 14 steps (0-13), ${TRACE} shows a step 14")
endif()
