! tests/profile/fortran/prof_f77.f: an F77 program (include 'mpif.h') whose MPI
! calls are known in advance, for the profiler's and the checker's Fortran tests
! (tests/profile.cmake; check_fortran.py holds the expected numbers).  The same
! calls as prof_f90.f90 (use mpi) and prof_f08.f90 (use mpi_f08), on a ring:
!   MPI_Init; MPI_Comm_rank, MPI_Comm_size once
!   3 x MPI_Send of 100 DOUBLE PRECISION (800 bytes) to the right neighbour,
!       MPI_Recv from the left (status checked), MPI_Get_count (= 100)
!   2 x MPI_Irecv + MPI_Isend of 10 INTEGERs, MPI_Waitall(MPI_STATUSES_IGNORE)
!   4 x MPI_Allreduce of 64 DOUBLE PRECISION (512 bytes)
!   2 x MPI_Allreduce(MPI_IN_PLACE) of 16 INTEGERs (64 bytes)
!   MPI_Barrier; MPI_Finalize
! Every result is checked; a wrong one exits with status 1 after MPI_Finalize.
! The profile names a line of each call statement.
      program prof_f77
      implicit none
      include 'mpif.h'
      integer ierr, rank, np, left, right, k, i, n
      integer st(MPI_STATUS_SIZE), req(2), ibuf(10), iget(10)
      integer c(16)
      double precision x(100), y(100), a(64), b(64)
      logical ok
      ok = .true.
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
      right = mod(rank + 1, np)
      left = mod(rank + np - 1, np)
      do i = 1, 100
        x(i) = rank * 1000 + i
      end do
      do k = 1, 3
        if (mod(rank, 2) .eq. 0) then
          call MPI_SEND(x, 100, MPI_DOUBLE_PRECISION, right, 1,
     &                  MPI_COMM_WORLD, ierr)
        end if
        call MPI_RECV(y, 100, MPI_DOUBLE_PRECISION, left, 1,
     &                MPI_COMM_WORLD, st, ierr)
        if (mod(rank, 2) .ne. 0) then
          call MPI_SEND(x, 100, MPI_DOUBLE_PRECISION, right, 1,
     &                  MPI_COMM_WORLD, ierr)
        end if
        call MPI_GET_COUNT(st, MPI_DOUBLE_PRECISION, n, ierr)
        ok = ok .and. n .eq. 100 .and. st(MPI_SOURCE) .eq. left
        ok = ok .and. y(7) .eq. left * 1000 + 7
      end do
      do k = 1, 2
        ibuf = rank + k
        call MPI_IRECV(iget, 10, MPI_INTEGER, left, 2,
     &                 MPI_COMM_WORLD, req(1), ierr)
        call MPI_ISEND(ibuf, 10, MPI_INTEGER, right, 2,
     &                 MPI_COMM_WORLD, req(2), ierr)
        call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
        ok = ok .and. iget(10) .eq. left + k
        ok = ok .and. req(1) .eq. MPI_REQUEST_NULL
      end do
      do k = 1, 4
        a = rank + k
        call MPI_ALLREDUCE(a, b, 64, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                     MPI_COMM_WORLD, ierr)
        ok = ok .and. b(64) .eq. np * (np - 1) / 2 + np * k
      end do
      do k = 1, 2
        c = rank + 1
        call MPI_ALLREDUCE(MPI_IN_PLACE, c, 16, MPI_INTEGER, MPI_SUM,
     &                     MPI_COMM_WORLD, ierr)
        ok = ok .and. c(16) .eq. np * (np + 1) / 2
      end do
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      call MPI_FINALIZE(ierr)
      if (.not. ok) then
        print *, 'prof_f77: rank', rank, ': wrong results'
        stop 1
      end if
      end
