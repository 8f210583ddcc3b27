/* src/core/record_out.c: what the reporter (record.c) writes from rank 0: the
 * provenance (JSON, and the table's header lines), a record as rows of the OSU-style
 * table and as one JSON line (python/src/hybridkit/schemas/record.schema.json). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal/hk_internal.h"
#include "internal/hk_record.h"
#include "internal/json.h"

static const char *mpi_impl_of(const char *libversion)
{
  if (strstr(libversion, "Open MPI"))
    return "openmpi";
  if (strstr(libversion, "MPICH"))
    return "mpich";
  return "other";
}

/* The MPI's maker from MPI_Get_library_version (mpi_impl above is the family that decides a
 * launcher's flags): "Intel(R) MPI Library 2021.10 for Linux* OS", "MPI VERSION : CRAY MPICH
 * version 8.1.25 (ANL base 3.4a2)", "MVAPICH2 Version : 2.3.7", "MPICH Version: 4.0.2",
 * "Open MPI v4.1.4, ...". */
const char *hk__mpi_vendor_of(const char *libversion)
{
  static const struct {
    const char *mark, *name;
  } vendors[] = {{"Open MPI", "openmpi"}, {"Intel(R) MPI", "intelmpi"},
                 {"CRAY MPICH", "cray-mpich"}, {"MVAPICH", "mvapich"}, {"MPICH", "mpich"}};
  for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
    if (strstr(libversion, vendors[i].mark))
      return vendors[i].name;
  return "other";
}

/* the facts of the provenance, gathered over rep->comm; rank 0 writes it */
int hk__record_provenance(hk_reporter_t *rep, const hk_nodes_t *nodes, int nranks)
{
  int err = HK_SUCCESS, maxthreads = 0, threads = omp_get_max_threads(), len = 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  hk_nodes_info_t ni;
  hk_machine_t *m = NULL;
  hk_machine_info_t mi;
  hk_provenance_facts_t f = {.mpi_library = lib, .ranks = nranks, .binding = rep->bind};
  HK_TRY(err, hk_thread_levels(&f.requested, &f.provided));
  HK_TRY(err, hk_nodes_info(nodes, &ni));
  HK_MPI_TRY(err, MPI_Allreduce(&threads, &maxthreads, 1, MPI_INT, MPI_MAX, rep->comm));
  HK_MPI_TRY(err, MPI_Get_library_version(lib, &len));
  lib[strcspn(lib, "\n")] = '\0';
  HK_TRY(err, hk__real_machine(&m));
  HK_TRY(err, hk_machine_info(m, &mi));
  f.threads_per_rank = maxthreads;
  f.nodes = ni.nnodes;
  f.virtual_nodes = ni.is_virtual;
  if (rep->rank == 0)
    err = hk__record_provenance_write(rep, &f, &mi);
cleanup:
  return err;
}

static void provenance_hosts(hk_json_t *j, const hk_binding_t *b)
{
  hk_json_key(j, "hosts");
  hk_json_arr_begin(j);
  int *host = calloc((size_t)b->nentries + 1, sizeof *host), nhosts = 0;
  if (host && hk__binding_host_ids(b, host, &nhosts) == HK_SUCCESS)
    for (int i = 0, next = 0; i < b->nentries; i++)
      if (host[i] == next) { /* ids are numbered by first appearance */
        hk_json_str(j, b->entries[i].host);
        next++;
      }
  free(host);
  hk_json_arr_end(j);
  hk_json_key(j, "omp_places"); hk_json_str(j, getenv("OMP_PLACES"));
  hk_json_key(j, "omp_proc_bind"); hk_json_str(j, getenv("OMP_PROC_BIND"));
}

