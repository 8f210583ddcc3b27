# Page-based distributed shared memory (issue 21): hk_dsm_*.
list(APPEND HK_LIB_SOURCES
  src/dsm/region.c
  src/dsm/fault.c
  src/dsm/protocol.c
  src/dsm/agree.c)
