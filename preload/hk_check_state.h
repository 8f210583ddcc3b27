/* preload/hk_check_state.h: the state of libhybridkit-check.so that its wrappers
 * (hk_check.c) and its JSON Lines records (hk_check_records.c) share.  Hidden. */
#ifndef HK_CHECK_STATE_H
#define HK_CHECK_STATE_H

#include <pthread.h>
#include "hk_check_ids.h"
#include "hk_tool.h"

#define HK_CHECK_HIDDEN __attribute__((visibility("hidden")))

/* the rules a call can break: the record's "rule" */
enum { WHY_OFF_MAIN, WHY_PARALLEL, WHY_OVERLAP, NWHY };

/* the first violation of a (call, rule) on a rank: who made it, and where */
typedef struct first {
  int call, why, rank, omp_thread, omp_threads, omp_level;
  long tid;
  hk_tool_loc_t loc; /* dladdr */
  hk_tool_src_t src; /* addr2line, when records are written */
} first_t;

typedef struct hk__check {
  int active;              /* between our MPI_Init(_thread) and MPI_Finalize */
  int level, required, provided, rank, size;
  pthread_t main_thread;
  int in_call;             /* atomic: threads inside a wrapped call */
  long long checked;       /* atomic: calls checked */
  long long count[NCALLS][NWHY]; /* atomic: violations per call and rule */
  int reported[NCALLS][NWHY];    /* atomic: the first one was taken */
  first_t first[NCALLS][NWHY];   /* written by the thread that took it */
  int fatal, abort;        /* HK_CHECK_FATAL, HK_CHECK_ABORT */
  int aborting;            /* atomic: a thread is stopping the job */
  char output[1024];       /* HK_CHECK_OUTPUT, "" none */
} hk__check_t;

HK_CHECK_HIDDEN extern hk__check_t hk__ck;
HK_CHECK_HIDDEN extern const char *const hk__check_call_names[NCALLS]; /* "MPI_Send", ... */
HK_CHECK_HIDDEN extern const char *const hk__check_why_text[NWHY];
#define ck hk__ck
#define call_names hk__check_call_names
#define why_text hk__check_why_text

/* the check.first record of a first violation (aborting: the job stops with it) */
HK_CHECK_HIDDEN void hk__check_first_record(const first_t *f, int aborting);
/* HK_CHECK_OUTPUT at MPI_Finalize (collective over MPI_COMM_WORLD, PMPI): rank 0 appends a
 * check.violation per (call, rule) any rank broke - the counts per rank, the first site of
 * the lowest rank that broke it - and the check.summary */
HK_CHECK_HIDDEN void hk__check_records(long long checked, long long total);

#endif
