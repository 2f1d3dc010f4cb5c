# Script mode (cmake -P), run by the kneepoint_man target: writes the man page OUT with help2man
# from `KNEEPOINT --help` and `--version`, plus one section per verb holding that verb's --help,
# so the page lists every option and cannot drift from the CLI.
# Inputs: -DKNEEPOINT=<the built CLI> -DHELP2MAN=<help2man> -DOUT=<page>.
foreach(var KNEEPOINT HELP2MAN OUT)
  if(NOT ${var})
    message(FATAL_ERROR "kneepoint_man.cmake: -D${var}= is required")
  endif()
endforeach()

execute_process(COMMAND ${KNEEPOINT} --complete OUTPUT_VARIABLE verbs RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${KNEEPOINT} --complete failed (${rc})")
endif()
string(REGEX REPLACE "\n$" "" verbs "${verbs}")
string(REPLACE "\n" ";" verbs "${verbs}")

set(text "[VERB OPTIONS]\nEvery verb prints the same with\n.B kneepoint\n.I VERB\n.BR \\-\\-help .\n")
foreach(verb ${verbs})
  execute_process(COMMAND ${KNEEPOINT} ${verb} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${KNEEPOINT} ${verb} --help failed (${rc})")
  endif()
  # roff: a backslash is \e, a line may not start with . or ', a minus sign is \-.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REPLACE "-" "\\-" help "${help}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
  string(APPEND text ".SS ${verb}\n.nf\n${help}.fi\n")
endforeach()
string(APPEND text "[SEE ALSO]\nThe docs/ folder of the kneepoint sources: how to write a hardware file\n"
       "(docs/howto_hardware.md) and a workload (docs/howto_workload.md), and the sources the\n"
       "shipped files cite (docs/REFERENCES.md).\n")

get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(WRITE ${OUT}.h2m "${text}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --section=1 --include=${OUT}.h2m
          "--name=training time on hardware that does not exist yet" --output=${OUT} ${KNEEPOINT}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
