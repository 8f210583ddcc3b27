# The example program of docs/modes.md ("Your own data structure in every mode"), extracted
# from between its markers at configure time, so the page's code is the code the test runs.
set(doc ${PROJECT_SOURCE_DIR}/docs/modes.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${doc})
file(READ ${doc} text)
string(FIND "${text}" "<!-- test_modes_example.c -->\n```c\n" begin)
string(FIND "${text}" "```\n<!-- end test_modes_example.c -->" end)
if(begin LESS 0 OR end LESS begin)
  message(FATAL_ERROR "docs/modes.md: no test_modes_example.c block between its markers")
endif()
math(EXPR begin "${begin} + 35")  # past the marker line and the fence
math(EXPR len "${end} - ${begin}")
string(SUBSTRING "${text}" ${begin} ${len} code)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/test_modes_example.c "${code}")
hk_test_exe(test_modes_example ${CMAKE_CURRENT_BINARY_DIR}/test_modes_example.c)
hk_mpi_test(modes.example test_modes_example RANKS 1 2 3 4 THREADS 1 2)
