/* src/spmv/hh.c: a Holstein-Hubbard model matrix (the kind of matrix of the
 * Jacobi-Davidson eigensolver behind Rabenseifner's JDS SpMV measurements: electron-phonon
 * systems of Fehske, Wellein et al.).
 *
 * Model, as published (e.g. A. Weisse, G. Wellein, H. Fehske, "Density-matrix algorithm for
 * phonon Hilbert space reduction...", cond-mat/0104533, and A. Weisse, H. Fehske, "Exact
 * diagonalization techniques", Lect. Notes Phys. 739 (2008), ch. 18):
 *     H = -t sum_{<ij>,s} (c+_is c_js + h.c.) + U sum_i n_i,up n_i,dn
 *         - g w0 sum_i (b+_i + b_i) n_i + w0 sum_i b+_i b_i,      n_i = n_i,up + n_i,dn
 * on a periodic chain of L sites (bonds (a, a+1 mod L); L = 2: the one bond (0,1); L = 1:
 * none), with NUP up and NDN down electrons and the phonon Hilbert space truncated to at
 * most M phonons in total (the truncation of those papers).  Constants chosen here (not
 * taken from a paper; they change values, not the pattern): t = 1, U = 4, w0 = 1, g = 1.
 *
 * Basis (the row order): row = (u * D_dn + d) * D_ph + p where
 *   u, d  colex ranks of the up / down occupation bit masks (= their order as integers
 *         among the masks with NUP / NDN bits), D_up = C(L, NUP), D_dn = C(L, NDN);
 *   p     lexicographic rank of the phonon numbers (m_0 .. m_{L-1}), sum m_k <= M,
 *         D_ph = C(L + M, L).
 * Fermion signs: Jordan-Wigner order all up modes (sites ascending), then all down modes:
 * c+_x c_y on one spin gives (-1)^(electrons of that spin strictly between x and y).
 *
 * H is symmetric but indefinite (the hopping).  The generator returns A = H + s I with the
 * Gershgorin shift s = 1 + 2 (NUP + NDN) (t + g w0 sqrt(M)): every row's off-diagonal
 * entries sum in modulus to at most 2 t per electron (two bonds) plus g w0 n_k (sqrt(m_k+1)
 * + sqrt(m_k)) <= 2 g w0 sqrt(M) n_k per site, and H's diagonal is >= 0, so every
 * eigenvalue of A is >= 1: A is symmetric positive definite (CG applies).
 * Every row is computed from its index alone: the same matrix for any row blocks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "spmv/spmv_internal.h"

#define HH_T 1.0
#define HH_U 4.0
#define HH_W0 1.0
#define HH_G 1.0

/* the binomials of this matrix, computed once by the parse (Pascal's triangle) */
static unsigned long long binom_of(const hk__spmv_hh_t *h, int n, int k)
{
  return (k < 0 || n < 0 || k > n) ? 0 : h->binom[n][k];
}
#define binom(n, k) binom_of(h, (n), (k))

int hk__spmv_hh_parse(const char *spec, hk__spmv_hh_t *h)
{
  int L, nu, nd, M, used = 0;
  memset(h, 0, sizeof *h);
  for (int i = 0; i < HK__SPMV_HH_MAXB; i++) {
    h->binom[i][0] = 1;
    for (int j = 1; j <= i; j++)
      h->binom[i][j] = h->binom[i - 1][j - 1] + (j < i ? h->binom[i - 1][j] : 0);
  }
  if (sscanf(spec, "hh:%d,%d,%d,%d%n", &L, &nu, &nd, &M, &used) != 4 || spec[used] ||
      strchr(spec, ' ') || strchr(spec, '-') || strchr(spec, '+'))
    return HK_ERROR(HK_ERR_ARG, "'%s': expected hh:L,NUP,NDN,M (sites, up and down electrons, "
                    "phonons at most)", spec);
  if (L < 1 || L > HK__SPMV_HH_MAXL || nu > L || nd > L || M > HK__SPMV_HH_MAXM)
    return HK_ERROR(HK_ERR_ARG, "'%s': 1 <= L <= %d sites, 0 <= NUP, NDN <= L electrons, "
                    "0 <= M <= %d phonons", spec, HK__SPMV_HH_MAXL, HK__SPMV_HH_MAXM);
  h->L = L;
  h->nup = nu;
  h->ndn = nd;
  h->M = M;
  h->dup = (long long)binom(L, nu);
  h->ddn = (long long)binom(L, nd);
  h->dph = (long long)binom(L + M, L);
  double n = (double)h->dup * (double)h->ddn * (double)h->dph;
  if (n > (double)(1LL << 40))
    return HK_ERROR(HK_ERR_ARG, "'%s': %.3g rows is too many", spec, n);
  h->n = h->dup * h->ddn * h->dph;
  h->shift = 1.0 + 2.0 * (nu + nd) * (HH_T + HH_G * HH_W0 * sqrt((double)M));
  h->max_row = 1 + 2 * (nu + nd) + 2 * L;
  return HK_SUCCESS;
}

/* colex rank of a mask with k bits and its inverse (combinatorial number system) */
static long long mask_rank(const hk__spmv_hh_t *h, unsigned mask)
{
  long long r = 0;
  for (int j = 1, c = 0; mask; c++, mask >>= 1)
    if (mask & 1u)
      r += (long long)binom(c, j++);
  return r;
}

