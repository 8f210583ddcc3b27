! tests/coll/fortran_colls_f08.f90: the five collectives beyond the allreduce through
! `use mpi_f08` under the preload (the body: fortran_colls_body.inc)
program colls08
  use mpi_f08
  implicit none
  include 'fortran_colls_body.inc'
end program
