# hk-mz targets (framework). The shared numerics come from solvers.cmake.
include(${CMAKE_SOURCE_DIR}/apps/mz/solvers.cmake)
