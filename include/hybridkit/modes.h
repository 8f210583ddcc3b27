/* hybridkit/modes.h: the hybrid MPI+OpenMP modes as data, and one engine that runs any of
 * them over a data structure's own operations (Rabenseifner's taxonomy, Hager/Wellein's
 * vector vs task mode).
 *
 * A mode is a row (hk_mode_info): its name, the thread level it asks for, who calls MPI,
 * whether the local part overlaps the exchange, whether that overlap is balanced (dynamic
 * chunks the communicating thread joins) and how many threads it reserves for
 * communication.  hk_mode_run runs one exchange + update of a data structure in a mode:
 *
 *   pure           pack | post | wait | unpack | local | boundary           (1 thread)
 *   pure-nb        pack | post | local | wait | unpack | boundary           (1 thread)
 *   masteronly     [parallel: pack] post, wait [parallel: unpack | local | boundary]
 *   funneled       parallel { pack | master: post, wait | barrier | unpack | local | boundary }
 *   task           parallel { pack | thread 0: post, wait, unpack  ||  1..n-1: local |
 *                             barrier | boundary }
 *   task-balanced  as task, the local part in 4n dynamic chunks thread 0 joins when done
 *   multiple       parallel { pack | each thread: its messages | barrier | local | boundary }
 *   multiple-reserved  parallel { pack | 0..m-1: their messages  ||  m..n-1: local |
 *                             barrier | boundary }
 *
 * "its messages": thread t of c communicating threads posts, waits for and unpacks
 * messages t, t + c, t + 2c, ...  Modes without overlap call `whole` instead of local,
 * barrier, boundary when the data structure has one.  With one thread the overlap modes
 * exchange first, then compute.  docs/modes.md has a complete example.
 */
#ifndef HYBRIDKIT_MODES_H
#define HYBRIDKIT_MODES_H

#include "hybridkit/env.h"
#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hk_mode {
  HK_MODE_PURE = 0,
  HK_MODE_PURE_NB,
  HK_MODE_MASTERONLY,
  HK_MODE_FUNNELED,
  HK_MODE_TASK,
  HK_MODE_TASK_BALANCED,
  HK_MODE_MULTIPLE,
  HK_MODE_MULTIPLE_RESERVED,
  HK_MODE_COUNT
} hk_mode_t;

/* Who calls MPI in a mode. */
typedef enum hk_mode_comm {
  HK_MODE_COMM_CALLER = 0,  /* the calling thread, outside parallel regions */
  HK_MODE_COMM_MASTER,      /* the master thread, inside the region */
  HK_MODE_COMM_ALL,         /* every thread, its share of the messages */
  HK_MODE_COMM_RESERVED     /* threads 0..m-1, their shares */
} hk_mode_comm_t;

typedef struct hk_mode_info {
  const char *name;
  hk_thread_level_t level;  /* the thread level the mode asks for */
  int overlap;              /* the local part runs while messages are in flight */
  hk_mode_comm_t comm;
  int balanced;             /* the local part in dynamic chunks the communicator joins */
  int reserved;             /* threads kept for communication: 0 none, -1 the caller's m */
} hk_mode_info_t;

/* hk_mode_name: "pure", "pure-nb", "masteronly", "funneled", "task", "task-balanced",
 * "multiple", "multiple-reserved".  Collective: local.  Threads: any thread.
 * Errors: none (an unknown value gives "invalid"). */
HK_EXPORT const char *hk_mode_name(hk_mode_t mode);
/* hk_mode_parse: *mode = the mode named `name`.  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_mode_parse(const char *name, hk_mode_t *mode);
/* hk_mode_thread_level: the thread level a mode needs (checked by hk_halo_create).
 * Collective: local.  Threads: any thread.  Errors: none (HK_THREAD_MULTIPLE for an invalid mode). */
HK_EXPORT hk_thread_level_t hk_mode_thread_level(hk_mode_t mode);
/* hk_mode_overlaps: *overlaps = 1 when the mode overlaps communication with computation.
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for an invalid mode or NULL. */
HK_EXPORT int hk_mode_overlaps(hk_mode_t mode, int *overlaps);
/* hk_mode_get_info: *info = the mode's row of the table.
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for an invalid mode or NULL. */
HK_EXPORT int hk_mode_get_info(hk_mode_t mode, hk_mode_info_t *info);

/* A data structure's side of an exchange + update.  `arg` is passed to every call.
 * piece/pieces: do share `piece` of `pieces` (a static split of your choosing; the same
 * split for the same pieces every time if first touch matters).  first/stride: messages
 * first, first + stride, ... of both directions (receives before sends is wise).
 * Called concurrently by several threads on different pieces / messages; only post and
 * wait call MPI (from the threads the mode lets call it).  NULL entries are skipped:
 * unpack and unpack_msgs (both or neither) when data is received in place,
 * local/boundary/whole for an exchange without update.  `local` must not read received
 * data. */
typedef struct hk_mode_ops {
  void *arg;
  void (*pack)(void *arg, int piece, int pieces);
  int (*post)(void *arg, int first, int stride);   /* HK_SUCCESS or an HK_ERR_* */
  int (*wait)(void *arg, int first, int stride);
  void (*unpack)(void *arg, int piece, int pieces);        /* a share of all received data */
  void (*unpack_msgs)(void *arg, int first, int stride);   /* the messages a thread waited for */
  void (*local)(void *arg, int piece, int pieces);         /* needs no received data */
  void (*boundary)(void *arg, int piece, int pieces);      /* the rest, after the exchange */
  void (*whole)(void *arg, int piece, int pieces);         /* local + boundary in one pass */
} hk_mode_ops_t;

/* Phase times of one hk_mode_run (seconds; per phase the slowest thread's own work, the
 * barriers after the phases untimed). */
typedef struct hk_mode_times {
  double pack, post, wait, unpack;
  double comm;          /* communicating threads: post + wait + unpack */
  double local;         /* every thread */
  double local_overlap; /* threads that computed the local part during the exchange */
  double boundary, whole;
  double exposed;       /* overlap with threads to spare: from the end of their local part
                           to the end of the exchange; otherwise all of comm */
} hk_mode_times_t;

/* hk_mode_run: one exchange + update of a data structure the mode's way (the schedule in
 * the header comment).  threads: the team (the pure modes run 1); reserved: m of
 * multiple-reserved (0: 1).  MPI errors of post/wait on any thread are kept (the first)
 * and returned; boundary and whole are skipped after an error.  With HK_CHECK_MASTERONLY=1
 * every post and wait is checked against the thread level first.  times may be NULL.
 * Collective: the peers of the data structure's messages.  Threads: outside parallel
 * regions (opens its own; post/wait run on the threads of the mode's level).
 * Errors: HK_ERR_ARG (NULL ops/pack/post/wait, one of unpack/unpack_msgs NULL, bad mode,
 * threads outside 1..4096), HK_ERR_STATE (inside a parallel region), post's and wait's
 * errors, HK_ERR_MASTERONLY. */
HK_EXPORT int hk_mode_run(hk_mode_t mode, int threads, int reserved, const hk_mode_ops_t *ops,
                          hk_mode_times_t *times);

#ifdef __cplusplus
}
#endif
#endif
