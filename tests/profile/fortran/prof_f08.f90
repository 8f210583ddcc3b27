! tests/profile/fortran/prof_f08.f90: prof_f77.f's MPI calls through `use mpi_f08`
! (see that file), starting with MPI_Init_thread(MPI_THREAD_FUNNELED); some calls
! leave out the optional ierror.
program prof_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, np, left, right, k, n, provided
  type(MPI_Status) :: st
  type(MPI_Request) :: req(2)
  integer :: ibuf(10), iget(10), c(16)
  double precision :: x(100), y(100), a(64), b(64)
  logical :: ok
  ok = .true.
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  right = mod(rank + 1, np)
  left = mod(rank + np - 1, np)
  x = [(rank * 1000 + k, k = 1, 100)]
  do k = 1, 3
    if (mod(rank, 2) == 0) call MPI_Send(x, 100, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD)
    call MPI_Recv(y, 100, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, st, ierr)
    if (mod(rank, 2) /= 0) call MPI_Send(x, 100, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD)
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
    ok = ok .and. n == 100 .and. st%MPI_SOURCE == left .and. y(7) == left * 1000 + 7
  end do
  do k = 1, 2
    ibuf = rank + k
    call MPI_Irecv(iget, 10, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(ibuf, 10, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    ok = ok .and. iget(10) == left + k .and. req(1) == MPI_REQUEST_NULL
  end do
  do k = 1, 4
    a = rank + k
    call MPI_Allreduce(a, b, 64, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    ok = ok .and. b(64) == np * (np - 1) / 2 + np * k
  end do
  do k = 1, 2
    c = rank + 1
    call MPI_Allreduce(MPI_IN_PLACE, c, 16, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    ok = ok .and. c(16) == np * (np + 1) / 2
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize()
  if (.not. ok) then
    print *, 'prof_f08: rank', rank, ': wrong results'
    stop 1
  end if
end program prof_f08
