/* src/core/record.c: the one reporter: an OSU-style table on stdout and JSON
 * Lines records from the same record, with provenance gathered once.
 * Format: schema/record.schema.json. */
#include <ctype.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal/hk_internal.h"
#include "internal/json.h"

enum field_type { F_PARAM_INT, F_PARAM_DBL, F_PARAM_STR, F_VALUE_DBL, F_VALUE_INT, F_STATS };

typedef struct field {
  enum field_type type;
  char name[64];
  char unit[24];
  long long i;
  double d;
  char *s;
  hk_stats_t st;
} field_t;

struct hk_reporter {
  MPI_Comm comm;
  int rank;
  FILE *table;   /* NULL: no table */
  hk_table_style_t style;
  FILE *out;     /* JSONL on rank 0, NULL: none */
  char program[64];
  char *provenance;      /* JSON object text, rank 0 */
  hk_binding_t *binding;
  hk_nodes_t *own_nodes;
  char header[2048];     /* the last column header printed */
};

struct hk_record {
  hk_reporter_t *rep;
  char kind[64];
  field_t *f;
  int nf, cap;
  char **warn;
  int nwarn;
};

static int valid_kind(const char *k)
{
  if (!k || !islower((unsigned char)k[0]) || strlen(k) >= 64)
    return 0;
  for (const char *p = k; *p; p++)
    if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && !strchr("_.-", *p))
      return 0;
  return 1;
}

static const char *mpi_impl_of(const char *libversion)
{
  if (strstr(libversion, "Open MPI"))
    return "openmpi";
  if (strstr(libversion, "MPICH"))
    return "mpich";
  return "other";
}

