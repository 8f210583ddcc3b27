# hk-mz --second-level mpi (issue 24, the AKIE two-level analogue): zones over groups of
# ranks, every zone split in j over the --sub-ranks of its group.  The numerics are the
# OpenMP second level's: the norms (printed as hex floats) must be bit-identical to a run with
# one rank per group, and verify against the official values.  Both runs use the same
# OMP_NUM_THREADS (the norms' OpenMP reductions sum in thread-count order).
set(MZ_SAME ${CMAKE_CURRENT_SOURCE_DIR}/scripts/mz_same.sh)
string(REPLACE ";" " " MZ_PRE "${HK_MPIEXEC_PREFLAGS}")
# name  bench class  ranks(omp) ranks(mpi) sub-ranks  threads
set(MZ_TWOLEVEL_CASES
  "sp.S.1x2 sp S 1 2 2 1" "sp.S.2x2 sp S 2 4 2 1" "sp.S.1x3 sp S 1 3 3 1" "sp.S.1x4 sp S 1 4 4 1"
  "bt.S.1x2 bt S 1 2 2 1" "bt.S.2x2 bt S 2 4 2 1" "bt.S.1x3 bt S 1 3 3 1" "bt.S.2x2.t2 bt S 2 4 2 2"
  "sp.S.1x2.t2 sp S 1 2 2 2" "sp.W.1x2 sp W 1 2 2 1" "bt.W.3x1 bt W 3 3 1 1")
foreach(c ${MZ_TWOLEVEL_CASES})
  string(REPLACE " " ";" c "${c}")
  list(GET c 0 name)
  list(GET c 1 bench)
  list(GET c 2 cls)
  list(GET c 3 npo)
  list(GET c 4 npm)
  list(GET c 5 n2)
  list(GET c 6 nt)
  add_test(NAME mz.twolevel.${name} COMMAND ${MZ_SAME} ${MPIEXEC_EXECUTABLE}
           ${MPIEXEC_NUMPROC_FLAG} "${MZ_PRE}" ${npo} ${npm} ${n2} $<TARGET_FILE:hk-mz>
           --bench ${bench} --class ${cls} --quiet)
  set_tests_properties(mz.twolevel.${name} PROPERTIES LABELS "mpi;apps" TIMEOUT 120
    PROCESSORS ${npm} ENVIRONMENT "OMP_NUM_THREADS=${nt};OMP_WAIT_POLICY=passive;${HK_TEST_ENV}")
endforeach()
hk_record_test(mz.record_twolevel 2 1 ENV ${MZ_ENV} LABELS apps
               COMMAND ${MZ} --bench sp --class S --quiet --second-level mpi --sub-ranks 2)
# bad input: one clear line
hk_expect_test(mz.twolevel.too_many_subranks 2
               "--second-level mpi: zone 0 \\(12x12x6\\) has 10 interior j lines and 4 k planes, fewer than the 5 sub-ranks"
               ONCE NP 5 COMMAND ${MZ} --bench sp --class S --second-level mpi --sub-ranks 5)
hk_expect_test(mz.twolevel.divide 2 "--sub-ranks 3 must divide the 4 processes" ONCE NP 4
               COMMAND ${MZ} --bench sp --class S --second-level mpi --sub-ranks 3)
hk_expect_test(mz.twolevel.lu 1 "--second-level mpi is not supported for LU-MZ" ONCE NP 2
               COMMAND ${MZ} --bench lu --class S --second-level mpi --sub-ranks 2)
hk_expect_test(mz.twolevel.bad_level 2 "--second-level 'x': omp or mpi" ONCE NP 1
               COMMAND ${MZ} --bench sp --class S --second-level x)
