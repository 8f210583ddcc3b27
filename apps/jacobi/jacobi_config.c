/* apps/jacobi/jacobi_config.c: hk-jacobi's options: one table drives parsing and
 * --help; the values are checked and turned into a const jac_config_t once. */
#include <stdio.h>
#include <string.h>
#include "jacobi.h"

enum { ON = 0, OFF = 1 };
static const char *const onoff[] = {"on", "off", NULL};
static const char *const stores_names[] = {"auto", "nt", "cached", NULL};
static const char *const verify_names[] = {"auto", "on", "off", NULL};
const char *const jac_boundary_names[] = {"periodic", "dirichlet", NULL};
/* in the order of jac_temporal_t */
const char *const jac_temporal_names[] = {"on", "off", "wavefront", "pipeline", NULL};

/* the raw values the table parses into (defaults here) */
static struct {
  const char *mode, *grid, *map, *output, *looseness;
  int size, iters, warmup, dims, reserved, width, roofline, check_every, compare, wave_rows;
  int tile_planes, tile_rows, tile_shift, tile_strip;
  int stencil;
  int boundary, temporal, xwrap, stores, verify, layout;
  double min_time;
} opt = {.mode = "masteronly", .map = "sequential", .boundary = JAC_PERIODIC,
         .verify = JAC_VERIFY_AUTO, .temporal = JAC_TEMPORAL_ON, .stores = JAC_STORES_AUTO,
         .xwrap = ON,
         .size = 64, .iters = 20, .warmup = 2, .dims = 3, .width = 1, .check_every = -1,
         .stencil = 7, .looseness = "1:2", .tile_planes = 1, .tile_rows = -1,
         .tile_shift = 1};

