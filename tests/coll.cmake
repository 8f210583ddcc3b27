# Hybrid collectives (issue 5): hk_allreduce against PMPI_Allreduce, the preload
# library, hk-mc, hk-bench allreduce rows, bad input.
set(COLL_DIR ${CMAKE_CURRENT_SOURCE_DIR}/coll)
# libgomp spins long in idle threads when it thinks each thread has a core; on an
# oversubscribed test machine that steals the CPU from the MPI ranks (10x slower)
set(COLL_ENV OMP_WAIT_POLICY=passive)
hk_test_exe(test_coll mpi/test_coll.c)
# every algorithm x type/op x counts 0, 1, T-1, T, odd, 128 KiB, in place or not
hk_mpi_test(coll.allreduce test_coll RANKS 1 2 THREADS 1 2 3 ENV ${COLL_ENV})
# 3 and 4 ranks oversubscribe the test machine: half the algorithm x case pairs
hk_mpi_test(coll.allreduce test_coll ARGS --sample 2 RANKS 3 4 THREADS 1 2 3 ENV ${COLL_ENV})
# 8 MiB at a few combinations only
hk_mpi_test(coll.big test_coll ARGS --big --sample 2 --algorithms chunked,chunked-shifted,hierarchical
            RANKS 2 3 THREADS 2 ENV ${COLL_ENV})
# virtual nodes: 2 nodes of 2 ranks (node window + leaders), and one rank per node
hk_mpi_test(coll.vnodes2 test_coll ARGS --algorithms hierarchical RANKS 4 THREADS 2
            ENV HK_NODE_SIZE=2 ${COLL_ENV})
hk_mpi_test(coll.vnodes1 test_coll ARGS --algorithms hierarchical RANKS 3 THREADS 1 2
            ENV HK_NODE_SIZE=1 ${COLL_ENV})
# a FUNNELED-only MPI: every hybrid algorithm falls back, results unchanged
hk_mpi_test(coll.funneled test_coll RANKS 2 THREADS 2 ENV HK_MPI_THREAD_LIMIT=funneled ${COLL_ENV})
# a tuning table drives AUTO
hk_mpi_test(coll.table test_coll ARGS --table RANKS 2 THREADS 1 2
            ENV HK_COLL_TUNING=${COLL_DIR}/tuning.json ${COLL_ENV})

# bad input: one warning line (rank 0), safe fallback, still correct (exit 0)
set(TC $<TARGET_FILE:test_coll> --algorithms chunked)
hk_expect_test(coll.tuning_missing 0 "^hybridkit: warning: HK_COLL_TUNING=/nonexistent/t.json: cannot open: No such file.*using the defaults"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_COLL_TUNING=/nonexistent/t.json COMMAND ${TC})
hk_expect_test(coll.tuning_unreadable 0 "HK_COLL_TUNING=.*: not a regular file \\(a directory\\).*using the defaults"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_COLL_TUNING=${COLL_DIR} COMMAND ${TC})
# a FIFO nobody writes to: refused at once (opening it for reading used to block forever)
add_test(NAME coll.tuning_fifo COMMAND ${COLL_DIR}/with_fifo.sh ${CMAKE_CURRENT_BINARY_DIR}/coll.tuning.fifo
         ${EXPECT} --once 0 "HK_COLL_TUNING=.*coll.tuning.fifo: not a regular file \\(a FIFO\\).*using the defaults"
         -- ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${HK_MPIEXEC_PREFLAGS} ${TC})
set_tests_properties(coll.tuning_fifo PROPERTIES LABELS tools TIMEOUT 30
  ENVIRONMENT "OMP_NUM_THREADS=2;${HK_TEST_ENV};${COLL_ENV}")
