/* src/coll/config.c: the configuration of the hybrid collectives, read once per
 * process from the environment and the tuning table, per kind of collective
 * (allreduce, reduce, reduce_scatter, bcast, allgather, alltoall, scan, exscan,
 * alltoallv).
 *
 * Tuning table (HK_COLL_TUNING).  Version 2 (written by `hybridkit tune`), one
 * table per collective, any subset present:
 *
 *   {"format": "hybridkit-coll-tuning", "version": 2,
 *    "collectives": {"allreduce": {"min_bytes": 16384,
 *                                  "rows": [{"max_bytes": 8192, "algorithm": "mpi"},
 *                                           {"max_bytes": null, "algorithm": "chunked",
 *                                            "threads": 2}]},
 *                    "reduce": {...}, "bcast": {...}}}
 *
 * Version 1 (written by `hybridkit tune allreduce`) is the allreduce's table:
 *
 *   {"format": "hybridkit-allreduce-tuning", "version": 1, "min_bytes": 16384,
 *    "rows": [{"max_bytes": 16384,   "algorithm": "mpi",     "threads": 1},
 *             {"max_bytes": 1048576, "algorithm": "chunked", "threads": 2},
 *             {"max_bytes": null,    "algorithm": "chunked-shifted", "threads": 2}]}
 *
 * A message of b bytes uses the first row with b <= max_bytes (null: no limit;
 * beyond the last row the last row).  Other keys are ignored (not inside
 * "collectives": an unknown collective name is refused).  Anything else (missing
 * file, unreadable, not JSON, rows not increasing, unknown algorithm) is one
 * warning line and no table is used, for any collective.  Read with jansson.
 *
 * Environment per kind K (ALLREDUCE, REDUCE, REDUCE_SCATTER, BCAST, ALLGATHER,
 * ALLTOALL, SCAN, EXSCAN, ALLTOALLV): HK_K_ALGORITHM, HK_K_THREADS, HK_K_MIN_BYTES; HK_COLL_ALGORITHM,
 * HK_COLL_THREADS, HK_COLL_MIN_BYTES for every kind without its own.  Threshold:
 * HK_K_MIN_BYTES > HK_COLL_MIN_BYTES > the kind's table > default_min_bytes[K].
 */
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "coll/coll_internal.h"

static hk__coll_config_t config;              /* the allreduce's knobs, source, hash */
static hk__coll_config_t kinds[HK__COLL_KINDS]; /* every kind's (kinds[0] == config's) */
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* the built-in tiny-message threshold per kind (bytes; the message size of each kind
 * as docs/coll.md defines it): below it a collective goes to MPI */
static const long long default_min_bytes[HK__COLL_KINDS] = {
  [HK__COLL_ALLREDUCE] = HK_COLL_DEFAULT_MIN_BYTES,
  [HK__COLL_REDUCE] = 16384,
  [HK__COLL_REDUCE_SCATTER] = 16384,
  [HK__COLL_BCAST] = LLONG_MAX, /* auto picks mpi at every size (bcast.c model()) */
  [HK__COLL_ALLGATHER] = 16384,
  [HK__COLL_ALLTOALL] = 16384,
  [HK__COLL_SCAN] = 16384,
  [HK__COLL_EXSCAN] = 16384,
  /* never: a rank knows only its own counts, a threshold costs an agreement (alltoallv.c) */
  [HK__COLL_ALLTOALLV] = LLONG_MAX,
};
/* names in the table ("collectives") and in the environment (HK_<NAME>_...) */
static const char *const kind_name[HK__COLL_KINDS] = {"allreduce", "reduce", "reduce_scatter",
                                                      "bcast", "allgather", "alltoall", "scan",
                                                      "exscan", "alltoallv"};
static const char *const kind_env[HK__COLL_KINDS] = {"ALLREDUCE", "REDUCE", "REDUCE_SCATTER",
                                                     "BCAST", "ALLGATHER", "ALLTOALL", "SCAN",
                                                     "EXSCAN", "ALLTOALLV"};

/* for tests (tests/unit/test_coll_table_kinds.c): every kind's table from one text
 * (out[k].nrows, rows, table_min_bytes; version 1: out[HK__COLL_ALLREDUCE] only) */