static const hk_opt_t options[] = {
  {"mode", HK_OPT_STR, &opt.mode, "M", "hybrid mode, one of --list-modes", 0},
  {"size", HK_OPT_INT, &opt.size, "N", "global grid N^3 (N^2 with --dims 2)", 0},
  {"grid", HK_OPT_STR, &opt.grid, "NXxNYxNZ", "global grid (overrides --size; NXxNY in 2D)", 0},
  {"iters", HK_OPT_INT, &opt.iters, "K", "timed sweeps", 0},
  {"warmup", HK_OPT_INT, &opt.warmup, "W", "untimed sweeps first (part of the solution)", 0},
  {"min-time", HK_OPT_DOUBLE, &opt.min_time, "S",
   "time at least S seconds: more timed sweeps after --iters until then (0: just --iters)", 0},
  {"dims", HK_OPT_INT, &opt.dims, "2|3", "2: 5-point heat equation, 3: 7-point Jacobi", 0},
  {"stencil", HK_OPT_INT, &opt.stencil, "7|27",
   "3D: 7 points (faces-only halo) or 27 (weights 8/4/2/1 over 64; faces+edges+corners halo)", 0},
  {"reserved", HK_OPT_INT, &opt.reserved, "m", "communicating threads (multiple-reserved; 0: one)", 0},
  {"map", HK_OPT_STR, &opt.map, "P", "rank mapping: sequential|round-robin|node-aware", 0},
  {"halo-width", HK_OPT_INT, &opt.width, "w", "ghost layers; w sweeps per exchange", 0},
  {"boundary", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.boundary, jac_boundary_names}, "B", "periodic|dirichlet", 0},
  {"temporal", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.temporal, jac_temporal_names}, "T",
   "temporal blocking of the w sweeps of an exchange (w > 1): wavefront (3D), pipeline "
   "(threads as stages, 2D and 3D), on (wavefront where it applies) or off", 0},
  {"wave-rows", HK_OPT_INT, &opt.wave_rows, "R", "rows per wavefront strip (0: sized for the L2/L3 caches)", 0},
  {"looseness", HK_OPT_STR, &opt.looseness, "dl:du",
   "pipeline: at least dl and at most du tiles between the tiles two neighbouring stages work "
   "on (0 <= dl <= du; unshifted tiles: 1 <= dl)", 0},
  {"tile-planes", HK_OPT_INT, &opt.tile_planes, "P", "pipeline: planes (2D: rows) per tile", 0},
  {"tile-rows", HK_OPT_INT, &opt.tile_rows, "R",
   "pipeline: tiles cut into blocks of R rows (2D: columns); 0: whole planes (rows); "
   "default: 3D strips of one block sized for the L2 (whole planes where they fit)", 0},
  {"tile-shift", HK_OPT_INT, &opt.tile_shift, "0|1",
   "pipeline: 1 (default): stage s's tiles shifted by -s in every tiled dimension, as in the "
   "papers; 0: unshifted (whole planes only; a stage one tile further behind)", 0},
  {"tile-strip", HK_OPT_INT, &opt.tile_strip, "H",
   "pipeline: the tiles walk z strip by strip of H rows (2D: columns), a multiple of "
   "--tile-rows, so the planes in flight fit the caches; 0 (default): one strip (without "
   "--tile-rows: the default tiles' strips)", 0},
  {"x-wrap", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.xwrap, onoff}, "on|off",
   "3D periodic, x not decomposed: the sweeps wrap x instead of the halo exchange", 0},
  {"stores", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.stores, stores_names}, "S",
   "3D: how sweeps write the field: auto (both timed in the warm-up, the faster kept; with under 2 batches of warm-up nt when fields are far larger than the L3)|nt|cached", 0},
  {"verify", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.verify, verify_names}, "V",
   "compare with the serial reference: auto (grids up to 2^21 cells)|on|off", 0},
  {"check-every", HK_OPT_INT, &opt.check_every, "k",
   "check the invariant every k sweeps (0: at the end; default 1 when verifying, else 0)", 0},
  {"roofline", HK_OPT_FLAG, &opt.roofline, "", "measure memory bandwidth and (3D) the kernel's in-cache rate; report efficiency and bound", 0},
  {"compare-sendrecv", HK_OPT_INT, &opt.compare, "N",
   "time N halo exchanges of the engine and of a hand-written MPI_Sendrecv loop (faces)", 0},
  {"layout", HK_OPT_CHOICE, &(hk_opt_choice_t){&opt.layout, jac_layout_names}, "L",
   "pages of the fields: first-touch (by the updating threads)|serial (one thread: the "
   "pitfall)|one-location|block|interleave|random (docs/mem.md)", 0},
  {"output", HK_OPT_STR, &opt.output, "FILE", "append the JSON Lines record to FILE", 0},
};

const hk_app_t jac_app = {
  .program = "hk-jacobi",
  .list_modes = 1,
  .summary = "3D 7- or 27-point Jacobi / 2D 5-point heat equation in every hybrid MPI+OpenMP mode",
  .usage = "[--mode M] [--size N | --grid NXxNYxNZ] [--iters K] [--dims 2|3] [--stencil 7|27]\n"
           "       [--map P] [--halo-width w] [--temporal T] [--looseness dl:du] [--reserved m]\n"
           "       [--boundary periodic|dirichlet] [--roofline] [--output FILE.jsonl]",
  .description =
      "Verifies itself (invariant every --check-every sweeps; bit-identical to the serial\n"
      "reference for small grids) and exits 1 when wrong.  MLUP/s = cells x sweeps / time\n"
      "of the slowest rank.  With --halo-width w > 1 the halo holds w layers and w sweeps\n"
      "run per exchange (edges and corners exchanged too); in 3D they run as one wavefront\n"
      "through the planes (temporal blocking: the field streams through memory once per w\n"
      "sweeps; MLUP/s can then exceed the roofline of a single sweep; in the modes that\n"
      "overlap, the sweeps after the first, which hides the exchange); --temporal pipeline:\n"
      "the threads as pipeline stages, one sweep each, tiles of --tile-planes planes (cut\n"
      "into --tile-rows rows), each stage's shifted by -1 from its predecessor's, synchronised\n"
      "per tile within --looseness; --temporal off: one sweep after the\n"
      "other.  --reserved m applies to multiple-reserved.  --roofline measures a\n"
      "STREAM-style scale bandwidth (one load and\n"
      "one store stream per element, as one lattice update) with the kind of stores the sweeps\n"
      "use (--stores: cached, 24 B with write-allocate; nt, non-temporal, 16 B).  --stencil 27:\n"
      "the 27-point stencil (tensor product of [1 2 1]/4 in x, y, z), whose halo exchanges\n"
      "edges and corners too (26 neighbours instead of 6); cached stores only.",
  .opts = options,
  .nopts = (int)(sizeof options / sizeof options[0]),
};

