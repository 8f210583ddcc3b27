# hk_read_modes(NAMES_VAR LINES_VAR): the hybrid modes of the library's one table
# (src/modes/table.c, rows `[HK_MODE_X] = {"name", HK_THREAD_LEVEL, overlaps, ...}`), in
# table order: NAMES_VAR gets the names, LINES_VAR the lines `name level overlaps` that
# `hk-jacobi --list-modes` prints (the test tools.list_modes checks the two agree, so this
# reader cannot drift from the table).  The tests loop over these names instead of
# repeating the list.
function(hk_read_modes names_var lines_var)
  set(src ${PROJECT_SOURCE_DIR}/src/modes/table.c)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${src})
  file(READ ${src} text)
  string(REGEX MATCHALL "\\[HK_MODE_[A-Z_]+\\] *= *{\"[a-z-]+\", *HK_THREAD_[A-Z]+, *[01]"
         rows "${text}")
  set(names "")
  set(lines "")
  foreach(row IN LISTS rows)
    string(REGEX REPLACE ".*{\"([a-z-]+)\", *HK_THREAD_([A-Z]+), *([01])" "\\1;\\2;\\3" f "${row}")
    list(GET f 0 name)
    list(GET f 1 level)
    list(GET f 2 overlaps)
    string(TOLOWER "${level}" level)
    list(APPEND names ${name})
    list(APPEND lines "${name} ${level} ${overlaps}")
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "hk_read_modes: no mode rows found in ${src}")
  endif()
  set(${names_var} ${names} PARENT_SCOPE)
  set(${lines_var} ${lines} PARENT_SCOPE)
endfunction()
