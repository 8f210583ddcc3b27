/* tests/mpi/test_halo.c: halo content for every mode.
 *
 *   test_halo --dims 2|3 [--map sequential|round-robin|node-aware]
 *
 * For periodic and not, halo widths 1, 2 and 3, faces-only and full stencils, and
 * every mode: each owned cell holds an encoding of its global index; after an
 * exchange (and after begin/end) every ghost a neighbour sends equals that
 * neighbour's encoding, every other ghost keeps its sentinel (global edges,
 * and edges/corners under faces-only).  Owned values change between exchanges,
 * so a stale halo shows.  hk_halo_step must update every cell of its region
 * exactly once, with the stencil sum of the values the exchange delivered,
 * for every extend.  The bytes the plan counts as inter/intra-node/self match
 * hk_cart_surface() of the layout.
 */
#include <math.h>
#include <stdint.h>
#include <omp.h>
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

#define SENTINEL (-1.0)

typedef struct ctx {
  const hk_cart_t *cart;
  hk_cart_info_t ci;
  hk_field_layout_t L;
  hk_stencil_t stencil;
  long long G[3];
  double shift;
  int wrap[3]; /* self_wrap: nothing crosses these dimensions */
} ctx_t;

static double enc(const ctx_t *c, long long g[3])
{
  return 1.0 + (double)(g[0] + c->G[0] * (g[1] + c->G[1] * g[2])) + c->shift;
}

static long long idx(const hk_field_layout_t *L, int i, int j, int k)
{
  return L->offset + i + j * L->sy + k * L->sz;
}

/* What cell (i,j,k) must hold after an exchange. */
static double expected(const ctx_t *c, const int l[3])
{
  int off[3] = {0, 0, 0}, nz = 0;
  long long g[3];
  for (int d = 0; d < 3; d++) {
    if (d >= c->ci.dims) {
      g[d] = 0;
      continue;
    }
    off[d] = l[d] < 0 ? -1 : l[d] >= c->L.n[d] ? 1 : 0;
    nz += off[d] != 0;
    g[d] = c->ci.lo[d] + l[d];
  }
  if (nz == 0)
    return enc(c, g);
  if (c->stencil == HK_STENCIL_FACES && nz > 1)
    return SENTINEL;
  for (int d = 0; d < 3; d++)
    if (off[d] && c->wrap[d])
      return SENTINEL;
  int peer = MPI_PROC_NULL;
  CHECK_EQ_INT(hk_cart_neighbor(c->cart, off, &peer), HK_SUCCESS);
  if (peer == MPI_PROC_NULL)
    return SENTINEL;
  for (int d = 0; d < c->ci.dims; d++)
    g[d] = ((g[d] % c->G[d]) + c->G[d]) % c->G[d];
  return enc(c, g);
}

static void fill(const ctx_t *c, double *f)
{
  const hk_field_layout_t *L = &c->L;
  for (int k = 0; k < L->n[2]; k++)
    for (int j = 0; j < L->n[1]; j++)
      for (int i = 0; i < L->n[0]; i++) {
        long long g[3] = {c->ci.lo[0] + i, c->ci.lo[1] + j, c->ci.dims == 3 ? c->ci.lo[2] + k : 0};
        f[idx(L, i, j, k)] = enc(c, g);
      }
}

/* every cell within the ghost layers holds what it must; returns the mismatches */
static int check_field(const ctx_t *c, const double *f, const char *what)
{
  const hk_field_layout_t *L = &c->L;
  int w = L->width, bad = 0, kw = c->ci.dims == 3 ? w : 0;
  for (int k = -kw; k < L->n[2] + kw; k++)
    for (int j = -w; j < L->n[1] + w; j++)
      for (int i = -w; i < L->n[0] + w; i++) {
        int l[3] = {i, j, k};
        double want = expected(c, l), got = f[idx(L, i, j, k)];
        if (got != want && bad++ < 3)
          fprintf(stderr, "rank %d %s: cell (%d,%d,%d) holds %.1f, expected %.1f\n", c->ci.rank,
                  what, i, j, k, got, want);
      }
  return bad;
}

typedef struct work_arg {
  const ctx_t *c;
  const double *in;
  double *out;
  int *count;
} work_arg_t;

