/* hybridkit/spmv.h: distributed sparse matrix-vector multiply y = A x in every
 * hybrid mode (the kernel of Rabenseifner's overlap measurements: the JDS SpMV of
 * a Jacobi-Davidson eigensolver).
 *
 * A square matrix of N rows is distributed in contiguous blocks of rows, in rank
 * order (any sizes, empty blocks allowed); the vectors x and y are distributed like
 * the rows.  Each rank gives its rows as CRS with global column indices
 * (hk_spmv_crs_t; the generators and the Matrix Market reader below make them).
 * hk_spmv_create derives the communication plan once from the column indices: the
 * remote entries of x a rank needs, one message per peer rank, sent from and
 * received into contiguous buffers (packed by the threads, received straight into
 * the halo part of x).  The rows are split into a local part (columns this rank
 * owns) and a non-local part (the halo columns), each stored in the chosen format:
 *   crs   compressed row storage
 *   jds   jagged diagonal storage: rows sorted by length (the permutation is kept
 *         inside; y comes back in the natural order), diagonal d holds the d-th
 *         entry of every row that has one
 *   sell  SELL-C-sigma: rows sorted by length within windows of sigma rows, chunks
 *         of C rows stored column-major and padded to the chunk's longest row
 *
 * Summation order (so that results are bit-identical across formats, modes and
 * thread counts): row i of y is
 *     y_i = s_local + s_halo
 * where s_local sums the row's entries with columns this rank owns and s_halo those
 * with columns of other ranks, each from 0.0, each term a_ij * x_j added one after
 * the other in ascending global column order (SELL's padding adds exact zeros after
 * the last entry; a row with no halo entry adds +0.0).  hk_spmv_reference computes
 * exactly this from the CRS input.  Across rank counts the split moves, so results
 * differ by rounding only: |y_i - y_serial_i| <= 2 gamma_{nnz_i} sum_j |a_ij x_j|
 * (gamma_k = k u / (1 - k u), u = 2^-53); with 1 rank every column is local and y
 * is the plain ascending-order sum.
 *
 * Modes (hk_mode_t of hybridkit/modes.h, run by the one mode engine hk_mode_run: the local
 * part is its `local`, the halo part its `boundary`):
 *   pure           1 thread: pack, exchange, local part, halo part
 *   pure-nb        1 thread: pack, post, local part, wait, halo part
 *   masteronly     threads pack; master: post, wait outside parallel regions;
 *                  threads: local part, halo part
 *   funneled       one parallel region; the master posts and waits between barriers
 *   task           funneled & reserved: thread 0 posts and waits while threads
 *                  1..n-1 do the local part; then all do the halo part
 *   task-balanced  as task, the local part in dynamic chunks thread 0 joins when its
 *                  exchange is done
 *   multiple       every thread posts and waits for its share of the messages
 *   multiple-reserved  m threads communicate while n-m do the local part
 */
#ifndef HYBRIDKIT_SPMV_H
#define HYBRIDKIT_SPMV_H

#include <stddef.h>
#include <mpi.h>
#include "hybridkit/export.h"
#include "hybridkit/modes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hk_spmv_format {
  HK_SPMV_CRS = 0,
  HK_SPMV_JDS,
  HK_SPMV_SELL,
  HK_SPMV_FORMAT_COUNT
} hk_spmv_format_t;

/* hk_spmv_format_name: "crs", "jds", "sell" ("invalid" for a value out of range).
 * Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT const char *hk_spmv_format_name(hk_spmv_format_t format);
/* hk_spmv_format_parse: the format named `name` into *format.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL or an unknown name (one line naming the known ones). */
HK_EXPORT int hk_spmv_format_parse(const char *name, hk_spmv_format_t *format);

/* One rank's rows [row_begin, row_begin + nrows) of an nglobal x nglobal matrix in
 * CRS with global column indices, ascending and unique within each row. */
typedef struct hk_spmv_crs {
  long long nglobal;
  long long row_begin;
  int nrows;
  long long *rowptr;  /* [nrows + 1], rowptr[0] = 0 */
  long long *col;     /* [rowptr[nrows]] */
  double *val;
  int symmetric;      /* 1: the source says the matrix is symmetric (Laplacians,
                         Holstein-Hubbard, Matrix Market "symmetric") */
} hk_spmv_crs_t;

