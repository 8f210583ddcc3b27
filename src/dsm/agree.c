/* src/dsm/agree.c: the region's collectives among themselves, all timed (a rank that never
 * arrives breaks the region after HK_DSM_TIMEOUT instead of hanging it): which collective
 * every rank is in (hk__dsm_sync), and the agreement on a local error with the lowest
 * failing rank's message (hk__dsm_agree), as hk_agree gives it on a communicator. */
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include "dsm_internal.h"
#include "internal/hk_internal.h"

void hk__dsm_nap(int i)
{
  if (i < 64) {
    sched_yield();
    return;
  }
  struct timespec ts = {0, i < 1000 ? 20000 : 200000};
  nanosleep(&ts, NULL);
}

/* complete a nonblocking collective, or give up after the region's timeout (the region
 * is then broken: its collectives cannot be matched any more) */
int hk__dsm_wait(struct hk_dsm *d, MPI_Request *req, const char *what)
{
  double t0 = hk__dsm_now();
  for (int i = 0;; i++) {
    int done = 0, rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      d->broken = 1;
      return hk__mpi_error(rc, __FILE__, __LINE__, __func__, what);
    }
    if (done)
      return HK_SUCCESS;
    if (hk__dsm_now() - t0 > d->timeout) {
      d->broken = 1;
      return HK_ERROR(HK_ERR_STATE, "%s: not every rank of the region arrived within %g s "
                      "(a rank skipped it, or is stuck elsewhere); the region is unusable",
                      what, d->timeout);
    }
    hk__dsm_nap(i);
  }
}

static const char *op_name(int op) { return op == 1 ? "hk_dsm_barrier" : "hk_dsm_free"; }

/* every rank says which collective it is in (1 barrier, 2 free); all must agree */
int hk__dsm_sync(struct hk_dsm *d, int op, const char *what)
{
  if (d->broken)
    return HK_ERROR(HK_ERR_STATE, "%s: the region is unusable after an earlier error", what);
  /* the buffers live in the region: when another rank gives up waiting, its request stays
   * pending and may still be written into after this function returned */
  int *in = d->sync_buf, *out = d->sync_buf + 2;
  in[0] = op;
  in[1] = -op;
  MPI_Request req;
  int rc = PMPI_Iallreduce(in, out, 2, MPI_INT, MPI_MAX, d->comm, &req);
  if (rc != MPI_SUCCESS) {
    d->broken = 1;
    return hk__mpi_error(rc, __FILE__, __LINE__, __func__, "MPI_Iallreduce");
  }
  int err = hk__dsm_wait(d, &req, what);
  if (err != HK_SUCCESS)
    return err;
  if (out[0] != -out[1]) {
    int a = out[0], b = -out[1];
    /* A second, timed agreement: when it completes, every rank is here and knows (a rank
     * that gave up on an earlier step never posts it).  Then the region's MPI objects go
     * down together, so that MPI_Finalize does not meet windows that can never be freed
     * (MPICH over UCX aborts on them). */
    in[0] = 1;
    rc = PMPI_Iallreduce(in, out, 1, MPI_INT, MPI_MAX, d->comm, &req);
    int torn_ok = rc == MPI_SUCCESS && hk__dsm_wait(d, &req, what) == HK_SUCCESS;
    d->broken = 1;
    if (torn_ok)
      hk__dsm_teardown(d);
    return HK_ERROR(HK_ERR_STATE, "%s: the ranks disagree: some called %s, others %s "
                    "(every rank must make the same collective calls on a region)",
                    what, op_name(b), op_name(a));
  }
  return HK_SUCCESS;
}

/* a timed collective of the region on its own buffers (an abandoned request may still
 * write into them) */
static int dsm_wait_coll(struct hk_dsm *d, int rc, MPI_Request *req, const char *what)
{
  if (rc != MPI_SUCCESS) {
    d->broken = 1;
    return hk__mpi_error(rc, __FILE__, __LINE__, __func__, what);
  }
  return hk__dsm_wait(d, req, what);
}

/* the agreed error `code` (every rank knows it failed): the lowest failing rank's message
 * on every rank, as hk_agree gives it */
int hk__dsm_agree_message(struct hk_dsm *d, int err, int code, const char *what)
{
  int *in = d->sync_buf, *out = d->sync_buf + 2, e;
  MPI_Request req;
  in[0] = err != HK_SUCCESS ? d->rank : d->size;
  e = dsm_wait_coll(d, PMPI_Iallreduce(in, out, 1, MPI_INT, MPI_MIN, d->comm, &req), &req, what);
  if (e != HK_SUCCESS)
    return e;
  int first = out[0];
  if (d->rank == first)
    snprintf(d->agree_msg, sizeof d->agree_msg, "%s", hk_error_message());
  e = dsm_wait_coll(d, PMPI_Ibcast(d->agree_msg, (int)sizeof d->agree_msg, MPI_CHAR, first, d->comm,
                                   &req), &req, what);
  if (e != HK_SUCCESS)
    return e;
  hk__agreed_message(first, d->size, d->agree_msg);
  return code;
}

/* the lowest error code of the region's ranks, with the lowest failing rank's message
 * (timed like the region's other collectives) */
int hk__dsm_agree(struct hk_dsm *d, int err, const char *what)
{
  int *in = d->sync_buf, *out = d->sync_buf + 2;
  MPI_Request req;
  in[0] = err;
  int e = dsm_wait_coll(d, PMPI_Iallreduce(in, out, 1, MPI_INT, MPI_MIN, d->comm, &req), &req, what);
  if (e != HK_SUCCESS || out[0] == HK_SUCCESS)
    return e;
  return hk__dsm_agree_message(d, err, out[0], what);
}