/* provenance JSON, built on rank 0 from facts gathered collectively */
static int build_provenance(hk_reporter_t *rep, const hk_nodes_t *nodes, int nranks)
{
  int err = HK_SUCCESS, maxthreads = 0, threads = omp_get_max_threads(), len = 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  hk_thread_level_t req, prov;
  hk_nodes_info_t ni;
  hk_machine_t *m = NULL;
  hk_machine_info_t mi;
  hk_json_t j;
  hk_json_init(&j);
  HK_TRY(err, hk_thread_levels(&req, &prov));
  HK_TRY(err, hk_nodes_info(nodes, &ni));
  HK_MPI_TRY(err, MPI_Allreduce(&threads, &maxthreads, 1, MPI_INT, MPI_MAX, rep->comm));
  HK_MPI_TRY(err, MPI_Get_library_version(lib, &len));
  lib[strcspn(lib, "\n")] = '\0';
  HK_TRY(err, hk__real_machine(&m));
  HK_TRY(err, hk_machine_info(m, &mi));
  if (rep->rank != 0)
    goto cleanup;

  hk_build_info_t bi;
  hk_build_info(&bi);
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);

  hk_json_obj_begin(&j);
  hk_json_key(&j, "hybridkit_version"); hk_json_str(&j, bi.version);
  hk_json_key(&j, "git_sha"); hk_json_str(&j, bi.git_sha);
  hk_json_key(&j, "compiler"); hk_json_str(&j, bi.compiler);
  hk_json_key(&j, "cflags"); hk_json_str(&j, bi.cflags);
  hk_json_key(&j, "mpi_library"); hk_json_str(&j, lib);
  hk_json_key(&j, "mpi_impl"); hk_json_str(&j, mpi_impl_of(lib));
  hk_json_key(&j, "thread_level");
  hk_json_obj_begin(&j);
  hk_json_key(&j, "requested"); hk_json_str(&j, hk_thread_level_name(req));
  hk_json_key(&j, "provided"); hk_json_str(&j, hk_thread_level_name(prov));
  hk_json_obj_end(&j);
  hk_json_key(&j, "ranks"); hk_json_int(&j, nranks);
  hk_json_key(&j, "threads_per_rank"); hk_json_int(&j, maxthreads);
  hk_json_key(&j, "nodes"); hk_json_int(&j, ni.nnodes);
  hk_json_key(&j, "virtual_nodes"); hk_json_bool(&j, ni.is_virtual);
  hk_json_key(&j, "hosts");
  hk_json_arr_begin(&j);
  int *host = calloc((size_t)rep->binding->nentries + 1, sizeof *host), nhosts = 0;
  if (host && hk__binding_host_ids(rep->binding, host, &nhosts) == HK_SUCCESS)
    for (int i = 0, next = 0; i < rep->binding->nentries; i++)
      if (host[i] == next) { /* ids are numbered by first appearance */
        hk_json_str(&j, rep->binding->entries[i].host);
        next++;
      }
  free(host);
  hk_json_arr_end(&j);
  hk_json_key(&j, "omp_places"); hk_json_str(&j, getenv("OMP_PLACES"));
  hk_json_key(&j, "omp_proc_bind"); hk_json_str(&j, getenv("OMP_PROC_BIND"));
  hk_json_key(&j, "machine");
  hk_json_obj_begin(&j);
  hk_json_key(&j, "source"); hk_json_str(&j, mi.source);
  hk_json_key(&j, "packages"); hk_json_int(&j, mi.packages);
  hk_json_key(&j, "numa_nodes"); hk_json_int(&j, mi.numa_nodes);
  hk_json_key(&j, "cores"); hk_json_int(&j, mi.cores);
  hk_json_key(&j, "pus"); hk_json_int(&j, mi.pus);
  hk_json_obj_end(&j);
  hk_json_key(&j, "binding");
  hk_json_arr_begin(&j);
  for (int i = 0; i < rep->binding->nentries; i++) {
    const hk_binding_entry_t *e = &rep->binding->entries[i];
    hk_json_obj_begin(&j);
    hk_json_key(&j, "rank"); hk_json_int(&j, e->rank);
    hk_json_key(&j, "thread"); hk_json_int(&j, e->thread);
    hk_json_key(&j, "host"); hk_json_str(&j, e->host);
    hk_json_key(&j, "node"); hk_json_int(&j, e->node);
    hk_json_key(&j, "cpuset"); hk_json_str(&j, e->cpuset);
    hk_json_key(&j, "cpu"); hk_json_int(&j, e->cpu);
    hk_json_obj_end(&j);
  }
  hk_json_arr_end(&j);
  hk_json_key(&j, "timestamp"); hk_json_str(&j, stamp);
  hk_json_obj_end(&j);
  if (j.nomem) {
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory building provenance");
    goto cleanup;
  }
  rep->provenance = j.buf;
  j.buf = NULL;

  if (rep->table) {
    FILE *t = rep->table;
    fprintf(t, "# %s %s (git %s), %s, %s %s\n", rep->program, bi.version, bi.git_sha,
            bi.build_type, bi.compiler, bi.cflags);
    fprintf(t, "# MPI: %s\n", lib);
    fprintf(t, "# thread level: requested %s, provided %s\n", hk_thread_level_name(req),
            hk_thread_level_name(prov));
    fprintf(t, "# ranks: %d, threads/rank: %d, nodes: %d%s\n", nranks, maxthreads, ni.nnodes,
            ni.is_virtual ? " (virtual, HK_NODE_SIZE)" : "");
    fprintf(t, "# OMP_PLACES=%s OMP_PROC_BIND=%s\n", getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "",
            getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "");
    for (int i = 0; i < rep->binding->nwarnings; i++)
      fprintf(t, "# WARNING: %s\n", rep->binding->warnings[i]);
    fflush(t);
  }
cleanup:
  hk_json_free(&j);
  return err;
}

int hk_reporter_create(MPI_Comm comm, const hk_reporter_desc_t *desc, hk_reporter_t **reporter)
{
  int err = HK_SUCCESS, local = HK_SUCCESS, size = 1;
  hk_reporter_t *rep = NULL;
  if (!desc || !reporter || !desc->program || !*desc->program)
    return HK_ERROR(HK_ERR_ARG, "desc, desc->program and reporter must be given");
  *reporter = NULL;
  if (!hk__is_initialized())
    return HK_ERROR(HK_ERR_STATE, "hk_reporter_create needs hk_init first");
  HK_ALLOC_TRY(err, rep, 1);
  rep->comm = comm;
  HK_MPI_TRY(err, MPI_Comm_rank(comm, &rep->rank));
  HK_MPI_TRY(err, MPI_Comm_size(comm, &size));
  snprintf(rep->program, sizeof rep->program, "%s", desc->program);
  if (rep->rank == 0 && !desc->no_table)
    rep->table = desc->table ? desc->table : stdout;
  rep->style = desc->table_style;
  if (rep->rank == 0 && desc->output && *desc->output) {
    rep->out = fopen(desc->output, "a");
    if (!rep->out)
      local = HK_ERROR(HK_ERR_IO, "cannot open output '%s' for appending", desc->output);
  }
  HK_TRY(err, hk_agree(comm, local));
  const hk_nodes_t *nodes = desc->nodes;
  if (!nodes) {
    HK_TRY(err, hk_nodes_create(comm, &rep->own_nodes));
    nodes = rep->own_nodes;
  }
  HK_TRY(err, hk_binding_report(comm, nodes, &rep->binding));
  local = build_provenance(rep, nodes, size);
  HK_TRY(err, hk_agree(comm, local));
  *reporter = rep;
  return HK_SUCCESS;
cleanup:
  hk_reporter_destroy(&rep);
  return err;
}

