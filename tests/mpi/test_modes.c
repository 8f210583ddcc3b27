/* tests/mpi/test_modes.c: the mode engine (hk_mode_run) does what each row of the table says,
 * with a recording data structure of NMSG messages (no real traffic): every piece of every
 * operation runs exactly once; post/wait from the threads the mode names (the caller outside
 * parallel regions, the master, every thread, threads 0..m-1); in overlap modes with threads to
 * spare the communicators never compute the local part; the boundary (and a non-overlapped
 * local part) only after every wait; whole replaces local + boundary where nothing overlaps;
 * an error of post on one thread is returned and the boundary skipped; argument errors. */
#include <omp.h>
#include <stdlib.h>
#include "hybridkit.h"
#include "hk_test_mpi.h"

enum { NMSG = 5, MAXP = 64 };
enum { OP_PACK, OP_POST, OP_WAIT, OP_UNPACK, OP_LOCAL, OP_BOUNDARY, OP_WHOLE, NOPS };

typedef struct rec {
  int count[NOPS][MAXP];     /* calls per piece (messages for post/wait/unpack) */
  int pieces[NOPS];          /* the `pieces` of the last call */
  int thread_of[NOPS][MAXP]; /* the OpenMP thread of the call, -1 outside parallel regions */
  int waits_done;
  int early;                 /* boundary (or a non-overlapped local part) before the last wait */
  int fail_msg;              /* post of this message fails (-1: none) */
  int overlap;
  int bad_piece;             /* a piece outside 0 .. pieces-1 */
} rec_t;

static void note(rec_t *r, int op, int piece, int pieces)
{
  if (piece < 0 || piece >= pieces || piece >= MAXP) {
    r->bad_piece = 1;
    return;
  }
#pragma omp atomic
  r->count[op][piece]++;
  r->pieces[op] = pieces;
  r->thread_of[op][piece] = omp_in_parallel() ? omp_get_thread_num() : -1;
  int done;
#pragma omp atomic read
  done = r->waits_done;
  if ((op == OP_BOUNDARY || op == OP_WHOLE || (op == OP_LOCAL && !r->overlap)) && done < NMSG)
    r->early = 1;
}

static void op_pack(void *a, int k, int n) { note(a, OP_PACK, k, n); }
static void op_unpack(void *a, int k, int n)
{
  for (int m = k; m < NMSG; m += n)
    note(a, OP_UNPACK, m, NMSG);
}
static void op_local(void *a, int k, int n) { note(a, OP_LOCAL, k, n); }
static void op_boundary(void *a, int k, int n) { note(a, OP_BOUNDARY, k, n); }
static void op_whole(void *a, int k, int n) { note(a, OP_WHOLE, k, n); }
static int op_post(void *a, int first, int stride)
{
  rec_t *r = a;
  for (int m = first; m < NMSG; m += stride) {
    note(r, OP_POST, m, NMSG);
    if (m == r->fail_msg)
      return HK_ERR_MPI;
  }
  return HK_SUCCESS;
}
static int op_wait(void *a, int first, int stride)
{
  rec_t *r = a;
  for (int m = first; m < NMSG; m += stride) {
    note(r, OP_WAIT, m, NMSG);
#pragma omp atomic
    r->waits_done++;
  }
  return HK_SUCCESS;
}

/* every piece of op called once */
static int once_each(const rec_t *r, int op)
{
  int ok = r->pieces[op] > 0;
  for (int k = 0; k < r->pieces[op] && k < MAXP; k++)
    ok &= r->count[op][k] == 1;
  return ok;
}

static int run(hk_mode_t mode, int n, int m, int with_whole, int fail_msg, rec_t *r)
{
  memset(r, 0, sizeof *r);
  r->fail_msg = fail_msg;
  hk_mode_info_t info;
  hk_mode_get_info(mode, &info);
  r->overlap = info.overlap;
  hk_mode_ops_t ops = {.arg = r, .pack = op_pack, .post = op_post, .wait = op_wait,
                       .unpack = op_unpack, .unpack_msgs = op_unpack, .local = op_local,
                       .boundary = op_boundary, .whole = with_whole ? op_whole : NULL};
  hk_mode_times_t t;
  return hk_mode_run(mode, n, m, &ops, &t);
}

/* the threads that posted message i, as the row says */
static void check_comm_threads(hk_mode_t mode, const hk_mode_info_t *info, int n, int m, const rec_t *r)
{
  int ncomm = info->comm == HK_MODE_COMM_ALL ? n : info->comm == HK_MODE_COMM_RESERVED ? m : 1;
  for (int i = 0; i < NMSG; i++) {
    int want = info->comm == HK_MODE_COMM_CALLER ? -1 : n == 1 ? -1 : i % ncomm;
    if (info->comm == HK_MODE_COMM_MASTER && n > 1)
      want = 0;
    if (r->thread_of[OP_POST][i] != want || r->thread_of[OP_WAIT][i] != want)
      fprintf(stderr, "%s, %d threads: message %d posted by %d, waited by %d, want %d\n",
              hk_mode_name(mode), n, i, r->thread_of[OP_POST][i], r->thread_of[OP_WAIT][i], want);
    CHECK(r->thread_of[OP_POST][i] == want && r->thread_of[OP_WAIT][i] == want);
  }
  if (info->overlap && !info->balanced && n > ncomm)
    for (int k = 0; k < r->pieces[OP_LOCAL]; k++)
      CHECK(r->thread_of[OP_LOCAL][k] >= ncomm);
}