hk_expect_test(coll.tuning_device 0 "HK_COLL_TUNING=/dev/zero: not a regular file \\(a device\\).*using the defaults"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_COLL_TUNING=/dev/zero COMMAND ${TC})
# numbers with trailing junk: one line naming the variable, the default kept
hk_expect_test(coll.env_threads_junk 0 "HK_ALLREDUCE_THREADS=2x is not a positive integer. ignored"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_ALLREDUCE_THREADS=2x COMMAND ${TC})
hk_expect_test(coll.env_min_bytes_junk 0 "HK_ALLREDUCE_MIN_BYTES=16k is not a byte count >= 0. ignored"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_ALLREDUCE_MIN_BYTES=16k COMMAND ${TC})
hk_expect_test(coll.tuning_corrupt 0 "HK_COLL_TUNING=.*corrupt.json: .* at byte [0-9]+.*using the defaults"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_COLL_TUNING=${COLL_DIR}/corrupt.json COMMAND ${TC})
hk_expect_test(coll.tuning_bad_algorithm 0 "bad_algorithm.json: rows\\[0\\]: unknown algorithm 'ring'"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_COLL_TUNING=${COLL_DIR}/bad_algorithm.json COMMAND ${TC})
hk_expect_test(coll.env_bad_algorithm 0 "HK_ALLREDUCE_ALGORITHM=ring is unknown .*.*using auto"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_ALLREDUCE_ALGORITHM=ring COMMAND ${TC})
hk_expect_test(coll.env_too_many_threads 0 "HK_ALLREDUCE_THREADS asks for 64 threads, the ranks have [0-9]+ core\\(s\\): using [0-9]+"
               ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} HK_ALLREDUCE_THREADS=64 COMMAND ${TC})

# ---- hk-mc: the same checksum for every rank/thread count and algorithm ----
set(MC $<TARGET_FILE:hk-mc>)
# the 1 rank x 1 thread MPI_Allreduce run of this problem (integer arithmetic only:
# the same for every compiler flag); any difference means a wrong allreduce
set(MC_SMALL --particles 20000 --steps 10 --expect-checksum 6001db54180e9059)
hk_mpi_test(coll.mc hk-mc ARGS ${MC_SMALL} RANKS 1 2 3 THREADS 1 2 LABELS apps ENV ${COLL_ENV})
foreach(alg auto chunked chunked-shifted hierarchical)
  hk_mpi_test(coll.mc.${alg} hk-mc ARGS ${MC_SMALL} --allreduce ${alg} RANKS 2 THREADS 2
              LABELS apps ENV ${COLL_ENV})
endforeach()
hk_mpi_test(coll.mc.vnodes hk-mc ARGS ${MC_SMALL} --allreduce hierarchical RANKS 4 THREADS 2
            LABELS apps ENV HK_NODE_SIZE=2 ${COLL_ENV})
hk_record_test(coll.mc.record 2 2 LABELS apps ENV ${COLL_ENV} COMMAND ${MC} --particles 20000 --steps 5)
hk_expect_test(coll.mc.help 0 "^usage: hk-mc" COMMAND ${MC} --help)
hk_expect_test(coll.mc.bad_allreduce 2 "--allreduce ring: mpi, auto, chunked" ONCE NP 2
               COMMAND ${MC} --allreduce ring)
hk_expect_test(coll.mc.bad_tally 2 "--tally-bytes 12: a multiple of 8, at least 16" ONCE NP 2
               COMMAND ${MC} --tally-bytes 12)
hk_expect_test(coll.mc.wrong_checksum 1 "checksum 6001db54180e9059, expected 1234" ONCE NP 2
               COMMAND ${MC} --particles 20000 --steps 10 --expect-checksum 1234)

# ---- the preload library: same results with and without it (this MPI: ${HK_MPI_IMPL}) ----
add_executable(coll_plain_mpi coll/plain_mpi.c)
target_link_libraries(coll_plain_mpi PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
set(PRELOAD ${COLL_DIR}/preload.sh ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE})
set(PRELOAD_LIB $<TARGET_FILE:hybridkit-preload>)
# sanitizer builds (debug presets): the ASan runtime must be the first library loaded, so it
# is preloaded in front of ours (LD_PRELOAD takes a colon-separated list)
if(CMAKE_C_FLAGS MATCHES "sanitize=address")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE HK_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(PRELOAD_LIB "${HK_LIBASAN}:${PRELOAD_LIB}")
endif()
function(coll_preload_test name np nt regex)
  add_test(NAME coll.preload.${name} COMMAND ${PRELOAD} ${np} ${nt} ${PRELOAD_LIB} ${regex} -- ${ARGN})
  set_tests_properties(coll.preload.${name} PROPERTIES LABELS "mpi;apps" TIMEOUT 120
    PROCESSORS ${np} ENVIRONMENT "${HK_TEST_ENV};${COLL_ENV};${PRELOAD_ENV}")
