/* bench/halo.c: the halo engine in every hybrid mode on a 3D block per rank,
 * bytes per exchange swept (the cost of a halo exchange, mode by mode).
 *
 *   -m sets the face message size in bytes; the block per rank is n^3 cells with
 *   n = sqrt(size / 8) (at least 4): faces of n x n doubles, halo of width 1, faces
 *   only (--stencil faces) or with edges and corners (full), periodic process grid.
 *   for each size, for each mode: N exchanges (after warm-up), time per exchange
 *   (min/avg/max over ranks), bytes per exchange (all ranks) inside/across nodes.
 * After the timed exchanges every exchanged ghost is checked against the neighbour's
 * values (each owned cell holds an encoding of its global index).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static const char *opt_modes, *opt_stencil = "faces";

static const hk_opt_t halo_opts[] = {
  {"modes", HK_OPT_STR, &opt_modes, "LIST", "comma-separated modes of --list-modes (default: all)",
   0},
  {"stencil", HK_OPT_STR, &opt_stencil, "faces|full",
   "exchange faces only (7-point stencil, 6 neighbours) or faces, edges and corners "
   "(27-point, 26)", 0},
};

static double enc(const long long G[3], long long x, long long y, long long z)
{
  x = (x % G[0] + G[0]) % G[0];
  y = (y % G[1] + G[1]) % G[1];
  z = (z % G[2] + G[2]) % G[2];
  return 1.0 + (double)(x + G[0] * (y + G[1] * z));
}

/* wrong ghosts of the field: those outside the block in at most `outside` dimensions
 * (1: faces; 3: faces, edges and corners) */
static long long check_ghosts(const hk_cart_info_t *ci, const hk_field_layout_t *L, const double *f,
                              int outside)
{
  long long bad = 0;
  for (int k = -1; k <= L->n[2]; k++)
    for (int j = -1; j <= L->n[1]; j++)
      for (int i = -1; i <= L->n[0]; i++) {
        int out = (i < 0 || i >= L->n[0]) + (j < 0 || j >= L->n[1]) + (k < 0 || k >= L->n[2]);
        if (out == 0 || out > outside)
          continue;
        long long at = L->offset + i + j * L->sy + k * L->sz;
        bad += f[at] != enc(ci->global, ci->lo[0] + i, ci->lo[1] + j, ci->lo[2] + k);
      }
  return bad;
}

static int wanted(const char *name)
{
  if (!opt_modes)
    return 1;
  size_t n = strlen(name);
  for (const char *p = opt_modes; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len == n && !strncmp(p, name, n))
      return 1;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

static int check_modes(void)
{
  for (const char *p = opt_modes; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), p);
    hk_mode_t m;
    if (hk_mode_parse(name, &m) != HK_SUCCESS) {
      char why[512]; /* the library's message names the known modes */
      snprintf(why, sizeof why, "%s", hk_error_message());
      return hk_error_set(HK_ERR_ARG, "--modes %s: %s", opt_modes, why);
    }
    p = comma ? comma + 1 : NULL;
  }
  return HK_SUCCESS;
}

/* the ghosts after the exchanges hold their neighbours' encodings */
static int ghosts_right(const hk_cart_info_t *ci, const hk_field_layout_t *L, const double *f,
                        int full, hk_mode_t mode)
{
  if (check_ghosts(ci, L, f, full ? 3 : 1))
    return hk_error_set(HK_ERR_STATE, "%s: wrong %s ghosts after the exchanges", hk_mode_name(mode),
                        full ? "face, edge or corner" : "face");
  return HK_SUCCESS;
}