/* out = sum of the stencil's cells (radius 1), count how often each cell is updated */
static void sum_update(const hk_box_t *b, void *arg)
{
  work_arg_t *a = arg;
  const hk_field_layout_t *L = &a->c->L;
  int full = a->c->stencil == HK_STENCIL_FULL, dz = a->c->ci.dims == 3 ? 1 : 0;
  for (int k = b->lo[2]; k < b->hi[2]; k++)
    for (int j = b->lo[1]; j < b->hi[1]; j++)
      for (int i = b->lo[0]; i < b->hi[0]; i++) {
        double s = 0.0;
        for (int z = -dz; z <= dz; z++)
          for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++)
              if (full || (x != 0) + (y != 0) + (z != 0) <= 1)
                s += a->in[idx(L, i + x, j + y, k + z)];
        a->out[idx(L, i, j, k)] = s;
        a->count[idx(L, i, j, k)]++;
      }
}

static int check_step(const ctx_t *c, hk_halo_t *h, double *in, int extend)
{
  const hk_field_layout_t *L = &c->L;
  double *out = calloc(L->count, sizeof *out);
  int *count = calloc(L->count, sizeof *count), bad = 0;
  work_arg_t a = {c, in, out, count};
  hk_halo_work_t work = {.update = sum_update, .arg = &a, .extend = extend};
  CHECK_EQ_INT(hk_halo_step(h, in, &work), HK_SUCCESS);
  hk_halo_regions_t rg;
  CHECK_EQ_INT(hk_halo_regions(h, extend, &rg), HK_SUCCESS);
  const hk_box_t U = rg.all;
  for (int d = 0; d < 3; d++) /* the caller wraps these: no ghost of them is updated */
    if (c->wrap[d])
      CHECK(U.lo[d] == 0 && U.hi[d] == L->n[d]);
  int w = L->width, kw = c->ci.dims == 3 ? w : 0, full = c->stencil == HK_STENCIL_FULL;
  int dz = c->ci.dims == 3 ? 1 : 0;
  for (int k = -kw; k < L->n[2] + kw; k++)
    for (int j = -w; j < L->n[1] + w; j++)
      for (int i = -w; i < L->n[0] + w; i++) {
        int inside = i >= U.lo[0] && i < U.hi[0] && j >= U.lo[1] && j < U.hi[1] &&
                     k >= U.lo[2] && k < U.hi[2];
        long long at = idx(L, i, j, k);
        if (count[at] != inside) {
          if (bad++ < 3)
            fprintf(stderr, "rank %d %s extend %d: cell (%d,%d,%d) updated %d times\n", c->ci.rank,
                    hk_mode_name(hk_halo_mode(h)), extend, i, j, k, count[at]);
          continue;
        }
        if (!inside)
          continue;
        double want = 0.0;
        for (int z = -dz; z <= dz; z++)
          for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++)
              if (full || (x != 0) + (y != 0) + (z != 0) <= 1) {
                int l[3] = {i + x, j + y, k + z};
                want += expected(c, l);
              }
        if (out[at] != want && bad++ < 3)
          fprintf(stderr, "rank %d %s extend %d: cell (%d,%d,%d) = %.1f, expected %.1f\n",
                  c->ci.rank, hk_mode_name(hk_halo_mode(h)), extend, i, j, k, out[at], want);
      }
  free(out);
  free(count);
  return bad;
}