int hk__coll_parse_tables(const char *text, hk__coll_config_t out[HK__COLL_KINDS], char *why,
                          size_t nwhy);

void hk__coll_warn(const char *fmt, ...)
{
  int init = 0, fin = 0, rank = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  if (init && !fin)
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  config.nwarnings++;
  if (rank != 0)
    return;
  char text[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  fprintf(stderr, "hybridkit: warning: %s\n", text);
  fflush(stderr);
}

/* ---- the table, read with jansson ---- */
static int fail(char *why, size_t nwhy, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t nwhy, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, nwhy, fmt, ap);
  va_end(ap);
  return HK_ERR_ARG;
}

/* an integer >= 0, or null (-> -1); anything else fails */
static int int_or_null(const json_t *v, long long *out)
{
  if (json_is_null(v)) {
    *out = -1;
    return HK_SUCCESS;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0)
    return HK_ERR_ARG;
  *out = json_integer_value(v);
  return HK_SUCCESS;
}

static int read_row(const json_t *o, const char *where, size_t i, hk__tune_row_t *row, char *why,
                    size_t nwhy)
{
  const json_t *max = json_object_get(o, "max_bytes"), *alg = json_object_get(o, "algorithm");
  const json_t *thr = json_object_get(o, "threads");
  if (!json_is_object(o) || !max || !alg)
    return fail(why, nwhy, "%srows[%zu]: a row needs max_bytes and algorithm", where, i);
  if (int_or_null(max, &row->max_bytes))
    return fail(why, nwhy, "%srows[%zu]: max_bytes must be an integer >= 0 or null", where, i);
  hk_allreduce_alg_t a;
  if (!json_is_string(alg) || hk_allreduce_alg_parse(json_string_value(alg), &a) != HK_SUCCESS ||
      a == HK_ALLREDUCE_AUTO)
    return fail(why, nwhy, "%srows[%zu]: unknown algorithm '%.32s'", where, i,
                json_is_string(alg) ? json_string_value(alg) : "(not a string)");
  row->alg = a;
  row->threads = 1;
  if (thr && (!json_is_integer(thr) || json_integer_value(thr) < 1 ||
              json_integer_value(thr) > HK_COLL_MAX_THREADS))
    return fail(why, nwhy, "%srows[%zu]: threads must be 1..%d", where, i, HK_COLL_MAX_THREADS);
  if (thr)
    row->threads = (int)json_integer_value(thr);
  return HK_SUCCESS;
}

/* one collective's table: {"min_bytes": ..., "rows": [...]} (version 1: the whole file);
 * where: "" or "collectives.reduce: " for the reasons */
static int read_rows(const json_t *obj, const char *where, hk__coll_config_t *cfg, char *why,
                     size_t nwhy)
{
  const json_t *rows = json_object_get(obj, "rows"), *min = json_object_get(obj, "min_bytes");
  if (min && !json_is_null(min) && !json_is_integer(min))
    return fail(why, nwhy, "%smin_bytes must be an integer or null", where);
  cfg->table_min_bytes = json_is_integer(min) && json_integer_value(min) >= 0
                             ? json_integer_value(min) : -1; /* null, < 0, absent: none */
  if (!json_is_array(rows) || json_array_size(rows) == 0)
    return fail(why, nwhy, "%srows must be a non-empty array", where);
  if (json_array_size(rows) > HK_COLL_MAX_ROWS)
    return fail(why, nwhy, "%smore than %d rows", where, HK_COLL_MAX_ROWS);
  for (size_t i = 0; i < json_array_size(rows); i++) {
    hk__tune_row_t *row = &cfg->rows[i];
    if (read_row(json_array_get(rows, i), where, i, row, why, nwhy))
      return HK_ERR_ARG;
    long long prev = i ? cfg->rows[i - 1].max_bytes : 0;
    if (i && (prev < 0 || (row->max_bytes >= 0 && row->max_bytes <= prev)))
      return fail(why, nwhy, "%srows[%zu]: max_bytes must increase from row to row (null only "
                  "last)", where, i);
    cfg->nrows = (int)i + 1;
  }
  return HK_SUCCESS;
}

