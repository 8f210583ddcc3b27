# cmake -DBIN=<binary> [-DSUB=<subcommand>] -DEXPECTED=<lines joined by |> -P list_modes.cmake:
# `BIN [SUB] --list-modes` must print exactly EXPECTED (what tests/CMakeLists.txt read from
# src/modes/table.c with cmake/hk_modes.cmake), one line each.
execute_process(COMMAND ${BIN} ${SUB} --list-modes OUTPUT_VARIABLE out RESULT_VARIABLE rc)
string(REPLACE "|" "\n" want "${EXPECTED}")
if(NOT rc EQUAL 0 OR NOT out STREQUAL "${want}\n")
  message(FATAL_ERROR "${BIN} ${SUB} --list-modes (exit ${rc}) printed\n${out}\nexpected\n${want}\n")
endif()