static void test_mode(ctx_t *c, hk_mode_t mode, int width)
{
  hk_halo_t *h = NULL;
  hk_halo_desc_t hd = {.cart = c->cart, .width = width, .stencil = c->stencil, .mode = mode,
                       .self_wrap = {c->wrap[0], c->wrap[1], c->wrap[2]}};
  int err = hk_halo_create(&hd, &h);
  CHECK_EQ_INT(err, HK_SUCCESS);
  if (err != HK_SUCCESS) {
    fprintf(stderr, "hk_halo_create(%s): %s\n", hk_mode_name(mode), hk_error_message());
    return;
  }
  CHECK_EQ_INT(hk_halo_layout(h, &c->L), HK_SUCCESS);
  /* the layout's promise: rows a whole number of cache lines, owned column 0 on a line */
  CHECK_EQ_INT((int)(c->L.sy % HK_FIELD_ALIGN), 0);
  CHECK(c->L.offset % c->L.sy >= width);
  int threads = 0;
  CHECK_EQ_INT(hk_halo_threads(h, &threads), HK_SUCCESS);
  CHECK_EQ_INT(threads, mode <= HK_MODE_PURE_NB ? 1 : omp_get_max_threads());
  CHECK_EQ_INT(hk_halo_threads(NULL, &threads), HK_ERR_ARG);
  double *f = NULL;
  CHECK_EQ_INT(hk_halo_field_alloc(h, &f), HK_SUCCESS);
  CHECK(f && ((uintptr_t)(f + c->L.offset) & 63) == 0);
  for (size_t x = 0; x < c->L.count; x++)
    f[x] = SENTINEL;
  char what[96];
  snprintf(what, sizeof what, "%s w=%d %s wrap %d%d%d", hk_mode_name(mode), width,
           c->stencil == HK_STENCIL_FULL ? "full" : "faces", c->wrap[0], c->wrap[1], c->wrap[2]);
  /* exchange, then new owned values and exchange again: a stale halo shows */
  for (int round = 0; round < 2; round++) {
    c->shift = round * 1.0e6;
    fill(c, f);
    CHECK_EQ_INT(hk_halo_exchange(h, f), HK_SUCCESS);
    CHECK_EQ_INT(check_field(c, f, what), 0);
  }
  /* split phase */
  c->shift = 2.0e6;
  fill(c, f);
  CHECK_EQ_INT(hk_halo_begin(h, f), HK_SUCCESS);
  CHECK_EQ_INT(hk_halo_end(h, f), HK_SUCCESS);
  CHECK_EQ_INT(check_field(c, f, what), 0);
  /* steps: every extend the width allows */
  for (int e = 0; e < width; e++) {
    c->shift = (3.0 + e) * 1.0e6;
    fill(c, f);
    CHECK_EQ_INT(check_step(c, h, f, e), 0);
  }
  hk_halo_stats_t st;
  CHECK_EQ_INT(hk_halo_stats(h, &st), HK_SUCCESS);
  CHECK_EQ_INT(st.exchanges, 3 + width);
  CHECK(st.pack >= 0.0 && st.wait >= 0.0 && st.comm >= 0.0);
  /* bad extend is refused before anything is sent */
  hk_halo_work_t bad = {.update = sum_update, .arg = NULL, .extend = width};
  CHECK_EQ_INT(hk_halo_step(h, f, &bad), HK_ERR_ARG);
  hk_halo_field_free(&f);
  CHECK_EQ_INT(hk_halo_destroy(&h), HK_SUCCESS);
  CHECK(h == NULL);
}

/* self_wrap: where a periodic dimension has one process, the caller may wrap it
 * itself; the engine then copies nothing across it (its ghosts keep their sentinels)
 * and regions stay inside it.  Wrapping a decomposed or non-periodic dimension is
 * refused on every rank. */
static void test_self_wrap(ctx_t *c, int width)
{
  int any = 0, bad_dim = -1;
  for (int d = 0; d < c->ci.dims; d++) {
    int ok = c->ci.periodic[d] && c->ci.procs[d] == 1;
    any |= ok;
    if (!ok && bad_dim < 0)
      bad_dim = d;
  }
  if (any) {
    for (int d = 0; d < 3; d++)
      c->wrap[d] = d < c->ci.dims && c->ci.periodic[d] && c->ci.procs[d] == 1;
    const hk_mode_t modes[] = {HK_MODE_PURE, HK_MODE_FUNNELED, HK_MODE_TASK_BALANCED,
                               HK_MODE_MULTIPLE};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
      test_mode(c, modes[m], width);
    for (int d = 0; d < 3; d++)
      c->wrap[d] = 0;
  }
  if (bad_dim >= 0) {
    hk_halo_t *h = NULL;
    hk_halo_desc_t hd = {.cart = c->cart, .width = width, .stencil = c->stencil,
                         .mode = HK_MODE_PURE};
    hd.self_wrap[bad_dim] = 1;
    CHECK_EQ_INT(hk_halo_create(&hd, &h), HK_ERR_ARG);
    CHECK(h == NULL);
    CHECK_CONTAINS(hk_error_message(), "self_wrap in dimension");
  }
}