int hk_reporter_destroy(hk_reporter_t **reporter)
{
  int err = HK_SUCCESS;
  if (!reporter || !*reporter)
    return HK_SUCCESS;
  hk_reporter_t *rep = *reporter;
  if (rep->out && fclose(rep->out) != 0)
    err = HK_ERROR(HK_ERR_IO, "closing the output failed");
  hk_nodes_destroy(&rep->own_nodes);
  hk_binding_destroy(&rep->binding);
  free(rep->provenance);
  free(rep);
  *reporter = NULL;
  return err;
}

int hk_reporter_config(hk_reporter_t *rep, const char *key, const char *fmt, ...)
{
  if (!rep || !key || !fmt)
    return HK_ERROR(HK_ERR_ARG, "reporter, key and fmt must not be NULL");
  if (!rep->table)
    return HK_SUCCESS;
  va_list ap;
  va_start(ap, fmt);
  fprintf(rep->table, "# %s: ", key);
  vfprintf(rep->table, fmt, ap);
  fprintf(rep->table, "\n");
  va_end(ap);
  return HK_SUCCESS;
}

const hk_binding_t *hk_reporter_binding(const hk_reporter_t *rep)
{
  return rep ? rep->binding : NULL;
}

int hk_record_create(hk_reporter_t *rep, const char *kind, hk_record_t **record)
{
  int err = HK_SUCCESS;
  hk_record_t *r = NULL;
  if (!rep || !record)
    return HK_ERROR(HK_ERR_ARG, "reporter and record must not be NULL");
  *record = NULL;
  if (!valid_kind(kind))
    return HK_ERROR(HK_ERR_ARG, "record kind '%s' must match [a-z][a-z0-9_.-]*",
                    kind ? kind : "(null)");
  HK_ALLOC_TRY(err, r, 1);
  r->rep = rep;
  snprintf(r->kind, sizeof r->kind, "%s", kind);
  *record = r;
cleanup:
  return err;
}

static int add_field(hk_record_t *r, enum field_type type, const char *name, const char *unit,
                     field_t **out)
{
  if (!r || !name || !*name || strlen(name) >= sizeof r->f[0].name)
    return HK_ERROR(HK_ERR_ARG, "record and a field name (1-63 chars) are required");
  for (int i = 0; i < r->nf; i++)
    if (strcmp(r->f[i].name, name) == 0 && (r->f[i].type <= F_PARAM_STR) == (type <= F_PARAM_STR))
      return HK_ERROR(HK_ERR_ARG, "field '%s' added twice to a '%s' record", name, r->kind);
  if (r->nf == r->cap) {
    int cap = r->cap ? 2 * r->cap : 8;
    field_t *f = realloc(r->f, (size_t)cap * sizeof *f);
    if (!f)
      return HK_ERROR(HK_ERR_NOMEM, "out of memory");
    r->f = f;
    r->cap = cap;
  }
  field_t *f = &r->f[r->nf++];
  memset(f, 0, sizeof *f);
  f->type = type;
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->unit, sizeof f->unit, "%s", unit ? unit : "");
  *out = f;
  return HK_SUCCESS;
}

int hk_record_param_int(hk_record_t *r, const char *name, long long v)
{
  field_t *f;
  int err = add_field(r, F_PARAM_INT, name, NULL, &f);
  if (err == HK_SUCCESS)
    f->i = v;
  return err;
}

int hk_record_param_double(hk_record_t *r, const char *name, double v)
{
  field_t *f;
  int err = add_field(r, F_PARAM_DBL, name, NULL, &f);
  if (err == HK_SUCCESS)
    f->d = v;
  return err;
}

int hk_record_param_str(hk_record_t *r, const char *name, const char *v)
{
  field_t *f;
  int err = add_field(r, F_PARAM_STR, name, NULL, &f);
  if (err == HK_SUCCESS && !(f->s = strdup(v ? v : ""))) {
    r->nf--;
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
  }
  return err;
}

int hk_record_value(hk_record_t *r, const char *name, double v, const char *unit)
{
  field_t *f;
  int err = add_field(r, F_VALUE_DBL, name, unit, &f);
  if (err == HK_SUCCESS)
    f->d = v;
  return err;
}

