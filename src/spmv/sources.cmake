# Distributed sparse matrix-vector multiply (issue 20): hk_spmv_* in every hybrid mode.
# No floating-point contraction: every format and the reference add a_ij * x_j as a
# rounded product, so they give the same bits whatever the compiler fuses.
set(HK_SPMV_SOURCES src/spmv/formats.c src/spmv/matrix.c src/spmv/mm.c src/spmv/hh.c src/spmv/plan.c src/spmv/modes.c)
list(APPEND HK_LIB_SOURCES ${HK_SPMV_SOURCES})
set_source_files_properties(${HK_SPMV_SOURCES} PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
