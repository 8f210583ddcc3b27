/* src/coll/config.c: the configuration of the hybrid collectives, read once per
 * process from the environment and the tuning table.
 *
 * Tuning table (written by `hybridkit tune allreduce`, read via HK_COLL_TUNING):
 *
 *   {"format": "hybridkit-allreduce-tuning", "version": 1, "min_bytes": 16384,
 *    "rows": [{"max_bytes": 16384,   "algorithm": "mpi",     "threads": 1},
 *             {"max_bytes": 1048576, "algorithm": "chunked", "threads": 2},
 *             {"max_bytes": null,    "algorithm": "chunked-shifted", "threads": 2}]}
 *
 * A message of b bytes uses the first row with b <= max_bytes (null: no limit;
 * beyond the last row the last row).  Other keys are ignored.  Anything else
 * (missing file, unreadable, not JSON, rows not increasing, unknown algorithm)
 * is one warning line and the table is not used.  Read with jansson.
 */
#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>
#include "coll/coll_internal.h"

static hk__coll_config_t config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

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

static int read_row(const json_t *o, size_t i, hk__tune_row_t *row, char *why, size_t nwhy)
{
  const json_t *max = json_object_get(o, "max_bytes"), *alg = json_object_get(o, "algorithm");
  const json_t *thr = json_object_get(o, "threads");
  if (!json_is_object(o) || !max || !alg)
    return fail(why, nwhy, "rows[%zu]: a row needs max_bytes and algorithm", i);
  if (int_or_null(max, &row->max_bytes))
    return fail(why, nwhy, "rows[%zu]: max_bytes must be an integer >= 0 or null", i);
  hk_allreduce_alg_t a;
  if (!json_is_string(alg) || hk_allreduce_alg_parse(json_string_value(alg), &a) != HK_SUCCESS ||
      a == HK_ALLREDUCE_AUTO)
    return fail(why, nwhy, "rows[%zu]: unknown algorithm '%.32s'", i,
                json_is_string(alg) ? json_string_value(alg) : "(not a string)");
  row->alg = a;
  row->threads = 1;
  if (thr && (!json_is_integer(thr) || json_integer_value(thr) < 1 ||
              json_integer_value(thr) > HK_COLL_MAX_THREADS))
    return fail(why, nwhy, "rows[%zu]: threads must be 1..%d", i, HK_COLL_MAX_THREADS);
  if (thr)
    row->threads = (int)json_integer_value(thr);
  return HK_SUCCESS;
}

static int read_table(const json_t *root, hk__coll_config_t *cfg, char *why, size_t nwhy)
{
  const json_t *format = json_object_get(root, "format"), *rows = json_object_get(root, "rows");
  const json_t *min = json_object_get(root, "min_bytes");
  if (!json_is_object(root) || !format || !rows)
    return fail(why, nwhy, "needs \"format\": \"hybridkit-allreduce-tuning\" and \"rows\"");
  if (!json_is_string(format) || strcmp(json_string_value(format), "hybridkit-allreduce-tuning"))
    return fail(why, nwhy, "format is not hybridkit-allreduce-tuning");
  if (min && !json_is_null(min) && !json_is_integer(min))
    return fail(why, nwhy, "min_bytes must be an integer or null");
  cfg->table_min_bytes = json_is_integer(min) && json_integer_value(min) >= 0
                             ? json_integer_value(min) : -1; /* null, < 0, absent: none */
  if (!json_is_array(rows) || json_array_size(rows) == 0)
    return fail(why, nwhy, "rows must be a non-empty array");
  if (json_array_size(rows) > HK_COLL_MAX_ROWS)
    return fail(why, nwhy, "more than %d rows", HK_COLL_MAX_ROWS);
  for (size_t i = 0; i < json_array_size(rows); i++) {
    hk__tune_row_t *row = &cfg->rows[i];
    if (read_row(json_array_get(rows, i), i, row, why, nwhy))
      return HK_ERR_ARG;
    long long prev = i ? cfg->rows[i - 1].max_bytes : 0;
    if (i && (prev < 0 || (row->max_bytes >= 0 && row->max_bytes <= prev)))
      return fail(why, nwhy, "rows[%zu]: max_bytes must increase from row to row (null only last)",
                  i);
    cfg->nrows = (int)i + 1;
  }
  return HK_SUCCESS;
}