int hk_record_value_int(hk_record_t *r, const char *name, long long v, const char *unit)
{
  field_t *f;
  int err = add_field(r, F_VALUE_INT, name, unit, &f);
  if (err == HK_SUCCESS)
    f->i = v;
  return err;
}

int hk_record_stats(hk_record_t *r, const char *name, double local, const char *unit)
{
  hk_stats_t st;
  field_t *f;
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  int err = hk_stats_reduce(r->rep->comm, local, &st);
  if (err == HK_SUCCESS && (err = add_field(r, F_STATS, name, unit, &f)) == HK_SUCCESS)
    f->st = st;
  return err;
}

int hk_record_stats_given(hk_record_t *r, const char *name, const hk_stats_t *st, const char *unit)
{
  field_t *f;
  if (!r || !st)
    return HK_ERROR(HK_ERR_ARG, "record and stats must not be NULL");
  if (!isfinite(st->min) || !isfinite(st->avg) || !isfinite(st->max))
    return HK_ERROR(HK_ERR_ARG, "stats of '%s' are not finite", name ? name : "(null)");
  int err = add_field(r, F_STATS, name, unit, &f);
  if (err == HK_SUCCESS)
    f->st = *st;
  return err;
}

int hk_record_warning(hk_record_t *r, const char *fmt, ...)
{
  if (!r || !fmt)
    return HK_ERROR(HK_ERR_ARG, "record and fmt must not be NULL");
  va_list ap;
  va_start(ap, fmt);
  int err = hk__strlist_vadd(&r->warn, &r->nwarn, fmt, ap);
  va_end(ap);
  return err;
}

void hk_record_discard(hk_record_t **record)
{
  if (!record || !*record)
    return;
  hk_record_t *r = *record;
  for (int i = 0; i < r->nf; i++)
    free(r->f[i].s);
  for (int i = 0; i < r->nwarn; i++)
    free(r->warn[i]);
  free(r->f);
  free(r->warn);
  free(r);
  *record = NULL;
}

static void field_text(const field_t *f, char *cell, size_t size)
{
  switch (f->type) {
  case F_PARAM_INT:
  case F_VALUE_INT: snprintf(cell, size, "%lld", f->i); break;
  case F_PARAM_DBL:
  case F_VALUE_DBL: snprintf(cell, size, "%.6g", f->d); break;
  case F_PARAM_STR: snprintf(cell, size, "%s", f->s); break;
  case F_STATS:
    snprintf(cell, size, "min %-12.6g avg %-12.6g max %.6g", f->st.min, f->st.avg, f->st.max);
    break;
  }
}

/* One field per line: "  name          value unit". */
static void table_list(hk_record_t *r, FILE *t)
{
  char cell[128];
  fprintf(t, "# %s\n", r->kind);
  for (int i = 0; i < r->nf; i++) {
    field_text(&r->f[i], cell, sizeof cell);
    fprintf(t, "  %-22s %s%s%s\n", r->f[i].name, cell, r->f[i].unit[0] ? " " : "", r->f[i].unit);
  }
  for (int i = 0; i < r->nwarn; i++)
    fprintf(t, "# WARNING: %s\n", r->warn[i]);
  fflush(t);
}

/* One table cell per param/value, three (avg min max) per stats field. */
static void table_row(hk_record_t *r, FILE *t)
{
  char header[sizeof r->rep->header] = "#", row[4096] = " ", cell[96], head[128];
  size_t hl = 1, rl = 1;
  static const char *const which[] = {"avg", "min", "max"};
  for (int i = 0; i < r->nf; i++) {
    const field_t *f = &r->f[i];
    int ncells = f->type == F_STATS ? 3 : 1;
    for (int c = 0; c < ncells; c++) {
      const char *u = f->unit[0] ? f->unit : NULL;
      if (f->type == F_STATS)
        snprintf(head, sizeof head, "%s.%s%s%s%s", f->name, which[c], u ? "(" : "", u ? u : "",
                 u ? ")" : "");
      else
        snprintf(head, sizeof head, "%s%s%s%s", f->name, u ? "(" : "", u ? u : "", u ? ")" : "");
      switch (f->type) {
      case F_PARAM_INT:
      case F_VALUE_INT: snprintf(cell, sizeof cell, "%lld", f->i); break;
      case F_PARAM_DBL:
      case F_VALUE_DBL: snprintf(cell, sizeof cell, "%.6g", f->d); break;
      case F_PARAM_STR: snprintf(cell, sizeof cell, "%s", f->s); break;
      case F_STATS:
        snprintf(cell, sizeof cell, "%.6g", c == 0 ? f->st.avg : c == 1 ? f->st.min : f->st.max);
        break;
      }
      int w = (int)strlen(head);
      if (w < 12)
        w = 12;
      if ((int)strlen(cell) > w)
        w = (int)strlen(cell);
      hl += (size_t)snprintf(header + hl, hl < sizeof header ? sizeof header - hl : 0, " %*s", w, head);
      rl += (size_t)snprintf(row + rl, rl < sizeof row ? sizeof row - rl : 0, " %*s", w, cell);
    }
  }
  if (strcmp(header, r->rep->header) != 0) {
    fprintf(t, "# %s\n", r->kind);
    fprintf(t, "%s\n", header);
    snprintf(r->rep->header, sizeof r->rep->header, "%s", header);
  }
  fprintf(t, "%s\n", row);
  for (int i = 0; i < r->nwarn; i++)
    fprintf(t, "# WARNING: %s\n", r->warn[i]);
  fflush(t);
}

