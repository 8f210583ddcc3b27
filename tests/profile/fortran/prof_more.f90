! tests/profile/fortran/prof_more.f90: a `use mpi_f08` program whose calls exercise the
! Fortran conversions the ring programs (prof_f77.f) do not: communicators out and
! in-out (dup, split, free), LOGICAL arrays (Cart_create), statuses arrays, persistent
! and freed requests, 1-based indices (Waitany, Waitsome), LOGICAL flags (Iprobe, Test*),
! MPI_UNDEFINED, MPI_IN_PLACE at a root, integer arrays (Gatherv), non-blocking
! collectives.  Every result is checked (wrong: exit status 1 after MPI_Finalize);
! check_fortran.py ("more") holds the exact calls and bytes per rank:
!   Comm_rank 1, Comm_size 2, Comm_dup 1, Comm_split 1, Comm_free 3, Cart_create 1,
!   Cart_shift 1, Sendrecv 1 (80 B), Send_init 1, Recv_init 1, Startall 1, Waitall 1,
!   Start 2, Wait 6, Request_free 2, Irecv 2 (16 B each), Isend 3 (16 B each),
!   Waitany 3, Probe 1, Iprobe 2, Recv 1 (16 B), Test 1, Testall 1, Testany 1,
!   Testsome 1, Waitsome 1, Bcast 1 (32 B), Reduce 1 (32 B), Gatherv 1 (4 B),
!   Scan 1 (4 B), Ibarrier 1, Iallreduce 1 (8 B), Barrier 1
program prof_more
  use mpi_f08
  implicit none
  integer :: rank, np, left, right, i, k, idx, outcount, src, dst, hsize, provided, me1, sc
  integer :: iv(8), gath(64), cnts(64), disp(64), idxs(2)
  integer, asynchronous :: ib(4), ig(4)
  double precision :: x(10), y(10), red(4), red2(4)
  double precision, asynchronous :: d, dsum
  logical :: ok, flag, seen(2)
  type(MPI_Comm) :: dup, half, ring
  type(MPI_Request) :: preq(2), r(2), rn(2), rs, rq
  type(MPI_Status) :: st, sts(2)
  ok = .true.
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)

  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, hsize)
  ok = ok .and. hsize == (np + 1 - mod(rank, 2)) / 2
  call MPI_Comm_free(half)
  ok = ok .and. half == MPI_COMM_NULL
  call MPI_Cart_create(dup, 1, [np], [.true.], .false., ring)
  call MPI_Cart_shift(ring, 0, 1, src, dst)
  ok = ok .and. src == left .and. dst == right
  call MPI_Comm_free(ring)

  x = rank
  call MPI_Sendrecv(x, 10, MPI_DOUBLE_PRECISION, right, 1, y, 10, MPI_DOUBLE_PRECISION, left, 1, dup, st)
  ok = ok .and. st%MPI_SOURCE == left .and. all(y == left)

  ib = rank
  call MPI_Send_init(ib, 4, MPI_INTEGER, right, 5, dup, preq(1))
  call MPI_Recv_init(ig, 4, MPI_INTEGER, left, 5, dup, preq(2))
  call MPI_Startall(2, preq)
  call MPI_Waitall(2, preq, sts)
  ok = ok .and. sts(2)%MPI_SOURCE == left .and. sts(2)%MPI_TAG == 5 .and. all(ig == left)
  ib = rank + 100
  call MPI_Start(preq(2))
  call MPI_Start(preq(1))
  call MPI_Wait(preq(2), st)
  call MPI_Wait(preq(1), MPI_STATUS_IGNORE)
  ok = ok .and. st%MPI_TAG == 5 .and. all(ig == left + 100)
  call MPI_Request_free(preq(1))
  call MPI_Request_free(preq(2))
  ok = ok .and. preq(1) == MPI_REQUEST_NULL .and. preq(2) == MPI_REQUEST_NULL

  ib = rank + 200
  call MPI_Irecv(ig, 4, MPI_INTEGER, left, 6, dup, r(1))
  call MPI_Isend(ib, 4, MPI_INTEGER, right, 6, dup, r(2))
  seen = .false.
  do k = 1, 2
    call MPI_Waitany(2, r, idx, st)
    if (idx >= 1 .and. idx <= 2) then
      seen(idx) = .true.
    else
      ok = .false.
    end if
  end do
  call MPI_Waitany(2, r, idx, MPI_STATUS_IGNORE)
  ok = ok .and. all(seen) .and. idx == MPI_UNDEFINED .and. all(ig == left + 200)

  ib = rank + 300
  call MPI_Isend(ib, 4, MPI_INTEGER, right, 7, dup, rs)
  call MPI_Probe(left, 7, dup, st)
  ok = ok .and. st%MPI_SOURCE == left .and. st%MPI_TAG == 7
  call MPI_Iprobe(left, 7, dup, flag, st)
  ok = ok .and. flag
  call MPI_Recv(ig, 4, MPI_INTEGER, left, 7, dup, MPI_STATUS_IGNORE)
  call MPI_Iprobe(left, 7, dup, flag, MPI_STATUS_IGNORE)
  ok = ok .and. .not. flag .and. all(ig == left + 300)
  call MPI_Wait(rs, MPI_STATUS_IGNORE)

  rn = MPI_REQUEST_NULL
  rq = MPI_REQUEST_NULL
  flag = .false.
  call MPI_Test(rq, flag, st)
  ok = ok .and. flag
  flag = .false.
  call MPI_Testall(2, rn, flag, MPI_STATUSES_IGNORE)
  ok = ok .and. flag
  flag = .false.
  call MPI_Testany(2, rn, idx, flag, MPI_STATUS_IGNORE)
  ok = ok .and. flag .and. idx == MPI_UNDEFINED
  call MPI_Testsome(2, rn, outcount, idxs, sts)
  ok = ok .and. outcount == MPI_UNDEFINED

  ib = rank + 400
  call MPI_Irecv(ig, 4, MPI_INTEGER, left, 9, dup, r(1))
  call MPI_Isend(ib, 4, MPI_INTEGER, right, 9, dup, rs)
  call MPI_Waitsome(1, r, outcount, idxs, sts)
  ok = ok .and. outcount == 1 .and. idxs(1) == 1 .and. sts(1)%MPI_SOURCE == left
  ok = ok .and. r(1) == MPI_REQUEST_NULL .and. all(ig == left + 400)
  call MPI_Wait(rs, MPI_STATUS_IGNORE)

  iv = 0
  if (rank == 0) iv = [(i, i = 1, 8)]
  call MPI_Bcast(iv, 8, MPI_INTEGER, 0, dup)
  ok = ok .and. iv(8) == 8
  red = rank + 1
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, red, 4, MPI_DOUBLE_PRECISION, MPI_SUM, 0, dup)
    ok = ok .and. red(4) == np * (np + 1) / 2
  else
    call MPI_Reduce(red, red2, 4, MPI_DOUBLE_PRECISION, MPI_SUM, 0, dup)
  end if
  me1 = rank + 1
  cnts = 1
  disp = [(i - 1, i = 1, 64)]
  gath = 0
  call MPI_Gatherv(me1, 1, MPI_INTEGER, gath, cnts, disp, MPI_INTEGER, 0, dup)
  if (rank == 0) ok = ok .and. gath(np) == np .and. gath(1) == 1
  call MPI_Scan(me1, sc, 1, MPI_INTEGER, MPI_SUM, dup)
  ok = ok .and. sc == (rank + 1) * (rank + 2) / 2
  call MPI_Ibarrier(dup, rs)
  call MPI_Wait(rs, st)
  d = rank
  call MPI_Iallreduce(d, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, dup, rs)
  call MPI_Wait(rs, MPI_STATUS_IGNORE)
  ok = ok .and. dsum == np * (np - 1) / 2
  call MPI_Comm_free(dup)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
  if (.not. ok) then
    print *, 'prof_more: rank', rank, ': wrong results'
    stop 1
  end if
end program prof_more