endfunction()
# a plain MPI program (no hybridkit): its thread level stays FUNNELED; 2 ranks on the 2
# cores of the test machine have one usable core each, so the preload does not ask for
# MULTIPLE and auto's model runs hierarchical with one thread per rank
set(PLAIN $<TARGET_FILE:coll_plain_mpi> 10)
coll_preload_test(plain.np2.t2 2 2 "[1-9][0-9]* accelerated \\(hierarchical [0-9]+\\)" ${PLAIN})
# the reason names the CPUs and the physical cores of the mask (SMT siblings count once, issue 42)
coll_preload_test(plain.np2.t2.level 2 2
                  "MPI provides funneled \\(asked funneled: 1 usable core\\(s\\) per rank \\([0-9]+ CPU\\(s\\) on [0-9]+ core\\(s\\) in the affinity mask"
                  ${PLAIN})
coll_preload_test(plain.np1.t2 1 2
                  "program asked funneled and is told funneled, MPI provides funneled \\(asked funneled: one rank\\)"
                  ${PLAIN})
# asked for MULTIPLE explicitly: chunked runs, the program is still told FUNNELED
set(PRELOAD_ENV "HK_PRELOAD_THREAD_LEVEL=multiple;HK_ALLREDUCE_ALGORITHM=chunked")
coll_preload_test(plain.np2.t2.chunked 2 2 "[1-9][0-9]* accelerated \\(chunked [0-9]+\\)" ${PLAIN})
coll_preload_test(plain.np2.t2.multiple 2 2 "program asked funneled and is told funneled, MPI provides multiple"
                  ${PLAIN})
# one rank per (virtual) node and one usable core: nothing can win, nothing is counted
# as accelerated, every call passed through and said why (auto's model)
set(PRELOAD_ENV "HK_NODE_SIZE=1")
coll_preload_test(plain.np2.t1 2 1 " 0 accelerated, [0-9]+ passed through \\(small [0-9]+, model [0-9]+"
                  ${PLAIN})
set(PRELOAD_ENV "HK_PRELOAD_THREAD_LEVEL=bogus")
coll_preload_test(plain.bogus_level 2 1
                  "^hybridkit-preload: warning: HK_PRELOAD_THREAD_LEVEL=bogus is not auto, program or multiple. using auto$"
                  ${PLAIN})
set(PRELOAD_ENV "")
coll_preload_test(mc.np2.t2 2 2 "[1-9][0-9]* accelerated" ${MC} --particles 20000 --steps 10)
coll_preload_test(mc.np3.t2 3 2 "preload +on" ${MC} --particles 20000 --steps 10)

# ---- hybridkit tune allreduce: measure, write the table, the library loads it silently ----
set(TUNED ${CMAKE_CURRENT_BINARY_DIR}/coll.tune.json)
add_test(NAME coll.tune COMMAND ${CMAKE_COMMAND} -E env HK_BIN_DIR=${CMAKE_BINARY_DIR}/bin
         ${HK_PYTHON} -m hybridkit tune allreduce --mpi ${HK_MPI_IMPL} --np 2 --threads 1
         --sizes 1K:64K --iters 5 --output ${TUNED})
set_tests_properties(coll.tune PROPERTIES FIXTURES_SETUP coll.tuned LABELS "mpi" TIMEOUT 120
  PROCESSORS 2 ENVIRONMENT "${HK_TEST_ENV}" PASS_REGULAR_EXPRESSION "written to .*coll.tune.json")
hk_expect_test(coll.tune.use 0 "^test_coll: 2 ranks, [0-9]+ checks, 0 failed" NP 2
               ENV OMP_NUM_THREADS=2 HK_COLL_TUNING=${TUNED} ${COLL_ENV} COMMAND ${TC})
set_tests_properties(coll.tune.use PROPERTIES FIXTURES_REQUIRED coll.tuned FAIL_REGULAR_EXPRESSION "warning")

# ---- conformance under the preload (issue 15): every algorithm with the threshold at 0,
# 1-4 ranks x (1 thread FUNNELED, 2 threads SERIALIZED, 2 threads MULTIPLE), the program
# checking every result against its own arithmetic (tests/coll/conformance.c: sub-
# communicators only some ranks join, uneven call counts, omp single / chosen thread /
# pthread / concurrent callers, user ops, derived types, in place, intercommunicator,
# MPI_COMM_SELF, MPI_ERRORS_RETURN); the same program without the preload first.
# HK_PRELOAD_THREAD_LEVEL=multiple: the oversubscribed test machine would otherwise
# (rightly) never ask for MULTIPLE, and the threaded paths would go untested.
add_executable(coll_conformance coll/conformance.c)
target_link_libraries(coll_conformance PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
set(CONF ${COLL_DIR}/conformance.sh ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE})
function(coll_conformance name np nt lib)
  add_test(NAME coll.conformance.${name} COMMAND ${CONF} ${np} ${lib} -- $<TARGET_FILE:coll_conformance>
           ${ARGN})
  set_tests_properties(coll.conformance.${name} PROPERTIES LABELS "mpi;conformance" TIMEOUT 120
    PROCESSORS ${np} ENVIRONMENT "OMP_NUM_THREADS=${nt};${HK_TEST_ENV};${COLL_ENV};${CONF_ENV}")
