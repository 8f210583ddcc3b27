# hk_spmv (issue 20): every format x mode bit-identical to a brute-force product at
# 1-4 ranks x 1-3 threads (uneven blocks, an empty block, empty rows, a rank with no
# halo), the plan's counts against brute force.
hk_test_exe(test_spmv mpi/test_spmv.c)
target_compile_options(test_spmv PRIVATE -ffp-contract=off)
target_link_libraries(test_spmv PRIVATE m)
hk_mpi_test(spmv test_spmv THREADS 1 2 3)
# every format x mode at 3-4 oversubscribed ranks: MPICH's ranks poll busily, and on a loaded
# 2-core machine (a fresh root's HK_MPI=mpich make test beside other builds) these 6 ran past
# hk_mpi_test's 60 s; 300 s as the collectives' conformance tests
foreach(np 3 4)
  set_tests_properties(spmv.np${np}.t1 spmv.np${np}.t2 spmv.np${np}.t3 PROPERTIES TIMEOUT 300)
endforeach()
# Matrix Market reader (good files, one clear line per malformed file) and generators
hk_test_exe(test_spmv_mm unit/test_spmv_mm.c)
target_link_libraries(test_spmv_mm PRIVATE m)
add_test(NAME unit.spmv_mm COMMAND test_spmv_mm)
set_tests_properties(unit.spmv_mm PROPERTIES LABELS unit TIMEOUT 30
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")

# the Holstein-Hubbard generator against a brute-force construction (Python)
hk_test_exe(spmv_dump unit/spmv_dump.c)
add_test(NAME unit.spmv_hh_brute COMMAND ${HK_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/spmv_hh_brute.py
         $<TARGET_FILE:spmv_dump>)
set_tests_properties(unit.spmv_hh_brute PROPERTIES LABELS unit TIMEOUT 60
  ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp")

# ---- hk-spmv ----
set(SPMV $<TARGET_FILE:hk-spmv>)
set(SPMV_FIX ${CMAKE_CURRENT_SOURCE_DIR}/fixtures)
hk_expect_test(spmv.help 0 "^usage: hk-spmv" COMMAND ${SPMV} --help)
# every mode and format verifies itself against the serial product (exit 1 otherwise)
foreach(fmt crs jds sell)
  hk_mpi_test(spmv.app.${fmt} hk-spmv ARGS --matrix random:3000,9,400 --format ${fmt} --sigma 32
              --mode task --iters 3 RANKS 1 3 THREADS 1 3 LABELS apps)
endforeach()
# rows of 5 to 8 entries each: CRS's straight-line paths for four rows of one length
# (src/spmv/formats.c), each row still summed in column order
foreach(len 5 6 7 8)
  hk_mpi_test(spmv.crs.len${len} hk-spmv ARGS --matrix random:999,${len},60 --format crs
              --mode masteronly --iters 2 RANKS 1 3 THREADS 1 2 LABELS apps)
endforeach()
# the Holstein-Hubbard matrix (hh:5,2,2,3: 100 x 56 rows, long-range hopping columns)
foreach(fmt crs jds sell)
  hk_mpi_test(spmv.app.hh.${fmt} hk-spmv ARGS --matrix hh:5,2,2,3 --format ${fmt} --sigma 16
              --mode task-balanced --iters 2 RANKS 1 3 THREADS 1 3 LABELS apps)
endforeach()
# CG on it: the same iteration count (14, as measured at 1 rank) at 1, 2 and 4 ranks
foreach(np 1 2 4)
  hk_expect_test(spmv.cg.hh.np${np} 0 "^# cg iterations: 14," ONCE NP ${np} ENV OMP_NUM_THREADS=2
                 COMMAND ${SPMV} --matrix hh:6,3,3,2 --mode task --format jds --solver cg
                 --tol 1e-10 --iters 2)
endforeach()
# CG: the same iteration count in every mode, format, rank count and thread count (46 for
# laplace3d:16 at 1e-10, as measured at 1 rank: the point is that every layout agrees)
foreach(mode pure-nb masteronly task task-balanced multiple)
  foreach(np 1 2 3 4)
    hk_expect_test(spmv.cg.${mode}.np${np} 0 "^# cg iterations: 46," ONCE NP ${np}
                   ENV OMP_NUM_THREADS=2 COMMAND ${SPMV} --matrix laplace3d:16 --mode ${mode}
                   --format sell --chunk 4 --sigma 64 --solver cg --tol 1e-10 --iters 2)
  endforeach()
endforeach()
hk_expect_test(spmv.cg.jds 0 "^# cg iterations: 46," ONCE NP 3 ENV OMP_NUM_THREADS=3
               COMMAND ${SPMV} --matrix laplace3d:16 --mode task --format jds --solver cg --tol 1e-10)
# a Matrix Market file: 1D Laplacian of 10 rows (symmetric): CG in at most 10 iterations
hk_expect_test(spmv.mm 0 "^# Verification = SUCCESSFUL" ONCE NP 3
               COMMAND ${SPMV} --matrix ${SPMV_FIX}/spmv_lap1d.mtx --solver cg --tol 1e-12)
hk_expect_test(spmv.mm_bad 2 "hk-spmv: error: (rank 0: )?.*spmv_bad.mtx:4: expected an entry 'ROW COL VALUE'"
               ONCE NP 2 COMMAND ${SPMV} --matrix ${SPMV_FIX}/spmv_bad.mtx)
# a file declaring more entries than the memory holds: one line before allocating
hk_expect_test(spmv.mm_huge 1 "hk-spmv: error: (rank 0: )?.*spmv_huge.mtx:3: 1000000000000 entries declared: rows .* need about .* more than the"
               ONCE NP 2 COMMAND ${SPMV} --matrix ${SPMV_FIX}/spmv_huge.mtx)
# a size line of 2e9 rows: tests/misuse/cases.tsv, spmv.mm_rows_2e9*
hk_expect_test(spmv.bad_matrix 2 "unknown matrix 'lap:3'" ONCE NP 2 COMMAND ${SPMV} --matrix lap:3)
hk_expect_test(spmv.cg_random 2 "--solver cg needs a symmetric positive definite matrix" ONCE NP 2
               COMMAND ${SPMV} --matrix random:100,5,10 --solver cg)
hk_expect_test(spmv.bad_format 2 "unknown format 'ell'" ONCE NP 2 COMMAND ${SPMV} --format ell)
hk_expect_test(spmv.bad_blocks 2 "--blocks must be >= 1, or 0 for the default \\(got -1\\)" ONCE NP 2
               COMMAND ${SPMV} --blocks -1)
hk_record_test(spmv.record 2 2 LABELS apps COMMAND ${SPMV} --matrix laplace3d:12 --solver cg --iters 3)
# a local failure in the middle of a record on rank 1 (test hook: adding the field fails as if
# out of memory): the spmv record's reductions and the emit still run on every rank, so every
# rank ends with that error, reported once, no hang; also in the CG record, after the first
hk_expect_test(spmv.record_fail 1 "rank 1: out of memory adding 'gflops'" ONCE NP 3
               ENV HK_TEST_RECORD_FAIL=1:gflops COMMAND ${SPMV} --matrix laplace3d:8 --iters 2)
hk_expect_test(spmv.record_fail_cg 1 "rank 1: out of memory adding 'relative_residual'" ONCE NP 3
               ENV HK_TEST_RECORD_FAIL=1:relative_residual
               COMMAND ${SPMV} --matrix laplace3d:8 --iters 2 --solver cg)
