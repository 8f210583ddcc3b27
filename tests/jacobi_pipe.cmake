# hk-jacobi --temporal pipeline (threads as stages, apps/jacobi/pipeline.c): bit-identical to
# the serial reference at 1-4 ranks x 1-4 threads (oversubscribed on small machines), periodic
# and Dirichlet, tiles of 1 and 2 planes, cut into rows or not, shifted (the default; tightest
# looseness 0:0) and unshifted (tightest 1:1), to the loosest (the successor never waited
# for); w = 3 with 2 threads: a thread with 2 stages, with 4: one idle; --check-every 0 (an
# invariant check inside a batch runs it as plain sweeps)
foreach(case "dirichlet.tight;--boundary dirichlet --halo-width 3 --looseness 0:0 --tile-planes 1"
             "periodic.loose;--halo-width 4 --looseness 3:100 --tile-planes 2"
             "dirichlet.mid;--boundary dirichlet --halo-width 4 --looseness 2:3 --tile-planes 2"
             "periodic.tight;--halo-width 2 --looseness 0:0 --tile-planes 1"
             "rows.tight;--halo-width 4 --looseness 0:0 --tile-planes 1 --tile-rows 1"
             "rows.dirichlet;--boundary dirichlet --halo-width 3 --looseness 0:1 --tile-planes 2 --tile-rows 3"
             "rows.loose;--halo-width 3 --looseness 2:7 --tile-planes 3 --tile-rows 4"
             "strip.tight;--boundary dirichlet --halo-width 4 --looseness 0:0 --tile-rows 2 --tile-strip 6"
             "strip.rows1;--halo-width 3 --looseness 0:1 --tile-planes 2 --tile-rows 1 --tile-strip 3"
             "strip.loose;--halo-width 4 --looseness 1:9 --tile-planes 2 --tile-rows 3 --tile-strip 3"
             "unshifted.tight;--boundary dirichlet --halo-width 3 --looseness 1:1 --tile-shift 0"
             "unshifted.periodic;--halo-width 4 --looseness 1:1 --tile-planes 2 --tile-shift 0")
  list(GET case 0 id)
  list(GET case 1 opts)
  separate_arguments(opts)
  hk_mpi_test(jacobi.pipe.${id} hk-jacobi ARGS --mode funneled --temporal pipeline --grid 19x17x15
              --iters 7 ${opts} --check-every 0 --verify on RANKS 1 2 3 4 THREADS 1 2 3 4 LABELS apps)
endforeach()
# 2D (tiles of rows), the 27-point stencil, non-temporal stores in the last stage, x wrapped
hk_mpi_test(jacobi.pipe.2d hk-jacobi ARGS --mode masteronly --temporal pipeline --dims 2 --grid 41x37
            --boundary dirichlet --halo-width 3 --looseness 1:2 --iters 7 --check-every 0 --verify on
            RANKS 1 3 THREADS 1 3 LABELS apps)
hk_mpi_test(jacobi.pipe.2d.cols hk-jacobi ARGS --mode masteronly --temporal pipeline --dims 2 --grid 41x37
            --halo-width 3 --looseness 0:0 --tile-planes 2 --tile-rows 5 --tile-strip 10 --iters 7 --check-every 0
            --verify on RANKS 1 2 THREADS 2 3 LABELS apps)
hk_mpi_test(jacobi.pipe.s27.rows hk-jacobi ARGS --mode pure --temporal pipeline --stencil 27 --grid 13x11x9
            --halo-width 3 --looseness 0:0 --tile-rows 2 --tile-strip 4 --iters 6 --check-every 0 --verify on
            RANKS 1 2 THREADS 3 LABELS apps)
hk_mpi_test(jacobi.pipe.s27 hk-jacobi ARGS --mode pure --temporal pipeline --stencil 27 --grid 13x11x9
            --halo-width 3 --iters 6 --check-every 0 --verify on RANKS 1 2 THREADS 1 3 LABELS apps)
hk_mpi_test(jacobi.pipe.nt hk-jacobi ARGS --mode funneled --temporal pipeline --grid 19x17x15
            --halo-width 3 --stores nt --iters 7 --check-every 0 --verify on RANKS 1 2 THREADS 2
            LABELS apps)
