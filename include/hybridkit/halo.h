/* hybridkit/halo.h: the halo-exchange engine with every hybrid mode.
 *
 * A halo plan belongs to a field of doubles on one block of a Cartesian
 * decomposition (hybridkit/cart.h): n[0] x n[1] (x n[2]) owned cells surrounded
 * by w ghost layers on every side (none in z for 2D).  The plan is built once
 * (neighbour table, contiguous send/receive buffers, requests); exchanges run
 * many times.  Packing and unpacking are thread-parallel loops over rows;
 * no MPI derived datatypes.  A neighbour that is this rank itself (periodic,
 * one block in that dimension) is a copy, not a message.
 *
 *   ghost layers (w = 1), 2D, faces only:        with HK_STENCIL_FULL the four
 *        . g g g g .                             corner ghosts (.) are exchanged
 *        g o o o o g     o owned, g ghost        too (27-point in 3D)
 *        g o o o o g
 *        . g g g g .
 *
 * Modes (hk_mode_t of hybridkit/modes.h, run by the one mode engine; all give bit-identical
 * fields for the same problem):
 *   pure              1 thread per rank; pack, Isend/Irecv, Waitall, unpack, update   SINGLE
 *   pure-nb           1 thread; post, update interior, Waitall, unpack, update boundary SINGLE
 *   masteronly        threads pack/unpack/update in parallel regions; MPI by the master
 *                     outside them (the other threads sleep)                       MASTERONLY
 *   funneled          one parallel region; the master calls MPI between barriers     FUNNELED
 *   task              funneled & reserved: thread 0 exchanges (post, wait, unpack)
 *                     while threads 1..n-1 update the interior; then all update the
 *                     boundary                                                        FUNNELED
 *   task-balanced     as task, but thread 0 joins the interior work when its exchange
 *                     is done (dynamic schedule): full load balancing                 FUNNELED
 *   multiple          every thread posts, waits for and unpacks its share of the
 *                     messages                                                        MULTIPLE
 *   multiple-reserved m threads communicate their shares while n-m update the interior
 *                                                                                     MULTIPLE
 * The application describes its work once as an update function over boxes of
 * cells (hk_halo_work_t); hk_halo_step() decides which thread updates which box
 * and when, so overlapping modes need no thread-id code in the application.
 */
#ifndef HYBRIDKIT_HALO_H
#define HYBRIDKIT_HALO_H

#include <stddef.h>
#include "hybridkit/cart.h"
#include "hybridkit/env.h"
#include "hybridkit/export.h"
#include "hybridkit/modes.h" /* hk_mode_t, hk_mode_parse, hk_mode_name, ... */

