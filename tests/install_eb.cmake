# ---- EasyBuild (issue 41 item 3): `eb --dry-run --robot` of contrib/easybuild/*.eb with
# EasyBuild from PyPI (cached venv) resolves the toolchain and every dependency; skip 77
# offline or without a modules tool (environment-modules)
add_test(NAME install.easybuild COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/easybuild_dry_run.sh
         ${CMAKE_CURRENT_BINARY_DIR}/easybuild)
set_tests_properties(install.easybuild PROPERTIES LABELS install TIMEOUT 900 SKIP_RETURN_CODE 77)