static int read_v2(const json_t *root, hk__coll_config_t *out, char *why, size_t nwhy)
{
  const json_t *version = json_object_get(root, "version");
  const json_t *colls = json_object_get(root, "collectives");
  if (!json_is_integer(version) || json_integer_value(version) != 2)
    return fail(why, nwhy, "hybridkit-coll-tuning needs \"version\": 2");
  if (!json_is_object(colls))
    return fail(why, nwhy, "hybridkit-coll-tuning needs \"collectives\": {...}");
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)colls, key, v) {
    int k = 0;
    while (k < HK__COLL_KINDS && strcmp(key, kind_name[k]))
      k++;
    if (k == HK__COLL_KINDS)
      return fail(why, nwhy, "collectives: unknown collective '%.32s' (allreduce, reduce, "
                  "reduce_scatter, bcast, allgather, alltoall, scan, exscan, alltoallv)", key);
    char where[64];
    snprintf(where, sizeof where, "collectives.%s: ", kind_name[k]);
    if (!json_is_object(v))
      return fail(why, nwhy, "%sneeds {\"rows\": [...]}", where);
    if (read_rows(v, where, &out[k], why, nwhy) != HK_SUCCESS)
      return HK_ERR_ARG;
  }
  return HK_SUCCESS;
}

static int read_table(const json_t *root, hk__coll_config_t *out, char *why, size_t nwhy)
{
  const json_t *format = json_object_get(root, "format");
  if (json_is_object(root) && json_is_string(format) &&
      !strcmp(json_string_value(format), "hybridkit-coll-tuning"))
    return read_v2(root, out, why, nwhy);
  if (!json_is_object(root) || !format || !json_object_get(root, "rows"))
    return fail(why, nwhy, "needs \"format\": \"hybridkit-coll-tuning\" and \"collectives\", "
                "or \"format\": \"hybridkit-allreduce-tuning\" and \"rows\"");
  if (!json_is_string(format) || strcmp(json_string_value(format), "hybridkit-allreduce-tuning"))
    return fail(why, nwhy, "format is not hybridkit-allreduce-tuning");
  return read_rows(root, "", &out[HK__COLL_ALLREDUCE], why, nwhy);
}

int hk__coll_parse_tables(const char *text, hk__coll_config_t out[HK__COLL_KINDS], char *why,
                          size_t nwhy)
{
  for (int k = 0; k < HK__COLL_KINDS; k++) {
    out[k].nrows = 0;
    out[k].table_min_bytes = -1;
  }
  json_error_t e;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &e);
  if (!root)
    return fail(why, nwhy, "%s at byte %d", e.text, e.position);
  int err = read_table(root, out, why, nwhy);
  if (err != HK_SUCCESS) /* a refused table is not used, not even in part */
    for (int k = 0; k < HK__COLL_KINDS; k++) {
      out[k].nrows = 0;
      out[k].table_min_bytes = -1;
    }
  json_decref(root);
  return err;
}

/* the allreduce's table (version 1, or version 2's "allreduce") */
int hk__coll_parse_table(const char *text, hk__coll_config_t *cfg, char *why, size_t nwhy)
{
  static hk__coll_config_t all[HK__COLL_KINDS]; /* large: not on the stack */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  int err = hk__coll_parse_tables(text, all, why, nwhy);
  cfg->nrows = all[HK__COLL_ALLREDUCE].nrows;
  cfg->table_min_bytes = all[HK__COLL_ALLREDUCE].table_min_bytes;
  memcpy(cfg->rows, all[HK__COLL_ALLREDUCE].rows, sizeof cfg->rows);
  pthread_mutex_unlock(&lock);
  return err;
}

/* ---- loading ---- */
/* a regular file only: opened without blocking (a FIFO would wait for a writer
 * forever) and checked with fstat before anything is read */
static char *slurp(const char *path, char *why, size_t nwhy)
{
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, nwhy, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    snprintf(why, nwhy, "not a regular file (%s)",
             S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO"
             : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : "not a plain file");
    close(fd);
    return NULL;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) {
    snprintf(why, nwhy, "cannot open: %s", strerror(errno));
    close(fd);
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (ferror(f)) {
      snprintf(why, nwhy, "cannot read: %s", strerror(errno));
      free(buf);
      buf = NULL;
      break;
    }
    if (feof(f))
      break;
    if (cap >= (1u << 20)) {
      snprintf(why, nwhy, "larger than 1 MiB");
      free(buf);
      buf = NULL;
      break;
    }
    char *grown = realloc(buf, cap *= 2);
    if (!grown)
      free(buf);
    buf = grown;
  }
  fclose(f);
  if (buf)
    buf[n] = '\0';
  else if (!why[0])
    snprintf(why, nwhy, "out of memory");
  return buf;
}

