# hk-jacobi --stencil 27 (faces+edges+corners halo): bit-identical to the reference in every
# mode, periodic (1 rank: x wrapped by the sweeps; 4: 2x2x1, corners from other ranks and z from
# itself) and Dirichlet; the wavefront (w = 3, and strips of 1 row: seams); x split in boxes
foreach(mode ${HK_MODES})
  hk_mpi_test(jacobi.s27.${mode} hk-jacobi ARGS --stencil 27 --mode ${mode} --grid 13x11x9 --iters 4
              --verify on RANKS 1 4 THREADS 2 LABELS apps)
  hk_mpi_test(jacobi.s27.dirichlet.${mode} hk-jacobi ARGS --stencil 27 --mode ${mode} --grid 13x11x9
              --iters 4 --boundary dirichlet --verify on RANKS 2 3 THREADS 1 LABELS apps)
endforeach()
foreach(mode pure funneled)
  hk_mpi_test(jacobi.s27.wave.${mode} hk-jacobi ARGS --stencil 27 --mode ${mode} --grid 19x17x15
              --iters 7 --halo-width 3 --boundary dirichlet --check-every 0 --verify on
              RANKS 1 3 THREADS 1 2 LABELS apps)
endforeach()
hk_mpi_test(jacobi.s27.wave.periodic hk-jacobi ARGS --stencil 27 --mode masteronly --grid 16x13x11
            --iters 6 --halo-width 2 --wave-rows 1 --check-every 0 --verify on RANKS 1 4 THREADS 2
            LABELS apps)
hk_mpi_test(jacobi.s27.w2.task hk-jacobi ARGS --stencil 27 --mode task --grid 16x12x10 --iters 5
            --halo-width 2 --boundary dirichlet --verify on RANKS 4 THREADS 2 LABELS apps)
foreach(grid 7x9x8 1x9x8)
  hk_mpi_test(jacobi.s27.xwrap.${grid} hk-jacobi ARGS --stencil 27 --mode task-balanced --grid ${grid}
              --iters 7 --verify on RANKS 1 2 THREADS 3 LABELS apps)
endforeach()
# messages and bytes per exchange (all ranks) against a hand count.  4 ranks, Dirichlet, 12^3:
# 1x2x2 (of the grids with least surface hk-jacobi splits z, then y, before x) blocks of
# 12x6x6; each rank has a y, a z and (27-point only) a yz-diagonal neighbour:
# 8 vs 12 messages; faces of 12x6 cells (576 B), the diagonal an edge of 12 cells (96 B):
# 4 x 2 x 576 = 4608 vs 4608 + 4 x 96 = 4992 B.  1 rank, periodic, x wrapped by the sweeps:
# y and z faces to itself (4) vs every offset with dx = 0 (8); x in the halo: 6 vs 26.
foreach(check "msgs.faces;msgs_intra +8 msgs/exchange;7" "msgs.full;msgs_intra +12 msgs/exchange;27"
              "bytes.faces;bytes_intra +4608 B/exchange;7" "bytes.full;bytes_intra +4992 B/exchange;27")
  list(GET check 0 what)
  list(GET check 1 regex)
  list(GET check 2 points)
  hk_expect_test(jacobi.s27.${what} 0 "${regex}" NP 4 COMMAND ${JAC} --stencil ${points}
                 --grid 12x12x12 --boundary dirichlet --iters 1 --verify off)
endforeach()
hk_expect_test(jacobi.s27.procs 0 "procs +1x2x2" NP 4 COMMAND ${JAC} --stencil 27 --grid 12x12x12
               --boundary dirichlet --iters 1 --verify off)
foreach(check "s27.msgs.xwrap;msgs_self +8 msgs/exchange;27;on" "s7.msgs.xwrap;msgs_self +4 msgs/exchange;7;on"
              "s27.msgs.self;msgs_self +26 msgs/exchange;27;off" "s7.msgs.self;msgs_self +6 msgs/exchange;7;off")
  list(GET check 0 what)
  list(GET check 1 regex)
  list(GET check 2 points)
  list(GET check 3 wrap)
  hk_expect_test(jacobi.${what} 0 "${regex}" NP 1 COMMAND ${JAC} --stencil ${points} --grid 8x8x8
                 --iters 1 --x-wrap ${wrap})
endforeach()
hk_expect_test(jacobi.s27.reported 0 "27-point Jacobi.*full stencil" NP 1 COMMAND ${JAC}
               --stencil 27 --grid 8x8x8 --iters 1)
hk_expect_test(jacobi.bad_stencil 2 "^hk-jacobi: error: (rank 0: )?--stencil 9: 7 or 27$" ONCE NP 2
               COMMAND ${JAC} --stencil 9)
hk_expect_test(jacobi.s27.not_2d 2 "--stencil 27 is 3D only" ONCE NP 2 COMMAND ${JAC} --stencil 27
               --dims 2)
hk_expect_test(jacobi.s27.not_nt 2 "--stores nt: the 27-point sweep writes with cached stores only"
               ONCE NP 2 COMMAND ${JAC} --stencil 27 --stores nt)
# rows longer than the sweep's chunk of 512 columns (chunk seams; x wrapped at 1 rank)
hk_mpi_test(jacobi.s27.chunks hk-jacobi ARGS --stencil 27 --grid 1100x3x4 --iters 3 --verify on
            RANKS 1 2 THREADS 1 LABELS apps)