static unsigned mask_unrank(const hk__spmv_hh_t *h, long long r, int k, int L)
{
  unsigned mask = 0;
  for (int j = k, c = L - 1; j >= 1; j--) {
    while (binom(c, j) > (unsigned long long)r)
      c--;
    mask |= 1u << c;
    r -= (long long)binom(c, j);
    c--;
  }
  return mask;
}

/* configurations of l sites with at most s phonons: C(l + s, l); those before value m at
 * site k with budget b: sum_{v<m} C(a + b - v, a), a = L-k-1, = C(a+b+1, a+1) - C(a+b-m+1, a+1) */
static long long ph_before(const hk__spmv_hh_t *h, int L, int k, int b, int m)
{
  int a = L - k - 1;
  return (long long)(binom(a + b + 1, a + 1) - binom(a + b - m + 1, a + 1));
}

static long long ph_rank(const hk__spmv_hh_t *h, const int *m, int L, int M)
{
  long long r = 0;
  for (int k = 0, b = M; k < L; b -= m[k], k++)
    r += ph_before(h, L, k, b, m[k]);
  return r;
}

static void ph_unrank(const hk__spmv_hh_t *h, long long r, int L, int M, int *m)
{
  for (int k = 0, b = M; k < L; b -= m[k], k++) {
    m[k] = 0;
    while (m[k] < b && ph_before(h, L, k, b, m[k] + 1) <= r)
      m[k]++;
    r -= ph_before(h, L, k, b, m[k]);
  }
}

typedef struct hh_entry {
  long long col;
  double val;
} hh_entry_t;

static int cmp_entry(const void *a, const void *b)
{
  const hh_entry_t *x = a, *y = b;
  return (x->col > y->col) - (x->col < y->col);
}

/* the hops of one spin's mask s: each (a, b) bond with one end occupied */
static int hops(const hk__spmv_hh_t *h, unsigned s, long long (*col_of)(const hk__spmv_hh_t *,
                unsigned, const void *), const void *ctx, hh_entry_t *e)
{
  int n = 0, L = h->L, nb = L >= 3 ? L : L - 1;
  for (int a = 0; a < nb; a++) {
    int b = (a + 1) % L, lo = a < b ? a : b, hi = a < b ? b : a;
    if (((s >> a) & 1u) == ((s >> b) & 1u))
      continue;
    unsigned between = ((1u << hi) - 1u) & ~((1u << (lo + 1)) - 1u);
    double sign = (__builtin_popcount(s & between) & 1) ? -1.0 : 1.0;
    e[n].col = col_of(h, s ^ (1u << a) ^ (1u << b), ctx);
    e[n++].val = -HH_T * sign;
  }
  return n;
}

typedef struct row_ctx {
  unsigned up, dn;
  long long p;
} row_ctx_t;

static long long col_up(const hk__spmv_hh_t *h, unsigned s, const void *c)
{
  const row_ctx_t *r = c;
  return (mask_rank(h, s) * h->ddn + mask_rank(h, r->dn)) * h->dph + r->p;
}

static long long col_dn(const hk__spmv_hh_t *h, unsigned s, const void *c)
{
  const row_ctx_t *r = c;
  return (mask_rank(h, r->up) * h->ddn + mask_rank(h, s)) * h->dph + r->p;
}

int hk__spmv_hh_row(const hk__spmv_hh_t *h, long long i, long long *col, double *val)
{
  hh_entry_t e[1 + 2 * (2 * HK__SPMV_HH_MAXL) + 2 * HK__SPMV_HH_MAXL];
  int m[HK__SPMV_HH_MAXL], L = h->L, n = 0, total = 0;
  long long el = i / h->dph;
  row_ctx_t r = {mask_unrank(h, el / h->ddn, h->nup, L), mask_unrank(h, el % h->ddn, h->ndn, L),
                 i % h->dph};
  ph_unrank(h, r.p, L, h->M, m);
  for (int k = 0; k < L; k++)
    total += m[k];
  e[n].col = i;
  e[n++].val = HH_U * __builtin_popcount(r.up & r.dn) + HH_W0 * total + h->shift;
  n += hops(h, r.up, col_up, &r, e + n);
  n += hops(h, r.dn, col_dn, &r, e + n);
  const long long base = el * h->dph;
  for (int k = 0; k < L; k++) {
    int nk = (int)((r.up >> k) & 1u) + (int)((r.dn >> k) & 1u);
    if (!nk)
      continue; /* (b+ + b) n_k is zero on an empty site */
    for (int d = -1; d <= 1; d += 2) {
      if ((d < 0 && m[k] == 0) || (d > 0 && total == h->M))
        continue;
      m[k] += d; /* <m+1| b+ |m> = sqrt(m+1), <m-1| b |m> = sqrt(m) */
      e[n].col = base + ph_rank(h, m, L, h->M);
      e[n++].val = -HH_G * HH_W0 * nk * sqrt((double)(d > 0 ? m[k] : m[k] + 1));
      m[k] -= d;
    }
  }
  qsort(e, (size_t)n, sizeof *e, cmp_entry);
  for (int q = 0; q < n; q++) {
    col[q] = e[q].col;
    val[q] = e[q].val;
  }
  return n;
}