/* hk_spmv_crs_free: free the arrays; the struct is zeroed (NULL is ignored).
 * Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT void hk_spmv_crs_free(hk_spmv_crs_t *crs);

/* hk_spmv_block: the default row blocks: rank r of p gets n/p rows, the first
 * n mod p ranks one more.  Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT void hk_spmv_block(long long n, int nprocs, int rank, long long *begin, int *count);

/* hk_spmv_generate_size: the rows of a generated matrix spec:
 *   laplace3d:N     3D 7-point Laplacian on an N^3 grid, Dirichlet (6 / -1), SPD
 *   laplace27:N     3D 27-point Laplacian on an N^3 grid, Dirichlet (26 / -1), SPD
 *   random:R,K,B    R rows, K entries per row (the diagonal among them) at distinct
 *                   columns within distance B of the diagonal (fewer where the band
 *                   is narrower than K), values in [-1, 1) and the diagonal K + 1;
 *                   seeded: the same matrix for any row blocks
 *   hh:L,NUP,NDN,M  Holstein-Hubbard model (electron-phonon; the Jacobi-Davidson matrices of
 *                   Fehske, Wellein et al.): periodic chain of L <= 30 sites, NUP up and NDN
 *                   down electrons, at most M <= 30 phonons in all; C(L,NUP) C(L,NDN)
 *                   C(L+M,L) rows; shifted by a Gershgorin bound to be SPD (src/spmv/hh.c,
 *                   docs/spmv.md give the basis, the constants and the shift)
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG with one line for a bad spec or NULL. */
HK_EXPORT int hk_spmv_generate_size(const char *spec, long long *nglobal);
/* hk_spmv_generate_row_max: entries per row at most of a generated matrix spec (to size
 * memory before generating).  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG with one line for a bad spec or NULL. */
HK_EXPORT int hk_spmv_generate_row_max(const char *spec, int *row_max);
/* hk_spmv_generate: rows [row_begin, row_begin + nrows) of the spec's matrix.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for a bad spec or rows out of range, HK_ERR_NOMEM. */
HK_EXPORT int hk_spmv_generate(const char *spec, long long row_begin, int nrows,
                               hk_spmv_crs_t *crs);

/* hk_spmv_read_mm: rows of a Matrix Market file (coordinate; real, integer or
 * pattern (values 1.0); general or symmetric (the mirrored entries added); square).
 * With nrows < 0 the rows are chosen by hk_spmv_block(comm size, rank) of
 * the communicator `comm` (every rank reads the file itself); otherwise the given
 * block.  A malformed file gives HK_ERR_ARG (HK_ERR_IO when unreadable) with one line
 * "FILE:LINE: what is wrong".  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (malformed file, bad block), HK_ERR_IO (unreadable), HK_ERR_NOMEM. */
HK_EXPORT int hk_spmv_read_mm(const char *path, MPI_Comm comm, long long row_begin, int nrows,
                              hk_spmv_crs_t *crs);

/* hk_spmv_reference: y = A x for the rows of crs in the summation order above,
 * straight from the CRS input (no plan, no format): x_of(j, arg) gives x_j for any
 * global j.  The oracle of the tests and of hk-spmv's self-verification.
 * Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT void hk_spmv_reference(const hk_spmv_crs_t *crs, double (*x_of)(long long j, void *arg),
                                 void *arg, double *y);

typedef struct hk_spmv_desc {
  MPI_Comm comm;            /* ranks in the order of the row blocks */
  const hk_spmv_crs_t *crs; /* this rank's rows (copied; may be freed after create) */
  hk_spmv_format_t format;
  int chunk;                /* SELL: rows per chunk C (0: 8) */
  int sigma;                /* SELL: sorting window in rows (0: 1; rounded up to a
                               multiple of C when larger than C) */
  hk_mode_t mode;
  int reserved;             /* communicating threads of multiple-reserved (0: one) */
} hk_spmv_desc_t;

typedef struct hk_spmv hk_spmv_t;

