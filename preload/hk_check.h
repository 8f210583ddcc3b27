/* preload/hk_check.h: what libhybridkit-check.so tells a program (or a test)
 * that asks.  Find it with dlsym(RTLD_DEFAULT, "hk_check_query") (NULL: the
 * checker is not preloaded): no link dependency on the checker. */
#ifndef HK_CHECK_H
#define HK_CHECK_H

typedef struct hk_check_state {
  int active;              /* MPI_Init(_thread) went through the checker */
  int level;               /* MPI_THREAD_* whose rule is checked */
  int in_call;             /* threads inside a wrapped MPI call right now */
  long long violations;    /* violations seen by this rank so far */
} hk_check_state_t;

typedef int (*hk_check_query_fn)(hk_check_state_t *state);
int hk_check_query(hk_check_state_t *state); /* exported by the checker */

#endif