# the modes that overlap: the engine's step does the first sweep (overlapped), the scheme the
# other w - 1; both schemes
foreach(scheme pipeline wavefront)
  foreach(mode task task-balanced multiple-reserved pure-nb)
    hk_mpi_test(jacobi.${scheme}.overlap.${mode} hk-jacobi ARGS --mode ${mode} --temporal ${scheme}
                --grid 19x17x15 --boundary dirichlet --halo-width 4 --iters 7 --check-every 0
                --verify on RANKS 2 THREADS 3 LABELS apps)
  endforeach()
endforeach()
set(JAC $<TARGET_FILE:hk-jacobi>)
# the wavefront's default strips from the caches (apps/jacobi/wavefront.c, wave_rows): everything
# a pass touches within 3/4 of the L2, here 272-double rows (256 columns, w = 4): a 2 MiB L2
# gives strips of 44 rows, a 1 MiB L2 18; w = 8 on the 2 MiB L2 12 rows; when no strip of 8
# rows fits, strips of 8 while their pass needs at most twice the L2: w = 8 on the 1 MiB L2
# (1.23x) and on 528-double rows (512 columns) on the 2 MiB L2 (1.2x, issue 42: whole planes
# were 1.6x slower there); beyond (w = 8 on a 256 KiB L2, 4.9x) one strip of the block (64 +
# 16 rows), whose rings fit the L3
set(SYN_L3 "HWLOC_SYNTHETIC=pack:1 l3:1(size=33554432)")
foreach(case "2m;2097152;4;44;256" "1m;1048576;4;18;256" "2m.w8;2097152;8;12;256"
             "1m.w8;1048576;8;8;256" "2m.w8.512;2097152;8;8;512" "256k.w8;262144;8;80;256")
  list(GET case 0 id)
  list(GET case 1 l2)
  list(GET case 2 w)
  list(GET case 3 rows)
  list(GET case 4 nx)
  hk_expect_test(jacobi.wave.rows_l2.${id} 0 "wave_rows +${rows}\n" NP 1
                 ENV "${SYN_L3} l2:2(size=${l2}) l1d:1(size=49152) core:1 pu:1"
                 COMMAND ${JAC} --grid ${nx}x64x6 --boundary dirichlet --halo-width ${w} --iters ${w}
                 --check-every 0)
endforeach()
# the pipeline's default strips (apps/jacobi/pipeline.c, jac_pipe_rows; no --tile-rows): the
# tallest multiple of 8 rows whose planes in flight on a core (its b / T stages' + P + 2, both
# fields) keep within 3/4 of the L2, w = 8 and P = 1: 528-double rows on a 2 MiB L2 16 rows (2
# threads, 4 stages each: 24), on a 1 MiB L2 8, 272-double rows 32; whole planes (0) when the
# block's 16 + 16 rows fit; below 8 rows (a 512 KiB L2) strips in the L3 share, at most 64 rows
foreach(case "2m;2097152;16;512x64;1" "2m.t2;2097152;24;512x64;2" "1m;1048576;8;512x64;1"
             "2m.256;2097152;32;256x64;1" "2m.fits;2097152;0;256x16;1" "512k;524288;64;512x96;1")
  list(GET case 0 id)
  list(GET case 1 l2)
  list(GET case 2 rows)
  list(GET case 3 grid)
  list(GET case 4 nt)
  hk_expect_test(jacobi.pipe.rows_l2.${id} 0 "tile_rows +${rows}\n.*tile_strip +${rows}\n" NP 1
                 ENV "${SYN_L3} l2:2(size=${l2}) l1d:1(size=49152) core:1 pu:1" OMP_NUM_THREADS=${nt}
                 COMMAND ${JAC} --grid ${grid}x10 --boundary dirichlet --halo-width 8 --iters 8
                 --temporal pipeline --check-every 0)
endforeach()
# the default strips computed right: bit-identical to the serial reference where a 256 KiB L2
# cuts 64x40 planes (80-double rows, w = 8) into strips of 8 rows (1 thread) and 16 (2 threads)
foreach(case "t1;8;1" "t2;16;2")
  list(GET case 0 id)
  list(GET case 1 rows)
  list(GET case 2 nt)
  hk_expect_test(jacobi.pipe.default_strips.${id} 0 "tile_rows +${rows}\n.*SUCCESSFUL" NP 1
                 ENV "${SYN_L3} l2:2(size=262144) l1d:1(size=49152) core:1 pu:1" OMP_NUM_THREADS=${nt}
                 COMMAND ${JAC} --grid 64x40x12 --boundary dirichlet --halo-width 8 --iters 16
                 --temporal pipeline --check-every 0 --verify on)