static int one(hk_bench_ctx_t *c, hk_mode_t mode, int n, long long face_bytes)
{
  int err = HK_SUCCESS, dims[3] = {0, 0, 0};
  const int full = !strcmp(opt_stencil, "full");
  const hk_stencil_t stencil = full ? HK_STENCIL_FULL : HK_STENCIL_FACES;
  MPI_Dims_create(c->size, 3, dims);
  hk_cart_desc_t cd = {.dims = 3, .map = HK_CART_MAP_SEQUENTIAL, .halo_width = 1,
                       .stencil = stencil};
  for (int d = 0; d < 3; d++) {
    cd.global[d] = (long long)n * dims[d];
    cd.periodic[d] = 1;
    cd.procs[d] = dims[d];
  }
  hk_cart_t *cart = NULL;
  hk_halo_t *h = NULL;
  double *f = NULL;
  HK_TRY(err, hk_cart_create(c->comm, c->nodes, &cd, &cart));
  hk_halo_desc_t hd = {.cart = cart, .width = 1, .stencil = stencil, .mode = mode};
  HK_TRY(err, hk_halo_create(&hd, &h));
  hk_cart_info_t ci;
  hk_field_layout_t L;
  hk_cart_info(cart, &ci);
  hk_halo_layout(h, &L);
  HK_LOCAL(err, hk_halo_field_alloc(h, &f));
  HK_AGREE(err, c->comm);
  for (int k = 0; k < L.n[2]; k++)
    for (int j = 0; j < L.n[1]; j++)
      for (int i = 0; i < L.n[0]; i++)
        f[L.offset + i + j * L.sy + k * L.sz] =
            enc(ci.global, ci.lo[0] + i, ci.lo[1] + j, ci.lo[2] + k);
  int iters, warmup;
  hk_bench_iters(c->common, face_bytes, &iters, &warmup);
  for (int i = 0; i < warmup; i++) /* skipped after a failed exchange */
    HK_LOCAL(err, hk_halo_exchange(h, f));
  MPI_Barrier(hk_cart_comm(cart));
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    HK_LOCAL(err, hk_halo_exchange(h, f));
  double t = (MPI_Wtime() - t0) / iters;
  HK_LOCAL(err, ghosts_right(&ci, &L, f, full, mode));
  HK_AGREE(err, c->comm);
  hk_halo_stats_t st;
  hk_halo_stats(h, &st);
  long long total = 0;
  hk_stats_t ts;
  hk_stats_reduce(c->comm, t, &ts);
  char block[48];
  snprintf(block, sizeof block, "%dx%dx%d", n, n, n);
  int threads = 1;
  hk_halo_threads(h, &threads); /* h is valid: cannot fail */
  hk_record_t *rec = NULL; /* no error tests: the emit returns the first, agreed */
  hk_record_create_declared(c->rep, &bench_kind_halo, &rec);
  hk_record_param_str(rec, "mode", hk_mode_name(mode));
  hk_record_param_str(rec, "block", block);
  hk_record_param_str(rec, "stencil", full ? "full" : "faces");
  hk_record_param_int(rec, "face_bytes", (long long)n * n * 8);
  hk_record_param_int(rec, "threads", threads);
  hk_record_stats_given(rec, "time", &(hk_stats_t){ts.min * 1e6, ts.avg * 1e6, ts.max * 1e6}, "us");
  hk_app_record_halo_bytes(rec, c->comm, &st, &total);
  hk_record_value(rec, "bandwidth", (double)total / ts.max / 1e6, "MB/s");
  err = hk_record_emit(&rec);
cleanup:
  hk_halo_field_free(&f);
  hk_halo_destroy(&h);
  hk_cart_destroy(&cart);
  return err;
}

static int run(hk_bench_ctx_t *c)
{
  int err = HK_SUCCESS;
  if (opt_modes)
    HK_LOCAL(err, check_modes());
  if (strcmp(opt_stencil, "faces") && strcmp(opt_stencil, "full"))
    HK_LOCAL(err, hk_error_set(HK_ERR_ARG, "--stencil %s: faces or full", opt_stencil));
  HK_AGREE(err, c->comm);
  for (long long size = c->common->min_size; size <= c->common->max_size; size *= 2) {
    int n = (int)sqrt((double)size / 8.0);
    if (n < 4)
      n = 4;
    for (int m = 0; m < HK_MODE_COUNT; m++) /* one()'s errors are agreed */
      if (wanted(hk_mode_name((hk_mode_t)m)))
        HK_TRY(err, one(c, (hk_mode_t)m, n, size));
  }
cleanup:
  return err;
}

const hk_experiment_t hk_exp_halo = {
  .name = "halo",
  .list_modes = 1,
  .summary = "the halo engine in every hybrid mode on a 3D block, bytes per exchange swept",
  .description =
      "Each rank owns an n^3 block (n = sqrt(size/8): -m sets the face message size), periodic\n"
      "process grid of all ranks, halo of width 1: faces only (--stencil faces, 7-point stencil)\n"
      "or faces, edges and corners (--stencil full, 27-point); for each size and mode (--modes,\n"
      "all by default) the time per hk_halo_exchange (us, min/avg/max over ranks) after warm-up,\n"
      "and the messages and bytes per exchange inside and across nodes.  The exchanged ghosts\n"
      "are checked after the timed exchanges.  The multiple modes need MPI_THREAD_MULTIPLE (a\n"
      "clear error without it).",
  .default_sizes = "2K:128K",
  .level = HK_THREAD_MULTIPLE,
  .min_level = HK_THREAD_SINGLE,
  .min_ranks = 1,
  .opts = halo_opts,
  .nopts = (int)(sizeof halo_opts / sizeof halo_opts[0]),
  .run = run,
};
