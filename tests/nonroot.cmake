# ---- a non-root user's make test (issue 41 item 1): a clone of HEAD owned by nobody runs
# `make test HK_TEST_SUBSET=quick` (the Makefile's quick subset) as nobody; root and setpriv
# needed (else skip), PyPI once for the cached wheelhouse (else skip). Several minutes: the
# clone configures and builds its quick targets itself.
add_test(NAME nonroot.make_test COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/nonroot_make_test.sh
         ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/nonroot)
set_tests_properties(nonroot.make_test PROPERTIES LABELS "install;nonroot" TIMEOUT 1800
  SKIP_RETURN_CODE 77 PROCESSORS 2)