endforeach()
hk_expect_test(jacobi.pipe.used 0 "temporal +pipeline" NP 1 COMMAND ${JAC} --grid 12x12x12
               --temporal pipeline --halo-width 2 --iters 2 --check-every 0)
hk_expect_test(jacobi.pipe.reported 0 "looseness +2:5" NP 1 COMMAND ${JAC} --grid 12x12x12
               --temporal pipeline --halo-width 2 --looseness 2:5 --iters 2 --check-every 0)
hk_expect_test(jacobi.pipe.w1 0 "--temporal pipeline: needs 2 sweeps per exchange" NP 1
               COMMAND ${JAC} --grid 12x12x12 --temporal pipeline --iters 2)
hk_expect_test(jacobi.pipe.overlap_w2 0 "--temporal pipeline: needs 2 sweeps per exchange after the first"
               NP 1 COMMAND ${JAC} --mode task --grid 12x12x12 --temporal pipeline --halo-width 2
               --iters 2)
hk_expect_test(jacobi.wave.2d 0 "--temporal wavefront: the wavefront is 3D only" NP 1
               COMMAND ${JAC} --dims 2 --grid 24x24 --temporal wavefront --halo-width 2 --iters 2)
hk_expect_test(jacobi.wave.overlap_used 0 "temporal +wavefront" NP 1 COMMAND ${JAC} --mode task
               --grid 12x12x12 --temporal wavefront --halo-width 3 --iters 3 --check-every 0)
hk_expect_test(jacobi.pipe.idle 0 "2 stages \\(sweeps per exchange\\) for 3 threads: 1 idle" NP 1
               ENV OMP_NUM_THREADS=3 COMMAND ${JAC} --mode funneled --grid 12x12x12
               --temporal pipeline --halo-width 2 --iters 2)
hk_expect_test(jacobi.pipe.bad_looseness 2 "--looseness 2:1: 0 <= dl <= du" ONCE NP 2
               COMMAND ${JAC} --temporal pipeline --looseness 2:1)
hk_expect_test(jacobi.pipe.bad_unshifted 2 "--looseness 0:2: 1 <= dl <= du needed \\(dl >= 1 unshifted"
               ONCE NP 2 COMMAND ${JAC} --temporal pipeline --looseness 0:2 --tile-shift 0)
hk_expect_test(jacobi.pipe.rows_unshifted 2 "--tile-rows 4 needs --tile-shift 1" ONCE NP 2
               COMMAND ${JAC} --temporal pipeline --tile-rows 4 --tile-shift 0)
hk_expect_test(jacobi.pipe.bad_strip 2 "--tile-strip 5: 0 \\(one strip\\) or a multiple of --tile-rows \\(2"
               ONCE NP 2 COMMAND ${JAC} --temporal pipeline --tile-rows 2 --tile-strip 5)
hk_expect_test(jacobi.pipe.strip_no_rows 2 "--tile-strip 4: 0 \\(one strip\\) or a multiple of --tile-rows \\(0"
               ONCE NP 2 COMMAND ${JAC} --temporal pipeline --tile-strip 4)
hk_expect_test(jacobi.pipe.reported_strip 0 "tile_strip +4" NP 1 COMMAND ${JAC} --grid 12x12x12
               --temporal pipeline --halo-width 2 --tile-rows 2 --tile-strip 4 --iters 2 --check-every 0)
hk_expect_test(jacobi.pipe.reported_rows 0 "tile_rows +3" NP 1 COMMAND ${JAC} --grid 12x12x12
               --temporal pipeline --halo-width 2 --tile-rows 3 --iters 2 --check-every 0)
hk_expect_test(jacobi.pipe.bad_looseness_form 2 "--looseness 3: expected dl:du" ONCE NP 2
               COMMAND ${JAC} --temporal pipeline --looseness 3)
# every sweep in a pipeline pass (warm-up 2 + 2 timed, w = 2); checks inside every batch: none,
# and a line says so
hk_expect_test(jacobi.pipe.sweeps_counted 0 "temporal_sweeps +4" NP 1 COMMAND ${JAC} --grid 12x12x12
               --temporal pipeline --halo-width 2 --warmup 2 --iters 2 --check-every 0)
hk_expect_test(jacobi.pipe.checks_inside 0 "--temporal pipeline: 0 of 6 sweeps ran temporally blocked"
               NP 1 COMMAND ${JAC} --grid 12x12x12 --temporal pipeline --halo-width 2 --warmup 2
               --iters 4 --check-every 1)
