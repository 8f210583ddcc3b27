/* hybridkit/env.h: start-up, MPI thread levels, collective error agreement.
 *
 * Thread levels follow Rabenseifner's taxonomy of hybrid MPI+OpenMP programs:
 *
 *   SINGLE < MASTERONLY < FUNNELED < SERIALIZED < MULTIPLE
 *
 * MASTERONLY: MPI is called only by the master thread and only outside OpenMP
 * parallel regions (all other threads sleep during communication).  MPI has no
 * such level: hybridkit requests MPI_THREAD_FUNNELED for it but accepts
 * MPI_THREAD_SINGLE, which is enough when no thread calls MPI inside a parallel
 * region.  HK_CHECK_MASTERONLY=1 in the environment makes every MPI call made
 * through hybridkit check that rule at run time (HK_ERR_MASTERONLY otherwise).
 *
 * Environment: HK_MPI_THREAD_LIMIT=single|funneled|serialized|multiple caps the
 * level the MPI library is taken to provide (emulates a weaker MPI library, to
 * test how a program behaves when it gets less than it asked for).
 */
#ifndef HYBRIDKIT_ENV_H
#define HYBRIDKIT_ENV_H

#include <mpi.h>
#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hk_thread_level {
  HK_THREAD_SINGLE = 0,
  HK_THREAD_MASTERONLY = 1,
  HK_THREAD_FUNNELED = 2,
  HK_THREAD_SERIALIZED = 3,
  HK_THREAD_MULTIPLE = 4,
  HK_THREAD_LEVEL_COUNT
} hk_thread_level_t;

/* hk_init: initialise MPI (MPI_Init_thread) unless the program already did,
 * and check the thread level.  `required` is what the program needs.
 * Returns HK_ERR_THREAD_LEVEL, with a message naming the requested and
 * provided levels, on every rank when the MPI library provides less; MPI is
 * initialised all the same, so call hk_finalize() afterwards.
 * Collective: MPI_COMM_WORLD.  Threads: the main thread, outside parallel regions.
 * Errors: HK_ERR_THREAD_LEVEL (agreed), HK_ERR_STATE (twice, inside a parallel region, after MPI_Finalize), HK_ERR_MPI. */
HK_EXPORT int hk_init(int *argc, char ***argv, hk_thread_level_t required);

/* hk_init_request: as hk_init, but ask MPI for `wanted` and fail only when it
 * provides less than `required` (<= wanted): for programs with parts that need
 * more (they check with hk_require_thread_level) and parts that do not.
 * Collective: MPI_COMM_WORLD.  Threads: the main thread, outside parallel regions.
 * Errors: HK_ERR_ARG (required > wanted), HK_ERR_THREAD_LEVEL (agreed), HK_ERR_STATE, HK_ERR_MPI. */
HK_EXPORT int hk_init_request(int *argc, char ***argv, hk_thread_level_t wanted,
                              hk_thread_level_t required);

/* hk_finalize: release hybridkit's state; finalises MPI if hk_init initialised it.
 * Collective: MPI_COMM_WORLD.  Threads: the main thread, outside parallel regions.
 * Errors: HK_ERR_STATE (without hk_init, inside a parallel region), HK_ERR_MPI. */
HK_EXPORT int hk_finalize(void);

/* hk_initialized: *flag = 1 between hk_init and hk_finalize.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_initialized(int *flag);

/* hk_thread_levels: the level hybridkit was asked for and the level available
 * (the MPI library's, capped by HK_MPI_THREAD_LIMIT; MASTERONLY when
 * MASTERONLY was required and SINGLE or FUNNELED is provided).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_STATE before hk_init. */
HK_EXPORT int hk_thread_levels(hk_thread_level_t *requested, hk_thread_level_t *provided);

/* hk_require_thread_level: HK_SUCCESS if the available level serves `needed`,
 * else HK_ERR_THREAD_LEVEL with "<what> needs <needed>, MPI provides <provided>".
 * Modules call it at create time.  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_THREAD_LEVEL naming what needs which level. */
HK_EXPORT int hk_require_thread_level(hk_thread_level_t needed, const char *what);

/* Names: "single", "masteronly", "funneled", "serialized", "multiple".
 * Collective: local.  Threads: any thread.  Errors: none (an unknown value gives "invalid"). */
HK_EXPORT const char *hk_thread_level_name(hk_thread_level_t level);
/* hk_thread_level_parse: accepts the names above (case-insensitive) and the
 * MPI names MPI_THREAD_*; HK_ERR_ARG otherwise.  Collective: local.  Threads: any.
 * Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_thread_level_parse(const char *name, hk_thread_level_t *level);

/* hk_check_masteronly: when HK_CHECK_MASTERONLY=1, HK_ERR_MASTERONLY (and a
 * line on stderr naming `where`) if the calling thread breaks the rule of the
 * level hk_init asked for (or the lower one available): SINGLE/MASTERONLY a
 * thread other than the one that called hk_init, or inside an active parallel
 * region; FUNNELED another thread; SERIALIZED/MULTIPLE never.  HK_SUCCESS
 * otherwise or when checking is off.  Programs may call it before their own
 * MPI calls.  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_MASTERONLY (only when HK_CHECK_MASTERONLY=1). */
HK_EXPORT int hk_check_masteronly(const char *where);

/* hk_agree: collective error agreement (PRK's bail-out).  Every rank passes its
 * local status; every rank gets the same result: HK_SUCCESS when all succeeded,
 * otherwise the error code of the lowest-numbered failing rank, and
 * hk_error_message() on every rank becomes that rank's message prefixed with
 * "rank R: ".  Use it before exiting so one rank's failure never leaves the
 * others waiting.  Collective: comm.  Threads: outside parallel regions.
 * Errors: the agreed code (the lowest failing rank's), HK_ERR_MPI. */
HK_EXPORT int hk_agree(MPI_Comm comm, int local_status);

#ifdef __cplusplus
}
#endif
#endif