static int parse_grid(jac_config_t *c)
{
  long long *G = c->global;
  int err = HK_SUCCESS;
  G[0] = G[1] = opt.size;
  G[2] = opt.dims == 3 ? opt.size : 1;
  if (opt.grid) {
    HK_TRY(err, hk_app_parse_extents("grid", opt.grid, opt.dims, G));
    G[2] = opt.dims == 3 ? G[2] : 1;
  }
  for (int d = 0; d < opt.dims; d++)
    if (G[d] < 1)
      return hk_error_set(HK_ERR_ARG, "grid extents must be >= 1 (got %lld in %c)", G[d], "xyz"[d]);
  if (c->verify == JAC_VERIFY_ON && (double)G[0] * (double)G[1] * (double)G[2] > 2147483647.0)
    return hk_error_set(HK_ERR_ARG, "--verify on gathers the whole grid on rank 0: at most "
                        "2147483647 cells (got %.0f)", (double)G[0] * (double)G[1] * (double)G[2]);
cleanup:
  return err;
}

/* --looseness dl:du, 0 <= dl <= du (1 <= dl unshifted), and the tiles */
static int parse_pipe(jac_config_t *c)
{
  char extra;
  jac_pipe_desc_t *d = &c->pipe;
  *d = (jac_pipe_desc_t){.planes = opt.tile_planes, .rows = opt.tile_rows, .shift = opt.tile_shift,
                         .strip = opt.tile_strip};
  if (sscanf(opt.looseness, "%d:%d%c", &d->dl, &d->du, &extra) != 2)
    return hk_error_set(HK_ERR_ARG, "--looseness %s: expected dl:du (e.g. 1:2)", opt.looseness);
  if (d->dl < !d->shift || d->du < d->dl || d->du > 1000000)
    return hk_error_set(HK_ERR_ARG, "--looseness %s: %d <= dl <= du needed (%s; with du < dl "
                        "no distance satisfies both)", opt.looseness, !d->shift,
                        d->shift ? "shifted tiles: dl = 0 is the tightest"
                                 : "dl >= 1 unshifted: the stencil reads the tile after");
  if (d->planes < 1)
    return hk_error_set(HK_ERR_ARG, "--tile-planes %d must be >= 1", d->planes);
  if (d->rows < -1)
    return hk_error_set(HK_ERR_ARG, "--tile-rows %d must be >= 0", d->rows);
  if (d->rows < 0 && (d->strip || !d->shift)) /* strips given, or unshifted: whole planes */
    d->rows = 0;
  if (d->shift != 0 && d->shift != 1)
    return hk_error_set(HK_ERR_ARG, "--tile-shift %d: 0 or 1", d->shift);
  if (d->rows > 0 && !d->shift)
    return hk_error_set(HK_ERR_ARG, "--tile-rows %d needs --tile-shift 1 (unshifted, a stage "
                        "would have to wait for a whole row of tiles more)", d->rows);
  if (d->strip < 0 || (d->strip > 0 && (d->rows < 1 || d->strip % d->rows)))
    return hk_error_set(HK_ERR_ARG, "--tile-strip %d: 0 (one strip) or a multiple of --tile-rows "
                        "(%d; strips are made of whole tiles)", d->strip, d->rows);
  return HK_SUCCESS;
}

