/* preload/hk_preload_call.h: one intercepted collective call as a struct (call_t) and its
 * two dispatchers: to MPI's own (pmpi_call) and to the library's (hk_call).  Not a header
 * to include anywhere else: hk_preload_colls.h includes it once (the K_* kinds). */

/* ---- MPI_Reduce, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Allgather, MPI_Alltoall ---- */
typedef struct call {
  int kind;
  const void *sbuf;
  void *rbuf;
  int count;              /* count (reduce, bcast, scans), recvcount (the block forms);
                             the v forms: the sum of their counts (0 when it is no int) */
  const int *counts;      /* the v forms: recvcounts; allgatherv: displs */
  const int *displs;
  const int *scounts;     /* alltoallv: sendcounts, sdispls (counts, displs: the receive side) */
  const int *sdispls;
  MPI_Datatype type;      /* datatype, recvtype (allgather, alltoall) */
  int scount;             /* allgather, alltoall: sendcount, sendtype */
  MPI_Datatype stype;
  MPI_Op op;
  int root;
  MPI_Comm comm;
} call_t;

static int pmpi_call(const call_t *a)
{
  switch (a->kind) {
  case K_REDUCE:
    return PMPI_Reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, a->comm);
  case K_REDUCE_SCATTER:
    return PMPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
  case K_BCAST:
    return PMPI_Bcast(a->rbuf, a->count, a->type, a->root, a->comm);
  case K_ALLGATHER:
    return PMPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm);
  case K_SCAN:
    return PMPI_Scan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
  case K_EXSCAN:
    return PMPI_Exscan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
  case K_ALLGATHERV:
    return PMPI_Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->counts, a->displs, a->type,
                           a->comm);
  case K_REDUCE_SCATTER_V:
    return PMPI_Reduce_scatter(a->sbuf, a->rbuf, a->counts, a->type, a->op, a->comm);
  case K_ALLTOALLV:
    return PMPI_Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->counts,
                          a->displs, a->type, a->comm);
  default:
    return PMPI_Alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm);
  }
}

static int hk_call(const call_t *a, const hk_allreduce_opts_t *o)
{
  switch (a->kind) {
  case K_REDUCE:
    return hk_reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, a->comm, o);
  case K_REDUCE_SCATTER:
    return hk_reduce_scatter_block(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm, o);
  case K_BCAST:
    return hk_bcast(a->rbuf, a->count, a->type, a->root, a->comm, o);
  case K_ALLGATHER:
    return hk_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm, o);
  case K_SCAN:
    return hk_scan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm, o);
  case K_EXSCAN:
    return hk_exscan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm, o);
  case K_ALLGATHERV:
    return hk_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->counts, a->displs, a->type,
                         a->comm, o);
  case K_REDUCE_SCATTER_V:
    return hk_reduce_scatter(a->sbuf, a->rbuf, a->counts, a->type, a->op, a->comm, o);
  case K_ALLTOALLV:
    return hk_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->counts, a->displs,
                        a->type, a->comm, o);
  default:
    return hk_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->count, a->type, a->comm, o);
  }
}

