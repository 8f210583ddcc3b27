/* src/coll/bcast.c: hk_bcast (issue 39).  The starting point: argument checks and
 * PMPI_Bcast (fallback `chosen`); the hybrid algorithms come next. */
#include "coll/coll_internal.h"

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

int hk_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
             const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o = opts ? opts : &defaults;
  hk_allreduce_info_t local = {HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = o->info ? o->info : &local;
  *info = local;
  int inter = 0, size = 0;
  if (count < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: count %d < 0", count);
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  if (!inter && (root < 0 || root >= size))
    return HK_ERROR(HK_ERR_ARG, "hk_bcast: root %d outside the %d ranks of comm", root, size);
  int rc = PMPI_Bcast(buffer, count, datatype, root, comm);
  info->mpi_error = rc;
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Bcast");
}