endfunction()
set(CONF_LEVELS "t1.funneled\;1\;funneled" "t2.serialized\;2\;serialized" "t2.multiple\;2\;multiple")
foreach(np 1 2 3 4)
  set(CONF_ENV "")
  coll_conformance(plain.np${np} ${np} 2 none --level multiple)
  foreach(alg auto mpi chunked chunked-shifted hierarchical)
    foreach(lv ${CONF_LEVELS})
      list(GET lv 0 tag)
      list(GET lv 1 nt)
      list(GET lv 2 level)
      set(CONF_ENV "HK_ALLREDUCE_ALGORITHM=${alg};HK_ALLREDUCE_MIN_BYTES=0;HK_PRELOAD_THREAD_LEVEL=multiple")
      coll_conformance(${alg}.np${np}.${tag} ${np} ${nt} ${PRELOAD_LIB} --level ${level})
    endforeach()
  endforeach()
  # the defaults: the preload decides the thread level itself, threshold 16 KiB
  set(CONF_ENV "")
  coll_conformance(defaults.np${np}.t2.serialized ${np} 2 ${PRELOAD_LIB} --level serialized)
endforeach()
# virtual nodes that divide some communicators and not others (3 ranks, nodes of 2)
foreach(np 3 4)
  set(CONF_ENV "HK_ALLREDUCE_ALGORITHM=hierarchical;HK_ALLREDUCE_MIN_BYTES=0;HK_PRELOAD_THREAD_LEVEL=multiple;HK_NODE_SIZE=2")
  coll_conformance(vnodes2.np${np} ${np} 2 ${PRELOAD_LIB} --level multiple)
endforeach()

# Fortran (`use mpi`, `use mpi_f08`) under the preload: Open MPI's Fortran bindings call PMPI_ directly,
# so the preload takes their symbols (mpi_init_, mpi_allreduce_, ...); MPICH's call the C
# functions. Either way the calls must be intercepted and right (skipped without mpif90).
foreach(np 1 2 3 4)
  if(np EQUAL 1)
    set(pat "0 accelerated, [0-9]+ passed through \\(one-rank")
  else()
    set(pat "[1-9][0-9]* accelerated \\(hierarchical")
  endif()
  # use mpi, and use mpi_f08 (Open MPI: mpi_<name>_f08_ call PMPI_ too; MPICH: its init,
  # finalize and query do)
  foreach(binding IN ITEMS "" _f08)
    add_test(NAME coll.preload.fortran${binding}.np${np} COMMAND ${COLL_DIR}/fortran.sh
             ${HK_MPI_IMPL} ${MPIEXEC_EXECUTABLE} ${np} ${PRELOAD_LIB}
             ${COLL_DIR}/fortran_allreduce${binding}.f90
             ${CMAKE_CURRENT_BINARY_DIR}/fortran${binding}.np${np} ${pat})
    set_tests_properties(coll.preload.fortran${binding}.np${np} PROPERTIES LABELS "mpi;conformance"
      TIMEOUT 120 PROCESSORS ${np} SKIP_RETURN_CODE 77 ENVIRONMENT
      "OMP_NUM_THREADS=2;${HK_TEST_ENV};${COLL_ENV};HK_ALLREDUCE_MIN_BYTES=0;HK_ALLREDUCE_ALGORITHM=hierarchical")
  endforeach()
endforeach()