static void load_table(void)
{
  const char *path = getenv("HK_COLL_TUNING");
  if (!path || !*path)
    return;
  char why[256] = "";
  char *text = slurp(path, why, sizeof why);
  static hk__coll_config_t parsed[HK__COLL_KINDS];
  if (text && hk__coll_parse_tables(text, parsed, why, sizeof why) == HK_SUCCESS) {
    for (int k = 0; k < HK__COLL_KINDS; k++) {
      kinds[k].nrows = parsed[k].nrows;
      kinds[k].table_min_bytes = parsed[k].table_min_bytes;
      memcpy(kinds[k].rows, parsed[k].rows, sizeof kinds[k].rows);
    }
    snprintf(config.source, sizeof config.source, "%s", path);
  } else {
    hk__coll_warn("HK_COLL_TUNING=%s: %s; using the defaults", path, why);
  }
  free(text);
}

static unsigned fnv(unsigned h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

/* HK_<K>_<what>, else HK_COLL_<what>: the value and the variable it came from */
static const char *env_of(hk__coll_kind_t k, const char *what, char *name, size_t nname)
{
  snprintf(name, nname, "HK_%s_%s", kind_env[k], what);
  const char *v = getenv(name);
  if (v && *v)
    return v;
  snprintf(name, nname, "HK_COLL_%s", what);
  return getenv(name);
}

/* a bad variable warns once, however many kinds read it (HK_COLL_*) */
static int first_warning(const char *name)
{
  static char warned[24][64];
  static int nwarned;
  for (int i = 0; i < nwarned; i++)
    if (!strcmp(warned[i], name))
      return 0;
  if (nwarned < 24)
    snprintf(warned[nwarned++], sizeof warned[0], "%s", name);
  return 1;
}

static long long env_ll_once(const char *name, long long lo, long long hi, const char *what)
{
  const char *v = getenv(name);
  if (!v || !*v)
    return -1;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || *end || x < lo || x > hi) {
    if (first_warning(name))
      hk__coll_warn("%s=%s is not %s; ignored", name, v, what);
    return -1;
  }
  return x;
}

/* one kind's environment */
static void load_kind(hk__coll_kind_t k)
{
  hk__coll_config_t *cfg = &kinds[k];
  char name[64];
  const char *a = env_of(k, "ALGORITHM", name, sizeof name);
  cfg->env_alg = HK_ALLREDUCE_AUTO;
  if (a && *a && hk_allreduce_alg_parse(a, &cfg->env_alg) != HK_SUCCESS) {
    cfg->env_alg = HK_ALLREDUCE_AUTO;
    if (first_warning(name))
      hk__coll_warn("%s=%s is unknown (auto, mpi, chunked, chunked-shifted, hierarchical); "
                    "using auto", name, a);
  }
  env_of(k, "THREADS", name, sizeof name);
  long long t = env_ll_once(name, 1, 1 << 20, "a positive integer");
  cfg->env_threads = t > 0 ? (int)t : 0;
  env_of(k, "MIN_BYTES", name, sizeof name);
  long long mb = env_ll_once(name, 0, 1LL << 40, "a byte count >= 0");
  cfg->min_bytes = mb >= 0 ? mb : cfg->table_min_bytes >= 0 ? cfg->table_min_bytes
                                                              : default_min_bytes[k];
}

