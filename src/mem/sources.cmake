# Data locality (issue 23): locations and page placement, hk_locations_* / hk_mem_*.
list(APPEND HK_LIB_SOURCES
  src/mem/locations.c
  src/mem/alloc.c)