static void check_mode(hk_mode_t mode, int n)
{
  hk_mode_info_t info;
  CHECK_EQ_INT(hk_mode_get_info(mode, &info), HK_SUCCESS);
  CHECK_EQ_INT(info.level, hk_mode_thread_level(mode));
  const int nt = info.level == HK_THREAD_SINGLE ? 1 : n;
  const int m = info.reserved < 0 && nt > 1 ? nt - 1 : 1; /* multiple-reserved: m = n-1 */
  rec_t *r = calloc(1, sizeof *r);
  for (int with_whole = 0; with_whole < 2; with_whole++) {
    CHECK_EQ_INT(run(mode, n, m, with_whole, -1, r), HK_SUCCESS);
    CHECK(once_each(r, OP_PACK) && once_each(r, OP_POST) && once_each(r, OP_WAIT));
    CHECK(once_each(r, OP_UNPACK));
    int whole = with_whole && !info.overlap;
    CHECK(whole ? once_each(r, OP_WHOLE) && !r->pieces[OP_LOCAL] && !r->pieces[OP_BOUNDARY]
                : once_each(r, OP_LOCAL) && once_each(r, OP_BOUNDARY) && !r->pieces[OP_WHOLE]);
    CHECK(!r->early);
    CHECK(!r->bad_piece);
    check_comm_threads(mode, &info, nt, m, r);
  }
  CHECK_EQ_INT(run(mode, n, m, 0, NMSG - 1, r), HK_ERR_MPI); /* the last message's thread fails */
  CHECK(r->pieces[OP_BOUNDARY] == 0 && r->pieces[OP_WHOLE] == 0);
  free(r);
}

static void check_args(void)
{
  rec_t r = {0};
  hk_mode_ops_t ops = {.arg = &r, .pack = op_pack, .post = op_post, .wait = op_wait};
  CHECK_EQ_INT(hk_mode_run(HK_MODE_TASK, 2, 0, NULL, NULL), HK_ERR_ARG);
  CHECK_EQ_INT(hk_mode_run(HK_MODE_TASK, 0, 0, &ops, NULL), HK_ERR_ARG);
  CHECK_EQ_INT(hk_mode_run(HK_MODE_TASK, 4097, 0, &ops, NULL), HK_ERR_ARG);
  ops.unpack = op_unpack; /* without unpack_msgs: the task modes could not unpack */
  CHECK_EQ_INT(hk_mode_run(HK_MODE_TASK, 2, 0, &ops, NULL), HK_ERR_ARG);
  ops.unpack = NULL;
  CHECK_EQ_INT(hk_mode_run(HK_MODE_COUNT, 1, 0, &ops, NULL), HK_ERR_ARG);
  int in_region = HK_SUCCESS; /* an active region: a team of one is none for omp_in_parallel */
#pragma omp parallel num_threads(2) reduction(min : in_region)
  in_region = hk_mode_run(HK_MODE_PURE, 1, 0, &ops, NULL);
  CHECK_EQ_INT(in_region, HK_ERR_STATE);
  hk_mode_info_t info;
  CHECK_EQ_INT(hk_mode_get_info((hk_mode_t)-1, &info), HK_ERR_ARG);
  CHECK_EQ_INT(hk_mode_get_info(HK_MODE_PURE, NULL), HK_ERR_ARG);
}

/* --funneled, HK_CHECK_MASTERONLY=1, 2 threads: the engine checks every post and wait of a
 * data structure that calls no library function (a user's) against the level asked */
static void check_guard(void)
{
  rec_t *r = calloc(1, sizeof *r);
  CHECK_EQ_INT(run(HK_MODE_FUNNELED, 2, 1, 0, -1, r), HK_SUCCESS);
  CHECK_EQ_INT(run(HK_MODE_TASK, 2, 1, 0, -1, r), HK_SUCCESS);
  CHECK_EQ_INT(run(HK_MODE_MULTIPLE, 2, 1, 0, -1, r), HK_ERR_MASTERONLY);
  CHECK(r->count[OP_POST][1] == 0); /* thread 1 was stopped before its post */
  free(r);
}

int main(int argc, char **argv)
{
  const int guard = argc > 1 && strcmp(argv[1], "--funneled") == 0;
  if (hk_init(&argc, &argv, guard ? HK_THREAD_FUNNELED : HK_THREAD_MULTIPLE) != HK_SUCCESS) {
    fprintf(stderr, "%s\n", hk_error_message());
    hk_finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &hk_test_rank);
  if (guard) {
    check_guard();
  } else {
    check_args();
    for (int mode = 0; mode < HK_MODE_COUNT; mode++)
      check_mode((hk_mode_t)mode, omp_get_max_threads());
  }
  int rc = hk_test_mpi_report("test_modes");
  hk_finalize();
  return rc;
}
