/* src/spmv/spmv_internal.h: the distributed matrix shared by the plan, the
 * formats and the modes (never installed).
 *
 * x is extended: x[0, nrows) this rank's entries, x[nrows, nrows + nhalo) the halo,
 * in ascending global column order, so the entries of one peer are contiguous and
 * its message is received straight into them.  Each part (local, halo) is a matrix
 * of nrows rows over the columns of the extended x (int indices) in one format.
 */
#ifndef HK_SPMV_INTERNAL_H
#define HK_SPMV_INTERNAL_H

#include "internal/hk_internal.h"
#include "hybridkit/spmv.h"

typedef struct hk_spmv_part {
  hk_spmv_format_t format;
  int nrows;
  long long nnz, stored;
  /* crs; crow: the ncrow rows with entries, ascending (NULL when every row has one): a part
   * that is added to y (the halo part) visits only those */
  int *rowptr;
  int ncrow;
  int *crow;
  /* jds: ndiag jagged diagonals, diagonal d = [dptr[d], dptr[d+1]) holds the d-th
   * entry of sorted rows 0 .. dptr[d+1]-dptr[d]-1; sorted row r is row perm[r] */
  int ndiag;
  int *dptr;
  double *tmp;
  /* sell: chunk c holds sorted rows [c*C, c*C + C), clen[c] columns of C entries
   * from cptr[c]; slots past nrows are padding (perm -1) */
  int C, nchunks;
  int *clen;
  long long *cptr;
  /* jds and sell */
  int *perm;
  int *col;
  double *val;
} hk_spmv_part_t;

struct hk_spmv {
  hk_spmv_desc_t desc;
  MPI_Comm comm;
  int rank, nprocs;
  long long nglobal, row_begin;
  int nrows, nhalo;
  int nthreads, reserved;
  hk_spmv_part_t local, halo;
  /* plan: messages i of the two directions */
  int nsend, nrecv;
  int *send_peer, *recv_peer;
  int *send_off, *send_cnt, *recv_off, *recv_cnt; /* recv_off: into the halo */
  int *send_idx;   /* [total send] local indices of the packed entries */
  double *sendbuf;
  MPI_Request *sreq, *rreq;
  hk_spmv_stats_t stats;
};

/* formats.c */
/* Build part from CRS rows (rowptr over nrows, int columns ascending). */
int hk__spmv_part_build(hk_spmv_part_t *p, hk_spmv_format_t format, int nrows, const int *rowptr,
                        const int *col, const double *val, int chunk, int sigma);
void hk__spmv_part_free(hk_spmv_part_t *p);
/* y (add: y +=) for piece k of `pieces` of the part (a static split of its rows or
 * chunks); safe to call concurrently for different pieces. */
void hk__spmv_part_apply(const hk_spmv_part_t *p, const double *restrict x, double *restrict y,
                         int add, int pieces, int k);
/* bytes of the part's arrays a multiply streams (values, indices, pointers) */
double hk__spmv_part_bytes(const hk_spmv_part_t *p);

/* matrix.c: a decimal integer at s (no sign, no blanks), *end after it; -1 if none */
int hk__spmv_parse_ll(const char *s, char **end, long long *v);

/* hh.c: the Holstein-Hubbard model matrix "hh:L,NUP,NDN,M" (definition in hh.c) */
#define HK__SPMV_HH_MAXL 30
#define HK__SPMV_HH_MAXM 30
#define HK__SPMV_HH_MAXB (HK__SPMV_HH_MAXL + HK__SPMV_HH_MAXM + 2)
typedef struct hk__spmv_hh {
  int L, nup, ndn, M;
  long long dup, ddn, dph, n; /* basis sizes, n = dup ddn dph rows */
  int max_row;                /* entries per row at most */
  double shift;               /* A = H + shift I */
  unsigned long long binom[HK__SPMV_HH_MAXB][HK__SPMV_HH_MAXB];
} hk__spmv_hh_t;
int hk__spmv_hh_parse(const char *spec, hk__spmv_hh_t *h);
/* row i's entries (ascending columns) into col/val (max_row each); returns their count */
int hk__spmv_hh_row(const hk__spmv_hh_t *h, long long i, long long *col, double *val);

/* modes.c */
int hk__spmv_step(hk_spmv_t *s, double *x, double *y);

#endif