static int check_options(void)
{
  if (opt.dims != 2 && opt.dims != 3)
    return hk_error_set(HK_ERR_ARG, "--dims %d: 2 or 3", opt.dims);
  if (opt.iters < 1 || opt.warmup < 0)
    return hk_error_set(HK_ERR_ARG, "--iters must be >= 1 and --warmup >= 0");
  if (!(opt.min_time >= 0.0) || opt.min_time > 3600.0)
    return hk_error_set(HK_ERR_ARG, "--min-time must be in 0..3600 seconds");
  if (opt.width < 1)
    return hk_error_set(HK_ERR_ARG, "--halo-width %d must be >= 1", opt.width);
  if (opt.compare < 0)
    return hk_error_set(HK_ERR_ARG, "--compare-sendrecv %d must be >= 0", opt.compare);
  if (opt.check_every < -1)
    return hk_error_set(HK_ERR_ARG, "--check-every %d must be >= 0", opt.check_every);
  if (opt.wave_rows < 0)
    return hk_error_set(HK_ERR_ARG, "--wave-rows %d must be >= 0", opt.wave_rows);
  if (opt.width > HK_WAVE_MAX && opt.temporal != JAC_TEMPORAL_OFF)
    return hk_error_set(HK_ERR_ARG, "--halo-width %d: the %s does at most %d sweeps per pass "
                        "(or --temporal off)", opt.width,
                        opt.temporal == JAC_TEMPORAL_PIPELINE ? "pipeline" : "wavefront", HK_WAVE_MAX);
  if (opt.reserved < 0)
    return hk_error_set(HK_ERR_ARG, "--reserved %d must be >= 0", opt.reserved);
  if (opt.stencil != 7 && opt.stencil != 27)
    return hk_error_set(HK_ERR_ARG, "--stencil %d: 7 or 27", opt.stencil);
  if (opt.stencil == 27 && opt.dims != 3)
    return hk_error_set(HK_ERR_ARG, "--stencil 27 is 3D only (--dims 2 runs the 5-point stencil)");
  if (opt.stencil == 27 && opt.stores == JAC_STORES_NT)
    return hk_error_set(HK_ERR_ARG, "--stores nt: the 27-point sweep writes with cached stores only");
  return HK_SUCCESS;
}

int jac_config_parse(int argc, char **argv, jac_config_t *c, int *done)
{
  int err = hk_app_parse(&jac_app, argc, argv, done);
  memset(c, 0, sizeof *c);
  c->mode = HK_MODE_PURE;
  if (err != HK_SUCCESS || *done)
    return err;
  *c = (jac_config_t){.dims = opt.dims, .stencil = opt.stencil, .boundary = (jac_boundary_t)opt.boundary,
                      .temporal = (jac_temporal_t)opt.temporal, .xwrap = opt.xwrap == ON,
                      .stores = (jac_stores_t)opt.stores, .verify = (jac_verify_t)opt.verify,
                      .iters = opt.iters, .warmup = opt.warmup, .reserved = opt.reserved,
                      .width = opt.width, .roofline = opt.roofline, .compare = opt.compare,
                      .wave_rows = opt.wave_rows, .check_every = opt.check_every,
                      .min_time = opt.min_time, .output = opt.output, .layout = opt.layout};
  HK_TRY(err, hk_mode_parse(opt.mode, &c->mode));
  HK_TRY(err, check_options());
  HK_TRY(err, parse_pipe(c));
  HK_TRY(err, parse_grid(c));
  HK_TRY(err, hk_cart_map_parse(opt.map, &c->map));
  return HK_SUCCESS;
cleanup:
  c->mode = HK_MODE_PURE; /* MPI starts with the least thread level, to report the error */
  return err;
}