# ---- the conformance programs of the collectives beyond the allreduce (issue 39;
# tests/coll/check.h is their shared scaffolding): hk_coll_conformance(NAME SOURCE) runs one
# at 1-4 ranks x 1-2 threads, at FUNNELED (the chunked families fall back: thread-level;
# hierarchical runs one thread), on virtual nodes of 2 (3 ranks: does not divide, fallback
# nodes; 4 ranks: the leaders' step, root on either node) and of 1, then names the
# fallbacks at FUNNELED and that the hybrid algorithms ran (fallback none) at MULTIPLE.
# A few thousand collectives each: more than hk_mpi_test's 60 s on a loaded 2-core machine.
# Optional: FALLBACKS regex (the fallbacks named at FUNNELED; default thread-level and
# datatype), DEFINES (compile definitions: one source built as two programs).
function(hk_coll_conformance name src)
  cmake_parse_arguments(CC "" "FALLBACKS" "DEFINES" ${ARGN})
  if(NOT CC_FALLBACKS)
    set(CC_FALLBACKS "thread-level [1-9][0-9]*.*datatype [1-9]")
  endif()
  string(REPLACE "." "_" exe "${name}_conformance")
  hk_test_exe(${exe} ${src})
  if(CC_DEFINES)
    target_compile_definitions(${exe} PRIVATE ${CC_DEFINES})
  endif()
  hk_mpi_test(${name} ${exe} RANKS 1 2 3 4 THREADS 1 2 ENV ${COLL_ENV})
  hk_mpi_test(${name}.funneled ${exe} ARGS --level funneled RANKS 2 3 THREADS 2 ENV ${COLL_ENV})
  hk_mpi_test(${name}.vnodes2 ${exe} RANKS 3 4 THREADS 1 2 ENV HK_NODE_SIZE=2 ${COLL_ENV})
  hk_mpi_test(${name}.vnodes1 ${exe} RANKS 2 THREADS 2 ENV HK_NODE_SIZE=1 ${COLL_ENV})
  hk_expect_test(${name}.fallback_named 0 "^fallbacks: .*${CC_FALLBACKS}"
                 ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV}
                 COMMAND $<TARGET_FILE:${exe}> --level funneled)
  hk_expect_test(${name}.ran_named 0 "^fallbacks: none [1-9]"
                 ONCE NP 2 ENV OMP_NUM_THREADS=2 ${COLL_ENV} COMMAND $<TARGET_FILE:${exe}>)
  set(all ${name}.funneled.np2.t2 ${name}.funneled.np3.t2 ${name}.vnodes1.np2.t2
      ${name}.fallback_named ${name}.ran_named)
  foreach(np 1 2 3 4)
    list(APPEND all ${name}.np${np}.t1 ${name}.np${np}.t2)
  endforeach()
  foreach(np 3 4)
    list(APPEND all ${name}.vnodes2.np${np}.t1 ${name}.vnodes2.np${np}.t2)
  endforeach()
  set_tests_properties(${all} PROPERTIES TIMEOUT 300)
endfunction()

# hk_reduce and hk_reduce_scatter_block, checked against the program's own arithmetic
# (tests/coll/reduce_conformance.c: predefined types x ops, pair types, derived types with a
# user op, a non-commutative op, in place, roots 0 and last, counts 0 .. 65537, a call inside
# a parallel region, the fallback reasons certain from the inputs)
hk_coll_conformance(coll.reduce coll/reduce_conformance.c)
# hk_scan and hk_exscan: the same program built with HK_CONF_SCAN (folds over wranks
# 0..r and 0..r-1, the non-commutative op in wrank order; chunked-shifted and hierarchical
# are `unavailable`), plus ranks making different numbers of calls on split communicators
hk_coll_conformance(coll.scan coll/reduce_conformance.c DEFINES HK_CONF_SCAN
                    FALLBACKS "thread-level [1-9][0-9]*.*unavailable [1-9]")
# hk_allgatherv and hk_reduce_scatter (tests/coll/vcoll_conformance.c: unequal counts per
# rank, some zero, displacements with gaps, derived types, user ops, in place)
hk_coll_conformance(coll.vcoll coll/vcoll_conformance.c
                    FALLBACKS "thread-level [1-9][0-9]*.*datatype [1-9][0-9]*.*unavailable [1-9]")
# hk_alltoallv (tests/coll/alltoallv_conformance.c: unequal counts per pair, some zero,
# gaps, derived types, in place with symmetric counts, the agreed decision)
hk_coll_conformance(coll.alltoallv coll/alltoallv_conformance.c
                    FALLBACKS "thread-level [1-9][0-9]*.*datatype [1-9][0-9]*.*unavailable [1-9]")
# the environment's threshold reaches the defaults (opts NULL) through the agreement
hk_mpi_test(coll.alltoallv.env coll_alltoallv_conformance RANKS 2 3 THREADS 2
            ENV HK_ALLTOALLV_MIN_BYTES=1 ${COLL_ENV})
set_tests_properties(coll.alltoallv.env.np2.t2 coll.alltoallv.env.np3.t2 PROPERTIES TIMEOUT 300)
