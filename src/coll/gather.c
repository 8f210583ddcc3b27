/* src/coll/gather.c: hk_allgather and hk_alltoall (issue 39).  The starting point:
 * argument checks and PMPI_Allgather / PMPI_Alltoall (fallback `chosen`); the hybrid
 * algorithms come next. */
#include "coll/coll_internal.h"

static const hk_allreduce_opts_t defaults = HK_ALLREDUCE_OPTS_DEFAULT;

static hk_allreduce_info_t *start(const hk_allreduce_opts_t **o, const hk_allreduce_opts_t *opts,
                                  hk_allreduce_info_t *local)
{
  *o = opts ? opts : &defaults;
  *local = (hk_allreduce_info_t){HK_ALLREDUCE_MPI, 1, HK_FALLBACK_CHOSEN, MPI_SUCCESS};
  hk_allreduce_info_t *info = (*o)->info ? (*o)->info : local;
  *info = *local;
  return info;
}

int hk_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                 const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o;
  hk_allreduce_info_t local, *info = start(&o, opts, &local);
  if (sendcount < 0 || recvcount < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_allgather: counts %d, %d: negative", sendcount, recvcount);
  int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  info->mpi_error = rc;
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Allgather");
}

int hk_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                const hk_allreduce_opts_t *opts)
{
  const hk_allreduce_opts_t *o;
  hk_allreduce_info_t local, *info = start(&o, opts, &local);
  if (sendcount < 0 || recvcount < 0)
    return HK_ERROR(HK_ERR_ARG, "hk_alltoall: counts %d, %d: negative", sendcount, recvcount);
  int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  info->mpi_error = rc;
  return rc == MPI_SUCCESS ? HK_SUCCESS : HK_COLL_MPI(rc, "PMPI_Alltoall");
}
