! tests/coll/fortran_colls.f90: the five collectives beyond the allreduce through `use mpi`
! under the preload (the body: fortran_colls_body.inc)
program colls
  use mpi
  implicit none
  include 'fortran_colls_body.inc'
end program
