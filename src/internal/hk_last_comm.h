/* src/internal/hk_last_comm.h: "this thread's last communicator" -- a per-communicator
 * state found without a lock or the attribute look-up, one definition for the collectives'
 * cache (src/coll/cache.c) and the preload's counters and memo (preload/hk_preload_memo.h).
 *
 * A user keeps a generation (unsigned, static, +1 on every free of a state: a handle MPI
 * reuses for a new communicator never finds the old state) and one HK__LAST_TLS
 * hk__last_comm_t per thread; the remembered state is valid while the generation it was
 * read with is current.  States are freed only with their communicator (MPI_Comm_free,
 * MPI_Finalize), which no other call may overlap on it.
 *
 *   unsigned now;
 *   void *s = hk__last_comm_get(&last, &gen, comm, &now);   NULL: look it up, then
 *   hk__last_comm_put(&last, comm, found, now);              now read before the look-up
 *   hk__last_comm_bump(&gen);                                 in the free
 *
 * The TLS model: initial-exec (no __tls_get_addr call) except under SMPI, where smpirun
 * dlopens the binary once per rank and initial-exec TLS in a dlopened object takes the
 * static TLS block's small surplus, gone after a few ranks ("cannot allocate memory in
 * static TLS block", test_simulate at 4-8 ranks).  Never installed; static inline. */
#ifndef HK_LAST_COMM_H
#define HK_LAST_COMM_H

#include <mpi.h>
#include "internal/hk_internal.h" /* HK_UNDER_SMPI */

#if HK_UNDER_SMPI
#define HK__LAST_TLS _Thread_local
#else
#define HK__LAST_TLS __thread __attribute__((tls_model("initial-exec")))
#endif

typedef struct hk__last_comm {
  MPI_Comm comm;
  void *state;
  unsigned gen;
} hk__last_comm_t;

/* the state this thread remembered for comm, or NULL; *now: the generation to put with */
static inline void *hk__last_comm_get(const hk__last_comm_t *last, const unsigned *gen,
                                      MPI_Comm comm, unsigned *now)
{
  *now = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
  return last->state && last->comm == comm && last->gen == *now ? last->state : NULL;
}

/* remember state for comm, valid from generation now (read before the look-up: a free
 * since then makes it stale at once) */
static inline void hk__last_comm_put(hk__last_comm_t *last, MPI_Comm comm, void *state,
                                     unsigned now)
{
  *last = (hk__last_comm_t){comm, state, now};
}

/* a state is being freed: every thread's remembered one is stale */
static inline void hk__last_comm_bump(unsigned *gen)
{
  __atomic_add_fetch(gen, 1, __ATOMIC_ACQ_REL);
}

#endif
