# End-to-end check of `kneepoint scalesim` (run by ctest through cmake -P):
#   GOLDEN set: COMPUTE_REPORT.csv written to OUT must equal GOLDEN byte for byte.
#   EXPECT_ERROR set: the run must exit 2 and print EXPECT_ERROR on stderr.
#   INPUT_TYPE (conv by default): the topology format, passed as -i.
if(NOT DEFINED INPUT_TYPE)
  set(INPUT_TYPE conv)
endif()
execute_process(COMMAND ${KNEEPOINT} scalesim -c ${CFG} -t ${TOPO} -i ${INPUT_TYPE} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(DEFINED EXPECT_ERROR)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "expected exit 2, got ${rc}: ${err}")
  endif()
  string(FIND "${err}" "${EXPECT_ERROR}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected \"${EXPECT_ERROR}\" on stderr, got: ${err}")
  endif()
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kneepoint scalesim failed (${rc}): ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/COMPUTE_REPORT.csv ${GOLDEN}
                RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  file(READ ${OUT}/COMPUTE_REPORT.csv ours)
  file(READ ${GOLDEN} ref)
  message(FATAL_ERROR "COMPUTE_REPORT.csv differs from ${GOLDEN}\nours:\n${ours}\nSCALE-Sim:\n${ref}")
endif()