/* hk_spmv_create: check the row blocks (contiguous, in rank order, of the same
 * nglobal; HK_ERR_ARG naming the rank otherwise), the column indices (in range,
 * ascending) and the mode's thread level (HK_ERR_THREAD_LEVEL), plan the exchange,
 * store both parts in the format.  Threads: omp_get_max_threads() at creation
 * (1 for pure and pure-nb).  Collective: comm.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG, HK_ERR_THREAD_LEVEL, HK_ERR_NOMEM, HK_ERR_MPI; agreed over comm. */
HK_EXPORT int hk_spmv_create(const hk_spmv_desc_t *desc, hk_spmv_t **spmv);
/* hk_spmv_destroy: free the matrix and its plan; *spmv = NULL (NULL is ignored).
 * Collective: comm.  Threads: outside parallel regions.  Errors: none. */
HK_EXPORT int hk_spmv_destroy(hk_spmv_t **spmv);

/* The extended x: this rank's nrows entries, then nhalo halo entries the
 * multiply fills.  hk_spmv_multiply reads x[0, nrows) and writes y[0, nrows). */
typedef struct hk_spmv_info {
  long long nglobal, row_begin;
  int nrows, nhalo;
  long long nnz_local, nnz_halo;   /* entries of the two parts (no padding) */
  long long stored;                /* stored entries with SELL padding */
  int npeers_send, npeers_recv;    /* messages per multiply */
  long long send_count, recv_count; /* doubles per multiply */
  double bytes_per_nnz;            /* model of the memory traffic of one multiply per
                                      entry: values, indices, row/chunk pointers, x and
                                      halo reads, y write (write-allocate) */
  double min_bytes_per_nnz;        /* the least a multiply of this format must move per
                                      entry, counted like STREAM counts (every array once, a
                                      store 8 B): values and indices of the stored entries
                                      (12 B, SELL padding included), row pointers (CRS, 4 B a
                                      row) or permutation (JDS, SELL, 4 B a row) and SELL's
                                      chunk pointers (12 B a chunk), x and the halo read once,
                                      y written once (8 B each), and JDS's row sums loaded and
                                      stored once per jagged diagonal (16 B an entry);
                                      memory-bound limit = 2 bandwidth / this */
  int nthreads;
} hk_spmv_info_t;
/* hk_spmv_info: sizes, plan and traffic model into *info.
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL. */
HK_EXPORT int hk_spmv_info(const hk_spmv_t *spmv, hk_spmv_info_t *info);
/* hk_spmv_plan_counts: peers and counts of the plan: arrays of length comm size,
 * doubles per multiply this rank sends to / receives from each rank.
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL. */
HK_EXPORT int hk_spmv_plan_counts(const hk_spmv_t *spmv, int *send_counts, int *recv_counts);

/* hk_spmv_multiply: y = A x the mode's way.  x has nrows + nhalo entries.
 * Collective: comm (neighbours).  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG for NULL, HK_ERR_STATE inside a parallel region, HK_ERR_MPI. */
HK_EXPORT int hk_spmv_multiply(hk_spmv_t *spmv, double *x, double *y);

/* Cumulative times (seconds, summed over multiplies; per multiply the slowest
 * thread of a phase counts).  comm: post + wait of the communicating thread(s);
 * wait: the part of comm spent in MPI_Waitall; exposed: time the computing threads
 * stood idle for the halo (the whole comm in modes without overlap; in overlap
 * modes the time from the end of the local part to the end of the exchange). */
typedef struct hk_spmv_stats {
  long long multiplies;
  double pack, comm, wait, local, halo, exposed;
} hk_spmv_stats_t;
/* hk_spmv_stats: the counters since creation or hk_spmv_stats_reset into *stats.
 * Collective: local.  Threads: outside parallel regions.  Errors: HK_ERR_ARG for NULL. */
HK_EXPORT int hk_spmv_stats(const hk_spmv_t *spmv, hk_spmv_stats_t *stats);
/* hk_spmv_stats_reset: zero the counters (NULL is ignored).
 * Collective: local.  Threads: outside parallel regions.  Errors: none. */
HK_EXPORT void hk_spmv_stats_reset(hk_spmv_t *spmv);

#ifdef __cplusplus
}
#endif
#endif
