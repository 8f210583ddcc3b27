# Cartesian decomposition and rank mapping (included from tests/CMakeLists.txt).
# unit: layouts, grid choice and input checks; the mappings' surface counts (the tutorial's
# 80-core example) in unit.cart_maps; without MPI.
hk_test_exe(test_cart_unit unit/test_cart.c)
add_test(NAME unit.cart COMMAND test_cart_unit)
hk_test_exe(test_cart_maps unit/test_cart_maps.c)
add_test(NAME unit.cart_maps COMMAND test_cart_maps)
set_tests_properties(unit.cart unit.cart_maps PROPERTIES LABELS unit TIMEOUT 30
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")

# mpi: the communicator of every map policy, on one real node and on virtual nodes
# of 2 ranks (HK_NODE_UNEVEN=1: at 3 ranks the nodes differ and the policies fall back).
hk_test_exe(test_cart_mpi mpi/test_cart.c)
foreach(map sequential round-robin node-aware)
  hk_mpi_test(cart.${map} test_cart_mpi ARGS --map ${map} THREADS 1)
  hk_mpi_test(cart.${map}.nodes2 test_cart_mpi ARGS --map ${map} THREADS 1
              ENV HK_NODE_SIZE=2 HK_NODE_UNEVEN=1)
endforeach()