static void load(void)
{
  snprintf(config.source, sizeof config.source, "defaults");
  for (int k = 0; k < HK__COLL_KINDS; k++)
    kinds[k].table_min_bytes = -1;
  load_table();
  unsigned h = 2166136261u;
  for (int k = 0; k < HK__COLL_KINDS; k++) {
    load_kind((hk__coll_kind_t)k);
    hk__coll_config_t *cfg = &kinds[k];
    h = fnv(h, &cfg->nrows, sizeof cfg->nrows);
    for (int i = 0; i < cfg->nrows; i++) {
      h = fnv(h, &cfg->rows[i].max_bytes, sizeof(long long));
      h = fnv(h, &cfg->rows[i].alg, sizeof(int));
      h = fnv(h, &cfg->rows[i].threads, sizeof(int));
    }
    h = fnv(h, &cfg->env_alg, sizeof(int));
    h = fnv(h, &cfg->env_threads, sizeof(int));
    h = fnv(h, &cfg->min_bytes, sizeof(long long));
  }
  /* config: the allreduce's knobs (what hk_allreduce and hk_coll_config read) */
  const hk__coll_config_t *ar = &kinds[HK__COLL_ALLREDUCE];
  config.nrows = ar->nrows;
  memcpy(config.rows, ar->rows, sizeof config.rows);
  config.table_min_bytes = ar->table_min_bytes;
  config.env_alg = ar->env_alg;
  config.env_threads = ar->env_threads;
  config.min_bytes = ar->min_bytes;
  config.hash = h & 0x3fffffffu;
}

const hk__coll_config_t *hk__coll_config(void)
{
  pthread_once(&config_once, load);
  return &config;
}

const hk__tune_row_t *hk__coll_row(const hk__coll_config_t *cfg, long long bytes)
{
  if (cfg->nrows == 0)
    return NULL;
  for (int i = 0; i < cfg->nrows; i++)
    if (cfg->rows[i].max_bytes < 0 || bytes <= cfg->rows[i].max_bytes)
      return &cfg->rows[i];
  return &cfg->rows[cfg->nrows - 1];
}

/* Per collective: the process's configuration has every kind's knobs; a configuration
 * parsed elsewhere (tests) has the allreduce's only */
static const hk__coll_config_t *knobs(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  if ((int)kind < 0 || kind >= HK__COLL_KINDS)
    return NULL;
  if (cfg == &config)
    return &kinds[kind];
  return kind == HK__COLL_ALLREDUCE ? cfg : NULL;
}

const hk__tune_row_t *hk__coll_row_of(const hk__coll_config_t *cfg, hk__coll_kind_t kind,
                                      long long bytes)
{
  const hk__coll_config_t *k = knobs(cfg, kind);
  return k ? hk__coll_row(k, bytes) : NULL;
}

hk_allreduce_alg_t hk__coll_env_alg(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  const hk__coll_config_t *k = knobs(cfg, kind);
  return k ? k->env_alg : HK_ALLREDUCE_AUTO;
}

int hk__coll_env_threads(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  const hk__coll_config_t *k = knobs(cfg, kind);
  return k ? k->env_threads : 0;
}

long long hk__coll_min_bytes(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  const hk__coll_config_t *k = knobs(cfg, kind);
  return k ? k->min_bytes : (int)kind >= 0 && kind < HK__COLL_KINDS ? default_min_bytes[kind]
                                                                   : HK_COLL_DEFAULT_MIN_BYTES;
}

int hk_coll_config(hk_coll_config_t *out)
{
  if (!out)
    return HK_ERROR(HK_ERR_ARG, "config is NULL");
  const hk__coll_config_t *c = hk__coll_config();
  out->source = c->source;
  out->table_rows = c->nrows;
  out->algorithm = c->env_alg;
  out->threads = c->env_threads;
  out->min_bytes = c->min_bytes;
  out->nwarnings = c->nwarnings;
  out->reduce_min_bytes = kinds[HK__COLL_REDUCE].min_bytes;
  out->reduce_scatter_min_bytes = kinds[HK__COLL_REDUCE_SCATTER].min_bytes;
  out->bcast_min_bytes = kinds[HK__COLL_BCAST].min_bytes;
  out->allgather_min_bytes = kinds[HK__COLL_ALLGATHER].min_bytes;
  out->alltoall_min_bytes = kinds[HK__COLL_ALLTOALL].min_bytes;
  out->scan_min_bytes = kinds[HK__COLL_SCAN].min_bytes;
  out->exscan_min_bytes = kinds[HK__COLL_EXSCAN].min_bytes;
  out->alltoallv_min_bytes = kinds[HK__COLL_ALLTOALLV].min_bytes;
  return HK_SUCCESS;
}