/* plan byte counts, summed over ranks, equal the layout's surface */
static void test_surface(ctx_t *c, const hk_cart_desc_t *cd)
{
  hk_halo_t *h = NULL;
  hk_halo_desc_t hd = {.cart = c->cart, .width = cd->halo_width, .stencil = cd->stencil,
                       .mode = HK_MODE_PURE};
  if (hk_halo_create(&hd, &h) != HK_SUCCESS)
    return;
  hk_halo_stats_t st;
  hk_halo_stats(h, &st);
  long long mine[6] = {st.bytes_inter, st.bytes_intra, st.bytes_self,
                       st.msgs_inter,  st.msgs_intra,  st.msgs_self};
  long long sum[6];
  MPI_Allreduce(mine, sum, 6, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  hk_cart_surface_t s;
  CHECK_EQ_INT(hk_cart_surface(cd, hk_cart_layout(c->cart), &s), HK_SUCCESS);
  CHECK_EQ_INT(sum[0], s.inter_bytes);
  CHECK_EQ_INT(sum[1], s.intra_bytes);
  CHECK_EQ_INT(sum[2], s.self_bytes);
  CHECK_EQ_INT(sum[3], s.inter_msgs);
  CHECK_EQ_INT(sum[4], s.intra_msgs);
  CHECK_EQ_INT(sum[5], s.self_msgs);
  hk_halo_destroy(&h);
}

/* grids whose fields overflow the address space at any rank count (blocks of ~2^60
 * cells or more: 2^63 bytes and up): the plan refuses them on every rank before it
 * allocates anything (the byte count once wrapped to 0 and the packing wrote past a
 * 0-byte buffer) */
static void test_huge(int dims)
{
  const long long G[2][3] = {{2147483647LL, 2147483647LL, 1}, /* 2D: 2^62 cells */
                             {2147483647LL, 2147483647LL, 2147483647LL}};
  for (int periodic = 0; periodic <= 1; periodic++) {
    hk_cart_desc_t cd = {.dims = dims, .halo_width = 1, .stencil = HK_STENCIL_FACES};
    for (int d = 0; d < 3; d++) {
      cd.global[d] = G[dims - 2][d];
      cd.periodic[d] = d < dims ? periodic : 0;
    }
    hk_cart_t *cart = NULL;
    if (hk_cart_create(MPI_COMM_WORLD, NULL, &cd, &cart) != HK_SUCCESS) {
      CHECK(0);
      continue;
    }
    hk_halo_t *h = NULL;
    hk_halo_desc_t hd = {.cart = cart, .width = 1, .stencil = HK_STENCIL_FACES,
                         .mode = HK_MODE_PURE};
    CHECK_EQ_INT(hk_halo_create(&hd, &h), HK_ERR_NOMEM);
    CHECK(h == NULL);
    CHECK_CONTAINS(hk_error_message(), "does not fit in the address space");
    hk_halo_destroy(&h);
    hk_cart_destroy(&cart);
  }
}

int main(int argc, char **argv)
{
  int dims = 3;
  hk_cart_map_t map = HK_CART_MAP_SEQUENTIAL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--dims"))
      dims = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--map") && hk_cart_map_parse(argv[i + 1], &map) != HK_SUCCESS)
      return 2;
  }
  if (hk_init(&argc, &argv, HK_THREAD_MULTIPLE) != HK_SUCCESS) {
    fprintf(stderr, "test_halo: %s\n", hk_error_message());
    hk_finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &hk_test_rank);
  for (int periodic = 0; periodic <= 1; periodic++)
    for (int width = 1; width <= 3; width++)
      for (int st = 0; st <= 1; st++) {
        hk_cart_desc_t cd = {.dims = dims, .map = map, .halo_width = width,
                             .stencil = st ? HK_STENCIL_FULL : HK_STENCIL_FACES};
        long long G[3] = {dims == 3 ? 13 : 23, dims == 3 ? 11 : 17, dims == 3 ? 9 : 1};
        for (int d = 0; d < 3; d++) {
          cd.global[d] = G[d];
          cd.periodic[d] = d < dims ? periodic : 0;
        }
        hk_cart_t *cart = NULL;
        int err = hk_cart_create(MPI_COMM_WORLD, NULL, &cd, &cart);
        CHECK_EQ_INT(err, HK_SUCCESS);
        if (err != HK_SUCCESS) {
          fprintf(stderr, "hk_cart_create: %s\n", hk_error_message());
          continue;
        }
        ctx_t c = {.cart = cart, .stencil = cd.stencil};
        memcpy(c.G, G, sizeof G);
        hk_cart_info(cart, &c.ci);
        for (int m = 0; m < HK_MODE_COUNT; m++)
          test_mode(&c, (hk_mode_t)m, width);
        test_surface(&c, &cd);
        test_self_wrap(&c, width);
        hk_cart_destroy(&cart);
      }
  test_huge(dims);
  int rc = hk_test_mpi_report("test_halo");
  hk_finalize();
  return rc;
}