int hk__coll_parse_table(const char *text, hk__coll_config_t *cfg, char *why, size_t nwhy)
{
  cfg->nrows = 0;
  cfg->table_min_bytes = -1;
  json_error_t e;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &e);
  if (!root)
    return fail(why, nwhy, "%s at byte %d", e.text, e.position);
  int err = read_table(root, cfg, why, nwhy);
  if (err != HK_SUCCESS)
    cfg->nrows = 0;
  json_decref(root);
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

static void load_table(hk__coll_config_t *cfg)
{
  const char *path = getenv("HK_COLL_TUNING");
  if (!path || !*path)
    return;
  char why[256] = "";
  char *text = slurp(path, why, sizeof why);
  hk__coll_config_t parsed = *cfg;
  if (text && hk__coll_parse_table(text, &parsed, why, sizeof why) == HK_SUCCESS) {
    *cfg = parsed;
    snprintf(cfg->source, sizeof cfg->source, "%s", path);
  } else {
    cfg->nrows = 0;
    hk__coll_warn("HK_COLL_TUNING=%s: %s; using the defaults", path, why);
  }
  free(text);
}

static long long env_ll(const char *name, long long lo, long long hi, const char *what)
{
  const char *v = getenv(name);
  if (!v || !*v)
    return -1;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || *end || x < lo || x > hi) {
    hk__coll_warn("%s=%s is not %s; ignored", name, v, what);
    return -1;
  }
  return x;
}

static unsigned fnv(unsigned h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

static void load(void)
{
  hk__coll_config_t *cfg = &config;
  snprintf(cfg->source, sizeof cfg->source, "defaults");
  cfg->table_min_bytes = -1;
  load_table(cfg);
  const char *a = getenv("HK_ALLREDUCE_ALGORITHM");
  cfg->env_alg = HK_ALLREDUCE_AUTO;
  if (a && *a && hk_allreduce_alg_parse(a, &cfg->env_alg) != HK_SUCCESS) {
    cfg->env_alg = HK_ALLREDUCE_AUTO;
    hk__coll_warn("HK_ALLREDUCE_ALGORITHM=%s is unknown (auto, mpi, chunked, chunked-shifted, "
                  "hierarchical); using auto", a);
  }
  long long t = env_ll("HK_ALLREDUCE_THREADS", 1, 1 << 20, "a positive integer");
  cfg->env_threads = t > 0 ? (int)t : 0;
  long long mb = env_ll("HK_ALLREDUCE_MIN_BYTES", 0, 1LL << 40, "a byte count >= 0");
  cfg->min_bytes = mb >= 0 ? mb
                   : cfg->table_min_bytes >= 0 ? cfg->table_min_bytes : HK_COLL_DEFAULT_MIN_BYTES;
  unsigned h = 2166136261u;
  h = fnv(h, &cfg->nrows, sizeof cfg->nrows);
  for (int i = 0; i < cfg->nrows; i++) {
    h = fnv(h, &cfg->rows[i].max_bytes, sizeof(long long));
    h = fnv(h, &cfg->rows[i].alg, sizeof(int));
    h = fnv(h, &cfg->rows[i].threads, sizeof(int));
  }
  h = fnv(h, &cfg->env_alg, sizeof(int));
  h = fnv(h, &cfg->env_threads, sizeof(int));
  h = fnv(h, &cfg->min_bytes, sizeof(long long));
  cfg->hash = h & 0x3fffffffu;
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

/* Per collective.  So far one set of knobs: the allreduce's table and algorithm,
 * the threshold and threads for all (the per-collective knobs follow). */
const hk__tune_row_t *hk__coll_row_of(const hk__coll_config_t *cfg, hk__coll_kind_t kind,
                                      long long bytes)
{
  return kind == HK__COLL_ALLREDUCE ? hk__coll_row(cfg, bytes) : NULL;
}

hk_allreduce_alg_t hk__coll_env_alg(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  return kind == HK__COLL_ALLREDUCE ? cfg->env_alg : HK_ALLREDUCE_AUTO;
}

int hk__coll_env_threads(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  (void)kind;
  return cfg->env_threads;
}

long long hk__coll_min_bytes(const hk__coll_config_t *cfg, hk__coll_kind_t kind)
{
  (void)kind;
  return cfg->min_bytes;
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
  return HK_SUCCESS;
}
