# Misuse of the hk-* binaries (issue 16), label misuse: one data file (misuse/cases.tsv),
# one runner (misuse/run_misuse.py), one ctest per case: exit code, the expected line
# printed once (not once per rank), no crash or sanitizer report, done within 10 s.
# Sanitizer builds run the same table (cases that set RLIMIT_AS are skipped there).
set(HK_MISUSE_CASES ${CMAKE_CURRENT_SOURCE_DIR}/misuse/cases.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${HK_MISUSE_CASES})
set(misuse_san "")
if(CMAKE_C_FLAGS MATCHES "-fsanitize")
  set(misuse_san --sanitized)
endif()
string(JOIN " " misuse_pre ${HK_MPIEXEC_PREFLAGS})
file(STRINGS ${HK_MISUSE_CASES} misuse_lines)
foreach(line IN LISTS misuse_lines)
  if(line MATCHES "^#" OR NOT line MATCHES "\t")
    continue()
  endif()
  string(REGEX MATCH "^[^\t]+" case "${line}")
  string(REGEX MATCH "^[^\t]+\t([0-9]+)" _ "${line}")
  set(np ${CMAKE_MATCH_1})
  add_test(NAME misuse.${case} COMMAND ${HK_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/misuse/run_misuse.py
           --bin-dir $<TARGET_FILE_DIR:hk-jacobi> --mpiexec ${MPIEXEC_EXECUTABLE}
           --np-flag=${MPIEXEC_NUMPROC_FLAG} --preflags=${misuse_pre} ${misuse_san}
           --case ${case} ${HK_MISUSE_CASES})
  if(np EQUAL 0)
    set(np 1)
  endif()
  set_tests_properties(misuse.${case} PROPERTIES LABELS misuse TIMEOUT 60 PROCESSORS ${np}
    SKIP_RETURN_CODE 77 ENVIRONMENT "${HK_TEST_ENV}")
endforeach()