static void provenance_entries(hk_json_t *j, const hk_binding_t *b)
{
  hk_json_key(j, "binding");
  hk_json_arr_begin(j);
  for (int i = 0; i < b->nentries; i++) {
    const hk_binding_entry_t *e = &b->entries[i];
    hk_json_obj_begin(j);
    hk_json_key(j, "rank"); hk_json_int(j, e->rank);
    hk_json_key(j, "thread"); hk_json_int(j, e->thread);
    hk_json_key(j, "host"); hk_json_str(j, e->host);
    hk_json_key(j, "node"); hk_json_int(j, e->node);
    hk_json_key(j, "cpuset"); hk_json_str(j, e->cpuset);
    hk_json_key(j, "cpu"); hk_json_int(j, e->cpu);
    hk_json_obj_end(j);
  }
  hk_json_arr_end(j);
}

static void provenance_header(const hk_reporter_t *rep, const hk_provenance_facts_t *f,
                              const hk_build_info_t *bi)
{
  FILE *t = rep->table;
  fprintf(t, "# %s %s (git %s), %s, %s %s\n", rep->program, bi->version, bi->git_sha,
          bi->build_type, bi->compiler, bi->cflags);
  fprintf(t, "# MPI: %s\n", f->mpi_library);
  fprintf(t, "# thread level: requested %s, provided %s\n", hk_thread_level_name(f->requested),
          hk_thread_level_name(f->provided));
  fprintf(t, "# ranks: %d, threads/rank: %d, nodes: %d%s\n", f->ranks, f->threads_per_rank,
          f->nodes, f->virtual_nodes ? " (virtual, HK_NODE_SIZE)" : "");
  fprintf(t, "# OMP_PLACES=%s OMP_PROC_BIND=%s\n", getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "",
          getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "");
  for (int i = 0; i < f->binding->nwarnings; i++)
    fprintf(t, "# WARNING: %s\n", f->binding->warnings[i]);
  fflush(t);
}

int hk__record_provenance_write(hk_reporter_t *rep, const hk_provenance_facts_t *f,
                                const hk_machine_info_t *mi)
{
  int err = HK_SUCCESS;
  hk_build_info_t bi;
  hk_build_info(&bi);
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  hk_json_t j;
  hk_json_init(&j);
  hk_json_obj_begin(&j);
  hk_json_key(&j, "hybridkit_version"); hk_json_str(&j, bi.version);
  hk_json_key(&j, "git_sha"); hk_json_str(&j, bi.git_sha);
  hk_json_key(&j, "compiler"); hk_json_str(&j, bi.compiler);
  hk_json_key(&j, "cflags"); hk_json_str(&j, bi.cflags);
  hk_json_key(&j, "mpi_library"); hk_json_str(&j, f->mpi_library);
  hk_json_key(&j, "mpi_impl"); hk_json_str(&j, mpi_impl_of(f->mpi_library));
  hk_json_key(&j, "mpi_vendor"); hk_json_str(&j, hk__mpi_vendor_of(f->mpi_library));
  hk_json_key(&j, "thread_level");
  hk_json_obj_begin(&j);
  hk_json_key(&j, "requested"); hk_json_str(&j, hk_thread_level_name(f->requested));
  hk_json_key(&j, "provided"); hk_json_str(&j, hk_thread_level_name(f->provided));
  hk_json_obj_end(&j);
  hk_json_key(&j, "ranks"); hk_json_int(&j, f->ranks);
  hk_json_key(&j, "threads_per_rank"); hk_json_int(&j, f->threads_per_rank);
  hk_json_key(&j, "nodes"); hk_json_int(&j, f->nodes);
  hk_json_key(&j, "virtual_nodes"); hk_json_bool(&j, f->virtual_nodes);
  provenance_hosts(&j, f->binding);
  hk_json_key(&j, "machine");
  hk_json_obj_begin(&j);
  hk_json_key(&j, "source"); hk_json_str(&j, mi->source);
  hk_json_key(&j, "packages"); hk_json_int(&j, mi->packages);
  hk_json_key(&j, "numa_nodes"); hk_json_int(&j, mi->numa_nodes);
  hk_json_key(&j, "cores"); hk_json_int(&j, mi->cores);
  hk_json_key(&j, "pus"); hk_json_int(&j, mi->pus);
  hk_json_obj_end(&j);
  provenance_entries(&j, f->binding);
  hk_json_key(&j, "timestamp"); hk_json_str(&j, stamp);
  hk_json_obj_end(&j);
  if (j.nomem) {
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory building provenance");
    goto cleanup;
  }
  rep->provenance = j.buf;
  j.buf = NULL;
  if (rep->table)
    provenance_header(rep, f, &bi);
cleanup:
  hk_json_free(&j);
  return err;
}

