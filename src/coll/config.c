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
 * is one warning line and the table is not used.  Only the reading of this one
 * small format is needed, so the parser below is minimal (no library).
 */
#include <ctype.h>
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

/* ---- a minimal JSON reader: just enough to walk the table ---- */
typedef struct reader {
  const char *p, *start;
  char *why;
  size_t nwhy;
} reader_t;

static int fail(reader_t *r, const char *what)
{
  snprintf(r->why, r->nwhy, "%s at byte %ld", what, (long)(r->p - r->start));
  return HK_ERR_ARG;
}

static void ws(reader_t *r)
{
  while (*r->p && isspace((unsigned char)*r->p))
    r->p++;
}

static int expect(reader_t *r, char c)
{
  ws(r);
  if (*r->p != c) {
    char what[32];
    snprintf(what, sizeof what, "expected '%c'", c);
    return fail(r, what);
  }
  r->p++;
  return HK_SUCCESS;
}

/* a string into out (escapes kept only as the escaped character) */
static int read_string(reader_t *r, char *out, size_t nout)
{
  size_t n = 0;
  if (expect(r, '"'))
    return HK_ERR_ARG;
  while (*r->p && *r->p != '"') {
    char c = *r->p++;
    if (c == '\\') {
      if (!*r->p)
        break;
      c = *r->p++;
      if (c == 'u') { /* skip the four hex digits: names here are ASCII */
        for (int i = 0; i < 4 && isxdigit((unsigned char)*r->p); i++)
          r->p++;
        c = '?';
      }
    }
    if (n + 1 < nout)
      out[n++] = c;
  }
  if (*r->p != '"')
    return fail(r, "unterminated string");
  r->p++;
  if (nout)
    out[n] = '\0';
  return HK_SUCCESS;
}

static int skip_value(reader_t *r, int depth);

static int skip_container(reader_t *r, char open, char close, int depth)
{
  r->p++;
  ws(r);
  if (*r->p == close) {
    r->p++;
    return HK_SUCCESS;
  }
  for (;;) {
    if (open == '{') {
      char key[8];
      if (read_string(r, key, sizeof key) || expect(r, ':'))
        return HK_ERR_ARG;
    }
    if (skip_value(r, depth + 1))
      return HK_ERR_ARG;
    ws(r);
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    return expect(r, close);
  }
}

static int skip_value(reader_t *r, int depth)
{
  ws(r);
  if (depth > 32)
    return fail(r, "nested too deeply");
  char c = *r->p;
  if (c == '{' || c == '[')
    return skip_container(r, c, c == '{' ? '}' : ']', depth);
  if (c == '"')
    return read_string(r, NULL, 0);
  if (!strncmp(r->p, "true", 4) || !strncmp(r->p, "null", 4)) {
    r->p += 4;
    return HK_SUCCESS;
  }
  if (!strncmp(r->p, "false", 5)) {
    r->p += 5;
    return HK_SUCCESS;
  }
  char *end = NULL;
  strtod(r->p, &end);
  if (end == r->p)
    return fail(r, "not a JSON value");
  r->p = end;
  return HK_SUCCESS;
}

/* an integer, or null (-> *is_null) */
static int read_int(reader_t *r, long long *v, int *is_null)
{
  ws(r);
  *is_null = 0;
  if (!strncmp(r->p, "null", 4)) {
    r->p += 4;
    *is_null = 1;
    return HK_SUCCESS;
  }
  char *end = NULL;
  errno = 0;
  long long x = strtoll(r->p, &end, 10);
  if (end == r->p || errno || *end == '.' || *end == 'e' || *end == 'E')
    return fail(r, "expected an integer");
  r->p = end;
  *v = x;
  return HK_SUCCESS;
}

