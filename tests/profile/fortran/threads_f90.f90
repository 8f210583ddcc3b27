! tests/profile/fortran/threads_f90.f90: a `use mpi` program that breaks the thread
! level it asked for, for the checker's Fortran test (tests/profile.cmake): it asks
! MPI_THREAD_FUNNELED, then every OpenMP thread of a parallel region, in thread
! order (ordered loop), exchanges 4 INTEGERs with the partner rank (ranks 2k and
! 2k+1; an even number of ranks): the even rank's thread t calls MPI_Send, the odd
! rank's MPI_Recv, with tag t.  With OMP_NUM_THREADS=2, thread 1's call is the
! violation: one MPI_Send per even rank, one MPI_Recv per odd rank.  The calls
! are in subroutine exchange (not inlined: -fno-inline), the site the checker
! names.  Wrong data exits with status 1 after MPI_Finalize.
program threads_f90
  use mpi
  use omp_lib
  implicit none
  integer :: ierr, provided, rank, np, t, nt
  logical :: ok
  ok = .true.
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nt = omp_get_max_threads()
  !$omp parallel do ordered schedule(static, 1) num_threads(nt) reduction(.and.:ok)
  do t = 0, nt - 1
    !$omp ordered
    call exchange(rank, t, ok)
    !$omp end ordered
  end do
  !$omp end parallel do
  call MPI_Finalize(ierr)
  if (.not. ok) then
    print *, 'threads_f90: rank', rank, ': wrong data'
    stop 1
  end if
end program threads_f90

subroutine exchange(rank, tag, ok)
  use mpi
  implicit none
  integer, intent(in) :: rank, tag
  logical, intent(inout) :: ok
  integer :: buf(4), st(MPI_STATUS_SIZE), ierr
  if (mod(rank, 2) == 0) then
    buf = 100 * rank + tag
    call MPI_Send(buf, 4, MPI_INTEGER, rank + 1, tag, MPI_COMM_WORLD, ierr)
  else
    call MPI_Recv(buf, 4, MPI_INTEGER, rank - 1, tag, MPI_COMM_WORLD, st, ierr)
    ok = ok .and. all(buf == 100 * (rank - 1) + tag) .and. st(MPI_TAG) == tag
  end if
end subroutine exchange