#ifdef __cplusplus
extern "C" {
#endif

/* A box of cells in local coordinates: owned cells are [0, n), ghosts are
 * negative or >= n.  Cells [lo, hi) in every dimension (z: [0, 1) in 2D). */
typedef struct hk_box {
  int lo[3];
  int hi[3];
} hk_box_t;

typedef struct hk_halo_desc {
  const hk_cart_t *cart;  /* decomposition, neighbours, nodes (kept by reference) */
  int width;              /* ghost layers w >= 1 */
  hk_stencil_t stencil;   /* faces only, or faces + edges + corners */
  hk_mode_t mode;
  int reserved;           /* communicating threads m of multiple-reserved; 0: one.
                             Must be < threads when given; task modes reserve one. */
  int radius;             /* stencil radius of the update (0: 1); cells closer than
                             this to a neighbour's side are "boundary" */
  int self_wrap[3];       /* 1: dimension d is periodic with one process across it, and
                             the caller's update wraps it (reads the far end of the rank's
                             own cells for a neighbour beyond an end).  The engine then
                             copies nothing across d (no faces, edges or corners), and
                             hk_halo_regions does not reach into d's ghosts. */
} hk_halo_desc_t;

typedef struct hk_halo hk_halo_t;

/* Where cell (i, j, k) of the field is: field[offset + i + j*sy + k*sz].  Rows are
 * padded: sy is a multiple of HK_FIELD_ALIGN doubles and, in a field from
 * hk_halo_field_alloc, every row start and owned cell (0, j, k) is 64-byte aligned;
 * the cells between a row's ghosts and the next row are padding nobody reads. */
#define HK_FIELD_ALIGN 8
typedef struct hk_field_layout {
  int dims;
  int n[3];          /* owned cells */
  int width;         /* ghost layers (none in z for 2D) */
  long long sy, sz;  /* strides of y and z (x is contiguous) */
  long long offset;  /* index of cell (0, 0, 0) */
  size_t count;      /* doubles in the field, ghosts included */
} hk_field_layout_t;

/* hk_halo_create: plan the exchanges of one field.  Checks, on every rank
 * (agreed): the mode's thread level (HK_ERR_THREAD_LEVEL), the halo width
 * against the block (HK_ERR_ARG "block 3x8 is thinner than halo width 4"),
 * reserved threads against the threads (HK_ERR_ARG).  The thread count is
 * omp_get_max_threads() at creation (1 for the pure modes).
 * Collective: the cart's communicator.  Threads: outside parallel regions.
 * Errors: as above (agreed), HK_ERR_NOMEM, HK_ERR_MPI. */
HK_EXPORT int hk_halo_create(const hk_halo_desc_t *desc, hk_halo_t **halo);
/* hk_halo_destroy: *halo = NULL.  Collective: the cart's communicator.
 * Threads: outside parallel regions.  Errors: HK_ERR_MPI (NULL is fine). */
HK_EXPORT int hk_halo_destroy(hk_halo_t **halo);

/* hk_halo_layout: Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_halo_layout(const hk_halo_t *halo, hk_field_layout_t *layout);
/* hk_halo_threads: *threads = the threads the mode runs with (1 for pure and pure-nb).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_halo_threads(const hk_halo_t *halo, int *threads);
/* hk_halo_mode: Collective: local.  Threads: any thread.
 * Errors: none (HK_MODE_COUNT for a NULL halo). */
HK_EXPORT hk_mode_t hk_halo_mode(const hk_halo_t *halo);

/* hk_halo_field_alloc: a zeroed, 64-byte aligned field of layout.count doubles,
 * first touched by the threads that will update it (same static split as the
 * updates), so its pages land on their NUMA nodes.  Fields of 8 MiB and more are
 * 2 MiB aligned and advised to use transparent huge pages (MADV_HUGEPAGE; nothing
 * happens where THP is off).  Free with hk_halo_field_free.
 * Collective: local.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG, HK_ERR_NOMEM. */
HK_EXPORT int hk_halo_field_alloc(const hk_halo_t *halo, double **field);
/* hk_halo_field_free: Collective: local.  Threads: outside parallel regions.
 * Errors: none (NULL is fine; *field = NULL). */
HK_EXPORT void hk_halo_field_free(double **field);

/* Exchange only.  hk_halo_exchange does it the mode's way; begin/end are the
 * split phase for applications that schedule their own overlap (pack + post;
 * wait + unpack: MPI from the calling thread, pack/unpack in parallel loops).
 * Collective: neighbours.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG (NULL), HK_ERR_STATE (inside a parallel region), HK_ERR_MPI. */
HK_EXPORT int hk_halo_exchange(hk_halo_t *halo, double *field);
/* hk_halo_begin: Collective: neighbours.  Threads: outside parallel regions.
 * Errors: as hk_halo_exchange. */
HK_EXPORT int hk_halo_begin(hk_halo_t *halo, double *field);
/* hk_halo_end: Collective: neighbours.  Threads: outside parallel regions.
 * Errors: as hk_halo_exchange. */
HK_EXPORT int hk_halo_end(hk_halo_t *halo, double *field);

/* The application's work: update every cell of `box`.  Called concurrently
 * by several threads on disjoint boxes; must not call MPI. */
typedef void (*hk_update_fn)(const hk_box_t *box, void *arg);

typedef struct hk_halo_work {
  hk_update_fn update;
  void *arg;
  int extend;   /* also update this many ghost layers (0 .. w-1) on the sides that have
                   a neighbour: the redundant sweeps of multi-layer halos */
} hk_halo_work_t;

/* hk_halo_step: exchange the halo of `field` and update the owned cells (plus
 * `extend` ghost layers) the mode's way: after the exchange, or the interior
 * during it and the boundary after.  The update must read `field`'s ghosts
 * only through cells within `radius` of the box.
 * Collective: neighbours.  Threads: outside parallel regions (opens its own).
 * Errors: HK_ERR_ARG (NULL, bad extend), HK_ERR_STATE, HK_ERR_MPI. */
HK_EXPORT int hk_halo_step(hk_halo_t *halo, double *field, const hk_halo_work_t *work);

/* The update region of a step with `extend`, its interior and its boundary. */
typedef struct hk_halo_regions {
  hk_box_t all;           /* the whole update region */
  hk_box_t interior;      /* may be empty (lo >= hi in some dimension) */
  hk_box_t boundary[6];   /* all \ interior as up to 6 disjoint boxes */
  int nboundary;
} hk_halo_regions_t;
/* hk_halo_regions: the update region of a step with `extend` (regions->all), its interior
 * (cells whose update reads no received ghost) and the rest as up to 6 disjoint boxes.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL or extend outside 0..width-1. */
HK_EXPORT int hk_halo_regions(const hk_halo_t *halo, int extend, hk_halo_regions_t *regions);

/* Cumulative counters since creation or hk_halo_stats_reset.  Times are
 * seconds summed over exchanges; per exchange, the slowest thread of a phase
 * counts (its own work: the barrier after the phase is not timed, so the phases
 * add up to at most the wall time even when threads wait for a core).  comm: time the communicating thread(s) spent posting, waiting and
 * unpacking; interior: time the computing threads spent on the interior while
 * that happened (overlap modes), so min(comm, interior) / comm is the share of
 * the exchange hidden behind computation. */
typedef struct hk_halo_stats {
  long long exchanges;
  double pack, post, wait, unpack;
  double comm;
  double interior, boundary, update;  /* update: whole-region updates (non-overlap modes) */
  long long msgs_self, msgs_intra, msgs_inter;     /* per exchange, sent by this rank */
  long long bytes_self, bytes_intra, bytes_inter;  /* per exchange */
} hk_halo_stats_t;

/* hk_halo_stats: Collective: local.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_halo_stats(const hk_halo_t *halo, hk_halo_stats_t *stats);
/* hk_halo_stats_reset: Collective: local.  Threads: outside parallel regions.
 * Errors: none (NULL is fine). */
HK_EXPORT void hk_halo_stats_reset(hk_halo_t *halo);

#ifdef __cplusplus
}
#endif
#endif