static void field_text(const hk__field_t *f, char *cell, size_t size)
{
  switch (f->type) {
  case HK_FIELD_PARAM_INT:
  case HK_FIELD_VALUE_INT: snprintf(cell, size, "%lld", f->i); break;
  case HK_FIELD_PARAM_DOUBLE:
  case HK_FIELD_VALUE: snprintf(cell, size, "%.6g", f->d); break;
  case HK_FIELD_PARAM_STR: snprintf(cell, size, "%s", f->s); break;
  default: /* HK_FIELD_STATS */
    snprintf(cell, size, "min %-12.6g avg %-12.6g max %.6g", f->st.min, f->st.avg, f->st.max);
    break;
  }
}

/* One field per line: "  name          value unit". */
void hk__record_table_list(const hk_record_t *r, FILE *t)
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
void hk__record_table_row(hk_record_t *r, FILE *t)
{
  char header[sizeof r->rep->header] = "#", row[4096] = " ", cell[96], head[128];
  size_t hl = 1, rl = 1;
  static const char *const which[] = {"avg", "min", "max"};
  for (int i = 0; i < r->nf; i++) {
    const hk__field_t *f = &r->f[i];
    int ncells = f->type == HK_FIELD_STATS ? 3 : 1;
    for (int c = 0; c < ncells; c++) {
      const char *u = f->unit[0] ? f->unit : NULL;
      if (f->type == HK_FIELD_STATS)
        snprintf(head, sizeof head, "%s.%s%s%s%s", f->name, which[c], u ? "(" : "", u ? u : "",
                 u ? ")" : "");
      else
        snprintf(head, sizeof head, "%s%s%s%s", f->name, u ? "(" : "", u ? u : "", u ? ")" : "");
      switch (f->type) {
      case HK_FIELD_PARAM_INT:
      case HK_FIELD_VALUE_INT: snprintf(cell, sizeof cell, "%lld", f->i); break;
      case HK_FIELD_PARAM_DOUBLE:
      case HK_FIELD_VALUE: snprintf(cell, sizeof cell, "%.6g", f->d); break;
      case HK_FIELD_PARAM_STR: snprintf(cell, sizeof cell, "%s", f->s); break;
      default: /* HK_FIELD_STATS */
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

char *hk__record_json(const hk_record_t *r)
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
    const hk__field_t *f = &r->f[i];
    if (!hk__field_is_param(f->type))
      continue;
    hk_json_key(&j, f->name);
    if (f->type == HK_FIELD_PARAM_INT) hk_json_int(&j, f->i);
    else if (f->type == HK_FIELD_PARAM_DOUBLE) hk_json_dbl(&j, f->d);
    else hk_json_str(&j, f->s);
  }
  hk_json_obj_end(&j);
  hk_json_key(&j, "results");
  hk_json_obj_begin(&j);
  for (int i = 0; i < r->nf; i++) {
    const hk__field_t *f = &r->f[i];
    if (hk__field_is_param(f->type))
      continue;
    hk_json_key(&j, f->name);
    hk_json_obj_begin(&j);
    if (f->type == HK_FIELD_STATS) {
      hk_json_key(&j, "min"); hk_json_dbl(&j, f->st.min);
      hk_json_key(&j, "avg"); hk_json_dbl(&j, f->st.avg);
      hk_json_key(&j, "max"); hk_json_dbl(&j, f->st.max);
    } else {
      hk_json_key(&j, "value");
      if (f->type == HK_FIELD_VALUE_INT) hk_json_int(&j, f->i);
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
  for (int i = 0; i < r->rep->bind->nwarnings; i++)
    hk_json_str(&j, r->rep->bind->warnings[i]);
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

