/* src/internal/hk_internal.h: library-private helpers (never installed).
 *
 * Error handling pattern (one cleanup label per function):
 *
 *   int err = HK_SUCCESS;
 *   HK_TRY(err, hk_something(...));                 -> goto cleanup on failure
 *   (HK_LOCAL / HK_ALLOC_LOCAL / HK_AGREE between collectives: hybridkit/try.h)
 *   HK_MPI_TRY(err, MPI_Allreduce(...));            -> masteronly check + MPI error text
 *   if (bad) { err = HK_ERROR(HK_ERR_ARG, "size %d < 1", n); goto cleanup; }
 * cleanup:
 *   free(...); return err;
 */
#ifndef HK_INTERNAL_H
#define HK_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <hwloc.h>
#include "hybridkit.h"
#include "hybridkit/try.h"  /* HK_TRY, HK_LOCAL, HK_AGREE, HK_ALLOC_LOCAL, HK_ALLOC_TRY */

#define HK_ERRMSG_MAX 512

/* Sets the calling thread's error message ("func (file:line): text") and returns err. */
int hk__error_set(int err, const char *file, int line, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Replace the calling thread's message verbatim (used by hk_agree). */
void hk__error_set_message(const char *msg);
/* The message of an agreed error: msg of rank first (of size), "rank FIRST: " in front
 * unless it names a rank already (hk_agree's, and the DSM's timed agreements). */
void hk__agreed_message(int first, int size, const char *msg);
/* Appends a formatted string (at most 511 chars) to a malloc'd list of n strings. */
int hk__strlist_vadd(char ***list, int *n, const char *fmt, va_list ap);
/* Converts an MPI error code into HK_ERR_MPI with MPI's error string. */
int hk__mpi_error(int mpierr, const char *file, int line, const char *func, const char *expr);
/* Seconds on a monotonic clock any thread may read, simulated under SMPI: the phase timers
 * inside parallel regions (src/core/timer.c says why not MPI_Wtime, not omp_get_wtime); the
 * library's name of the public hk_clock (hybridkit/timer.h). */
#define hk__clock hk_clock
/* 1 in a build by SimGrid's smpicc: every source is compiled with its smpi_helpers.h, which
 * maps clock_gettime, gettimeofday and sleep to the simulated clock (docs/simulate.md) */
#ifdef SMPI_HELPERS_H
#define HK_UNDER_SMPI 1
#else
#define HK_UNDER_SMPI 0
#endif
/* MASTERONLY check before an MPI call made by the library (no-op unless enabled). */
int hk__masteronly_guard(const char *file, int line, const char *func, const char *expr);

#define HK_ERROR(err, ...) hk__error_set((err), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define HK_MPI_TRY(errvar, expr)                                                   \
  do {                                                                            \
    (errvar) = hk__masteronly_guard(__FILE__, __LINE__, __func__, #expr);         \
    if ((errvar) != HK_SUCCESS)                                                   \
      goto cleanup;                                                               \
    int hk__mpierr = (expr);                                                      \
    if (hk__mpierr != MPI_SUCCESS) {                                              \
      (errvar) = hk__mpi_error(hk__mpierr, __FILE__, __LINE__, __func__, #expr);  \
      goto cleanup;                                                               \
    }                                                                             \
  } while (0)

/* ---- env.c ---- */
int hk__is_initialized(void);
/* The values of the public getters that take out-parameters, for the library's own use
 * (no error raised): hk__cart_neighbor (MPI_PROC_NULL for a bad offset or edge),
 * hk__cart_node_of / hk__nodes_node_of (-1 out of range). */
int hk__cart_neighbor(const hk_cart_t *cart, const int offset[3]);
int hk__cart_node_of(const hk_cart_t *cart, int cart_rank);
int hk__nodes_node_of(const hk_nodes_t *nodes, int rank);
/* A boolean environment variable: unset or empty 0; 1/yes/true/on or 0/no/false/off
 * (any case); anything else HK_ERR_ARG naming the variable. */
int hk__env_bool(const char *name, int *value);
/* The environment variables of the modules, read where they are used and checked by
 * hk_init at start: HK_ERR_ARG naming the variable and what it takes.  A NULL result
 * only checks. */
int hk__dsm_env(double *timeout, long *progress_ns); /* HK_DSM_TIMEOUT, HK_DSM_PROGRESS_US */
int hk__mem_query_env(int *use_hwloc);                /* HK_MEM_QUERY: move_pages (0), hwloc (1) */
int hk__mem_nlocs_env(int *n);                        /* HK_NUM_LOCS: 0 when unset */
int hk__nodes_size_env(long *k);                      /* HK_NODE_SIZE: 0 when unset */

/* ---- machine.c: the real machine, loaded once and shared (freed by hk_finalize) ---- */
struct hk_machine {
  hwloc_topology_t topo;
  int this_system;
  char source[256];
};
int hk__real_machine(hk_machine_t **machine);  /* borrowed pointer, do not destroy */
void hk__real_machine_free(void);
/* Cores of `topo` that intersect `set`, in logical order; *cores malloc'd. */
int hk__cores_in(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_obj_t **cores, int *ncores);
/* The cpusets for `nthreads` threads inside `set` by policy (caller frees each and the array). */
int hk__place_threads(hwloc_topology_t topo, hwloc_const_cpuset_t set, hk_bind_policy_t policy,
                      int nthreads, hwloc_bitmap_t **sets, int *wrapped);
/* Adds the warnings that `entries` deserve on machines like `topo` (src/topo/binding_check.c). */
int hk__binding_warnings(hk_binding_t *b, hwloc_topology_t topo);
/* Entry i's PUs into `set` (from b->sets). */
void hk__binding_entry_set(const hk_binding_t *b, int i, hwloc_bitmap_t set);
/* Stores `set` as entry i's bitmap and display string (b->sets allocated). */
void hk__binding_store_set(hk_binding_t *b, int i, hwloc_const_bitmap_t set);
/* Unsigned longs needed for the PUs of `topo` / of `set`. */
int hk__set_words(hwloc_const_bitmap_t set);
/* ids[i] = a host number for entry i (0 .. *nhosts-1, by first appearance), by hashing. */
int hk__binding_host_ids(const hk_binding_t *b, int *ids, int *nhosts);
void hk__rank_set_free(void);  /* binding.c: forget the rank's launch cpuset */
int hk__binding_add_warning(hk_binding_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- buildinfo (generated) ---- */
extern const char *hk__build_git_sha;
extern const char *hk__build_compiler;
extern const char *hk__build_cflags;
extern const char *hk__build_type;
extern const char *hk__build_mpi_impl;
/* openmpi, intelmpi, cray-mpich, mvapich, mpich or other, from MPI_Get_library_version's text
 * (the provenance's mpi_vendor; src/core/record_out.c) */
const char *hk__mpi_vendor_of(const char *libversion);

#endif
