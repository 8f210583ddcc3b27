! tests/coll/fortran_allreduce_f08.f90: fortran_allreduce.f90 through `use mpi_f08` under the
! preload: separate buffers and MPI_IN_PLACE, a sub-communicator, checked against formulas;
! some calls leave the optional ierror out (the binding then passes no address for it)
program conf08
  use mpi_f08
  implicit none
  integer :: ierr, rank, n, provided, queried, i, bad, allbad, subn, rep
  integer, parameter :: m = 20000
  integer :: a(m), b(m)
  double precision :: x(m), y(m)
  type(MPI_Comm) :: sub
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Query_thread(queried)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n)
  bad = 0
  if (provided /= MPI_THREAD_FUNNELED .or. queried /= MPI_THREAD_FUNNELED) bad = bad + 1
  do rep = 1, 3
    do i = 1, m
      a(i) = rank + i
      x(i) = dble(rank * 3 + mod(i, 11))
    end do
    call MPI_Allreduce(a, b, m, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    do i = 1, m
      if (b(i) /= n * i + n * (n - 1) / 2) bad = bad + 1
    end do
    call MPI_Allreduce(MPI_IN_PLACE, x, m, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    do i = 1, m
      if (x(i) /= dble(3 * n * (n - 1) / 2 + n * mod(i, 11))) bad = bad + 1
    end do
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
    call MPI_Comm_size(sub, subn, ierr)
    if (mod(rank, 2) == 1) then
      y = 1.0d0
      call MPI_Allreduce(MPI_IN_PLACE, y, m, MPI_DOUBLE_PRECISION, MPI_MAX, sub)
      if (y(m) /= 1.0d0) bad = bad + 1
    end if
    call MPI_Comm_free(sub, ierr)
  end do
  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'fortran-conformance: ', n, ' ranks, ', allbad, ' failed'
  call MPI_Finalize()
  if (allbad /= 0) stop 1
end program