/* one row object */
static int read_row(reader_t *r, hk__tune_row_t *row)
{
  int have_alg = 0, have_max = 0, is_null = 0;
  row->threads = 1;
  if (expect(r, '{'))
    return HK_ERR_ARG;
  ws(r);
  if (*r->p == '}')
    return fail(r, "empty row");
  for (;;) {
    char key[32], name[32];
    long long v = 0;
    if (read_string(r, key, sizeof key) || expect(r, ':'))
      return HK_ERR_ARG;
    if (!strcmp(key, "max_bytes")) {
      if (read_int(r, &v, &is_null))
        return HK_ERR_ARG;
      row->max_bytes = is_null ? -1 : v;
      if (!is_null && v < 0)
        return fail(r, "negative max_bytes");
      have_max = 1;
    } else if (!strcmp(key, "algorithm")) {
      ws(r);
      if (read_string(r, name, sizeof name))
        return HK_ERR_ARG;
      hk_allreduce_alg_t a;
      if (hk_allreduce_alg_parse(name, &a) != HK_SUCCESS || a == HK_ALLREDUCE_AUTO) {
        char what[80];
        snprintf(what, sizeof what, "unknown algorithm '%.32s'", name);
        return fail(r, what);
      }
      row->alg = a;
      have_alg = 1;
    } else if (!strcmp(key, "threads")) {
      if (read_int(r, &v, &is_null))
        return HK_ERR_ARG;
      if (is_null || v < 1 || v > HK_COLL_MAX_THREADS)
        return fail(r, "threads must be 1..64");
      row->threads = (int)v;
    } else if (skip_value(r, 1)) {
      return HK_ERR_ARG;
    }
    ws(r);
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    if (expect(r, '}'))
      return HK_ERR_ARG;
    break;
  }
  if (!have_alg || !have_max)
    return fail(r, "a row needs max_bytes and algorithm");
  return HK_SUCCESS;
}

static int read_rows(reader_t *r, hk__coll_config_t *cfg)
{
  if (expect(r, '['))
    return HK_ERR_ARG;
  ws(r);
  if (*r->p == ']')
    return fail(r, "no rows");
  for (;;) {
    if (cfg->nrows == HK_COLL_MAX_ROWS)
      return fail(r, "more than 64 rows");
    hk__tune_row_t *row = &cfg->rows[cfg->nrows];
    if (read_row(r, row))
      return HK_ERR_ARG;
    if (cfg->nrows > 0) {
      long long prev = cfg->rows[cfg->nrows - 1].max_bytes;
      if (prev < 0 || (row->max_bytes >= 0 && row->max_bytes <= prev))
        return fail(r, "max_bytes must increase from row to row (null only last)");
    }
    cfg->nrows++;
    ws(r);
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    return expect(r, ']');
  }
}

int hk__coll_parse_table(const char *text, hk__coll_config_t *cfg, char *why, size_t nwhy)
{
  reader_t r = {.p = text, .start = text, .why = why, .nwhy = nwhy};
  int have_rows = 0, have_format = 0;
  cfg->nrows = 0;
  cfg->table_min_bytes = -1;
  if (expect(&r, '{'))
    return HK_ERR_ARG;
  ws(&r);
  while (*r.p != '}') {
    char key[32];
    if (read_string(&r, key, sizeof key) || expect(&r, ':'))
      return HK_ERR_ARG;
    if (!strcmp(key, "rows")) {
      if (read_rows(&r, cfg))
        return HK_ERR_ARG;
      have_rows = 1;
    } else if (!strcmp(key, "format")) {
      char f[64];
      ws(&r);
      if (read_string(&r, f, sizeof f))
        return HK_ERR_ARG;
      if (strcmp(f, "hybridkit-allreduce-tuning"))
        return fail(&r, "format is not hybridkit-allreduce-tuning");
      have_format = 1;
    } else if (!strcmp(key, "min_bytes")) {
      long long v = 0;
      int is_null = 0;
      if (read_int(&r, &v, &is_null))
        return HK_ERR_ARG;
      cfg->table_min_bytes = is_null || v < 0 ? -1 : v;
    } else if (skip_value(&r, 1)) {
      return HK_ERR_ARG;
    }
    ws(&r);
    if (*r.p == ',') {
      r.p++;
      ws(&r);
      continue;
    }
    if (*r.p != '}')
      return fail(&r, "expected ',' or '}'");
  }
  r.p++;
  ws(&r);
  if (*r.p)
    return fail(&r, "text after the JSON object");
  if (!have_format || !have_rows)
    return fail(&r, "needs \"format\": \"hybridkit-allreduce-tuning\" and \"rows\"");
  return HK_SUCCESS;
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