static char *record_json(const hk_record_t *r)
{
  hk_json_t j;
  hk_json_init(&j);
  hk_json_obj_begin(&j);
  hk_json_key(&j, "schema_version"); hk_json_int(&j, HK_RECORD_SCHEMA_VERSION);
  hk_json_key(&j, "kind"); hk_json_str(&j, r->kind);
  hk_json_key(&j, "program"); hk_json_str(&j, r->rep->program);
  hk_json_key(&j, "params");
  hk_json_obj_begin(&j);
  for (int i = 0; i < r->nf; i++) {
    const field_t *f = &r->f[i];
    if (f->type > F_PARAM_STR)
      continue;
    hk_json_key(&j, f->name);
    if (f->type == F_PARAM_INT) hk_json_int(&j, f->i);
    else if (f->type == F_PARAM_DBL) hk_json_dbl(&j, f->d);
    else hk_json_str(&j, f->s);
  }
  hk_json_obj_end(&j);
  hk_json_key(&j, "results");
  hk_json_obj_begin(&j);
  for (int i = 0; i < r->nf; i++) {
    const field_t *f = &r->f[i];
    if (f->type <= F_PARAM_STR)
      continue;
    hk_json_key(&j, f->name);
    hk_json_obj_begin(&j);
    if (f->type == F_STATS) {
      hk_json_key(&j, "min"); hk_json_dbl(&j, f->st.min);
      hk_json_key(&j, "avg"); hk_json_dbl(&j, f->st.avg);
      hk_json_key(&j, "max"); hk_json_dbl(&j, f->st.max);
    } else {
      hk_json_key(&j, "value");
      if (f->type == F_VALUE_INT) hk_json_int(&j, f->i);
      else hk_json_dbl(&j, f->d);
    }
    if (f->unit[0]) {
      hk_json_key(&j, "unit"); hk_json_str(&j, f->unit);
    }
    hk_json_obj_end(&j);
  }
  hk_json_obj_end(&j);
  hk_json_key(&j, "warnings");
  hk_json_arr_begin(&j);
  for (int i = 0; i < r->rep->binding->nwarnings; i++)
    hk_json_str(&j, r->rep->binding->warnings[i]);
  for (int i = 0; i < r->nwarn; i++)
    hk_json_str(&j, r->warn[i]);
  hk_json_arr_end(&j);
  hk_json_key(&j, "provenance"); hk_json_raw(&j, r->rep->provenance);
  hk_json_obj_end(&j);
  if (j.nomem) {
    hk_json_free(&j);
    return NULL;
  }
  return j.buf;
}

int hk_record_emit(hk_record_t **record)
{
  int err = HK_SUCCESS, local = HK_SUCCESS;
  if (!record || !*record)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk_record_t *r = *record;
  hk_reporter_t *rep = r->rep;
  if (rep->rank == 0) {
    if (rep->table && rep->style == HK_TABLE_LIST)
      table_list(r, rep->table);
    else if (rep->table)
      table_row(r, rep->table);
    if (rep->out) {
      char *line = record_json(r);
      if (!line)
        local = HK_ERROR(HK_ERR_NOMEM, "out of memory writing a '%s' record", r->kind);
      else if (fprintf(rep->out, "%s\n", line) < 0 || fflush(rep->out) != 0)
        local = HK_ERROR(HK_ERR_IO, "writing a '%s' record failed", r->kind);
      free(line);
    }
  }
  hk_record_discard(record);
  HK_TRY(err, hk_agree(rep->comm, local));
cleanup:
  return err;
}
