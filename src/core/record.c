/* src/core/record.c: the one reporter: an OSU-style table on stdout and JSON
 * Lines records from the same record, with provenance gathered once.
 * Format: python/src/hybridkit/schemas/record.schema.json. */
#include <ctype.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal/hk_internal.h"
#include "internal/hk_record.h"
#include "internal/json.h"

int hk__record_valid_kind(const char *k)
{
  if (!k || !islower((unsigned char)k[0]) || strlen(k) >= 64)
    return 0;
  for (const char *p = k; *p; p++)
    if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && !strchr("_.-", *p))
      return 0;
  return 1;
}

/* a reporter's program, table style, and on the rank that writes (rank 0, or the only
 * process of a local reporter) its table and output file, opened for appending */
static int reporter_outputs(hk_reporter_t *rep, const hk_reporter_desc_t *desc, int writes)
{
  snprintf(rep->program, sizeof rep->program, "%s", desc->program);
  rep->style = desc->table_style;
  if (writes && !desc->no_table)
    rep->table = desc->table ? desc->table : stdout;
  if (writes && desc->output && *desc->output && !(rep->out = fopen(desc->output, "a")))
    return HK_ERROR(HK_ERR_IO, "cannot open output '%s' for appending", desc->output);
  return HK_SUCCESS;
}

/* the local part of a reporter: its rank, program, table and output (rank 0 opens it) */
static int reporter_open(hk_reporter_t *rep, MPI_Comm comm, const hk_reporter_desc_t *desc,
                         int *size)
{
  int err = HK_SUCCESS;
  rep->comm = comm;
  HK_MPI_TRY(err, MPI_Comm_rank(comm, &rep->rank));
  HK_MPI_TRY(err, MPI_Comm_size(comm, size));
  err = reporter_outputs(rep, desc, rep->rank == 0);
cleanup:
  return err;
}

int hk_reporter_create(MPI_Comm comm, const hk_reporter_desc_t *desc, hk_reporter_t **reporter)
{
  int err = HK_SUCCESS, size = 1;
  hk_reporter_t *rep = NULL;
  if (!desc || !reporter || !desc->program || !*desc->program)
    return HK_ERROR(HK_ERR_ARG, "desc, desc->program and reporter must be given");
  *reporter = NULL;
  if (!hk__is_initialized())
    return HK_ERROR(HK_ERR_STATE, "hk_reporter_create needs hk_init first");
  HK_ALLOC_LOCAL(err, rep, 1);
  HK_LOCAL(err, reporter_open(rep, comm, desc, &size));
  HK_AGREE(err, comm);
  const hk_nodes_t *nodes = desc->nodes;
  if (!nodes) {
    HK_TRY(err, hk_nodes_create(comm, &rep->own_nodes));
    nodes = rep->own_nodes;
  }
  HK_TRY(err, hk_binding_report(comm, nodes, &rep->binding));
  rep->bind = rep->binding;
  HK_LOCAL(err, hk__record_provenance(rep, nodes, size));
  HK_AGREE(err, comm);
  *reporter = rep;
  return HK_SUCCESS;
cleanup:
  hk_reporter_destroy(&rep);
  return err;
}

int hk_reporter_create_local(const hk_reporter_desc_t *desc, const hk_provenance_facts_t *facts,
                             hk_reporter_t **reporter)
{
  int err = HK_SUCCESS;
  hk_reporter_t *rep = NULL;
  hk_machine_t *m = NULL;
  hk_machine_info_t mi;
  if (!desc || !reporter || !desc->program || !*desc->program || !facts || !facts->binding ||
      !facts->mpi_library || facts->ranks < 1)
    return HK_ERROR(HK_ERR_ARG, "desc with a program, facts with a binding, the MPI library and "
                    "ranks >= 1, and reporter must be given");
  *reporter = NULL;
  if (!(rep = calloc(1, sizeof *rep))) /* not hk_calloc_checked: its test hook asks MPI */
    return HK_ERROR(HK_ERR_NOMEM, "out of memory");
  rep->comm = MPI_COMM_NULL;
  rep->local = 1;
  rep->bind = facts->binding;
  HK_TRY(err, reporter_outputs(rep, desc, 1));
  if (!facts->machine) {
    HK_TRY(err, hk__real_machine(&m));
    HK_TRY(err, hk_machine_info(m, &mi));
  }
  HK_TRY(err, hk__record_provenance_write(rep, facts, facts->machine ? facts->machine : &mi));
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
  return rep ? rep->bind : NULL;
}

/* the test hook HK_TEST_RECORD_FAIL=RANK:FIELD: on rank RANK, adding FIELD fails
 * as if out of memory (tests/record: a local failure must not hang the job) */
static void read_fail_hook(hk_reporter_t *rep)
{
  const char *hook = getenv("HK_TEST_RECORD_FAIL");
  const char *colon = hook ? strchr(hook, ':') : NULL;
  if (colon && atoi(hook) == rep->rank)
    snprintf(rep->fail_field, sizeof rep->fail_field, "%s", colon + 1);
}

/* the reporter's failed record, in the state of `err` */
static hk_record_t *failed_record(hk_reporter_t *rep, const char *kind, int err)
{ /* it never holds fields (its error is set), so there is nothing to free */
  memset(&rep->failed, 0, sizeof rep->failed);
  rep->failed.rep = rep;
  rep->failed.is_failed = 1;
  rep->failed.err = err;
  snprintf(rep->failed.kind, sizeof rep->failed.kind, "%s", kind ? kind : "");
  return &rep->failed;
}

static int record_create(hk_reporter_t *rep, const char *kind, const hk_kind_decl_t *decl,
                         hk_record_t **record)
{
  int err = HK_SUCCESS;
  hk_record_t *r = NULL;
  if (!rep || !record)
    return HK_ERROR(HK_ERR_ARG, "reporter and record must not be NULL");
  *record = NULL;
  if (!hk__record_valid_kind(kind))
    err = HK_ERROR(HK_ERR_ARG, "record kind '%s' must match [a-z][a-z0-9_.-]*",
                   kind ? kind : "(null)");
  else if (decl)
    err = hk_kind_check(decl);
  if (err == HK_SUCCESS && !(r = calloc(1, sizeof *r)))
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
  if (err != HK_SUCCESS) {
    *record = failed_record(rep, kind, err);
    return err;
  }
  r->rep = rep;
  r->decl = decl;
  snprintf(r->kind, sizeof r->kind, "%s", kind);
  if (!rep->fail_field[0])
    read_fail_hook(rep);
  *record = r;
  return HK_SUCCESS;
}

int hk_record_create(hk_reporter_t *rep, const char *kind, hk_record_t **record)
{
  return record_create(rep, kind, NULL, record);
}

int hk_record_create_declared(hk_reporter_t *rep, const hk_kind_decl_t *decl, hk_record_t **record)
{
  if (!decl && record)
    *record = rep ? failed_record(rep, "", HK_ERR_ARG) : NULL;
  if (!decl)
    return HK_ERROR(HK_ERR_ARG, "decl must not be NULL");
  return record_create(rep, decl->kind, decl, record);
}

static const char *const type_names[HK_FIELD_TYPE_COUNT] = {
    "an int param", "a double param", "a string param", "a value", "an int value", "stats"};

/* a declared kind: the field is declared, with this type and unit; *unit becomes the
 * declared one */
static int check_declared(const hk_record_t *r, hk_field_type_t type, const char *name,
                          const char **unit)
{
  const hk_field_decl_t *d = hk__kind_field(r->decl, name, hk__field_is_param(type));
  if (!d)
    d = hk__kind_field(r->decl, name, !hk__field_is_param(type)); /* for the message */
  if (!d)
    return HK_ERROR(HK_ERR_ARG, "field '%s' is not declared for '%s' records", name, r->kind);
  if (d->type != type)
    return HK_ERROR(HK_ERR_ARG, "field '%s' of '%s' records is declared as %s, not %s", name,
                    r->kind, type_names[d->type], type_names[type]);
  const char *du = d->unit ? d->unit : "";
  if (**unit && strcmp(*unit, du) != 0)
    return HK_ERROR(HK_ERR_ARG, "field '%s' of '%s' records is in '%s', not '%s'", name, r->kind,
                    du, *unit);
  *unit = du;
  return HK_SUCCESS;
}

/* name is new in r (a param and a result may share a name) */
static int check_new_name(const hk_record_t *r, hk_field_type_t type, const char *name)
{
  if (!name || !*name || strlen(name) >= sizeof r->f[0].name)
    return HK_ERROR(HK_ERR_ARG, "a field name (1-63 chars) is required");
  for (int i = 0; i < r->nf; i++)
    if (strcmp(r->f[i].name, name) == 0 && hk__field_is_param(r->f[i].type) == hk__field_is_param(type))
      return HK_ERROR(HK_ERR_ARG, "field '%s' added twice to a '%s' record", name, r->kind);
  return HK_SUCCESS;
}

/* room for one more field in r (the test hook HK_TEST_RECORD_FAIL fails it for one name) */
static int make_room(hk_record_t *r, const char *name)
{
  if (r->rep->fail_field[0] && strcmp(name, r->rep->fail_field) == 0)
    return HK_ERROR(HK_ERR_NOMEM, "out of memory adding '%s' (test hook HK_TEST_RECORD_FAIL)", name);
  if (r->nf < r->cap)
    return HK_SUCCESS;
  int cap = r->cap ? 2 * r->cap : 8;
  hk__field_t *f = realloc(r->f, (size_t)cap * sizeof *f);
  if (!f)
    return HK_ERROR(HK_ERR_NOMEM, "out of memory");
  r->f = f;
  r->cap = cap;
  return HK_SUCCESS;
}

/* the next field of r, or NULL after setting r->err (the record's first error stays) */
static hk__field_t *add_field(hk_record_t *r, hk_field_type_t type, const char *name,
                              const char *unit)
{
  int err = HK_SUCCESS;
  unit = unit ? unit : "";
  if (r->err != HK_SUCCESS)
    return NULL;
  HK_LOCAL(err, check_new_name(r, type, name));
  if (r->decl)
    HK_LOCAL(err, check_declared(r, type, name, &unit));
  HK_LOCAL(err, make_room(r, name));
  if (err != HK_SUCCESS) {
    r->err = err;
    return NULL;
  }
  hk__field_t *f = &r->f[r->nf++];
  memset(f, 0, sizeof *f);
  f->type = type;
  snprintf(f->name, sizeof f->name, "%s", name);
  snprintf(f->unit, sizeof f->unit, "%s", unit);
  return f;
}

int hk_record_param_int(hk_record_t *r, const char *name, long long v)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk__field_t *f = add_field(r, HK_FIELD_PARAM_INT, name, NULL);
  if (f)
    f->i = v;
  return r->err;
}

int hk_record_param_double(hk_record_t *r, const char *name, double v)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk__field_t *f = add_field(r, HK_FIELD_PARAM_DOUBLE, name, NULL);
  if (f)
    f->d = v;
  return r->err;
}

int hk_record_param_str(hk_record_t *r, const char *name, const char *v)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk__field_t *f = add_field(r, HK_FIELD_PARAM_STR, name, NULL);
  if (f && !(f->s = strdup(v ? v : ""))) {
    r->nf--;
    r->err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
  }
  return r->err;
}

int hk_record_value(hk_record_t *r, const char *name, double v, const char *unit)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk__field_t *f = add_field(r, HK_FIELD_VALUE, name, unit);
  if (f)
    f->d = v;
  return r->err;
}

int hk_record_value_int(hk_record_t *r, const char *name, long long v, const char *unit)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk__field_t *f = add_field(r, HK_FIELD_VALUE_INT, name, unit);
  if (f)
    f->i = v;
  return r->err;
}

/* the reduction runs on every rank whatever the state of its record, so that a rank
 * with a failed record never leaves the others waiting in it */
int hk_record_stats(hk_record_t *r, const char *name, double local, const char *unit)
{
  hk_stats_t st = {0.0, 0.0, 0.0};
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  if (r->rep->local && r->err == HK_SUCCESS)
    r->err = HK_ERROR(HK_ERR_ARG, "'%s' of a '%s' record: a local reporter has no ranks to reduce "
                      "over (hk_record_stats_given)", name ? name : "(null)", r->kind);
  int err = r->rep->local ? HK_SUCCESS : hk_stats_reduce(r->rep->comm, local, &st);
  if (err != HK_SUCCESS && r->err == HK_SUCCESS)
    r->err = err;
  if (r->decl && r->err == HK_SUCCESS) {
    const hk_field_decl_t *d = hk__kind_field(r->decl, name, 0);
    if (d && d->ranks != HK_RANKS_MIN_AVG_MAX)
      r->err = HK_ERROR(HK_ERR_ARG, "field '%s' of '%s' records is not reduced over the ranks",
                        name, r->kind);
  }
  hk__field_t *f = add_field(r, HK_FIELD_STATS, name, unit);
  if (f)
    f->st = st;
  return r->err;
}

int hk_record_stats_given(hk_record_t *r, const char *name, const hk_stats_t *st, const char *unit)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  if (r->err == HK_SUCCESS && !st)
    r->err = HK_ERROR(HK_ERR_ARG, "stats of '%s' must not be NULL", name ? name : "(null)");
  else if (r->err == HK_SUCCESS && (!isfinite(st->min) || !isfinite(st->avg) || !isfinite(st->max)))
    r->err = HK_ERROR(HK_ERR_ARG, "stats of '%s' are not finite", name ? name : "(null)");
  hk__field_t *f = add_field(r, HK_FIELD_STATS, name, unit);
  if (f)
    f->st = *st;
  return r->err;
}

int hk_record_warning(hk_record_t *r, const char *fmt, ...)
{
  if (!r)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  if (r->err != HK_SUCCESS)
    return r->err;
  if (!fmt)
    return r->err = HK_ERROR(HK_ERR_ARG, "fmt must not be NULL");
  va_list ap;
  va_start(ap, fmt);
  r->err = hk__strlist_vadd(&r->warn, &r->nwarn, fmt, ap);
  va_end(ap);
  return r->err;
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
  if (r->is_failed) {
    r->f = NULL;
    r->warn = NULL;
    r->nf = r->cap = r->nwarn = 0;
  } else {
    free(r);
  }
  *record = NULL;
}

/* a declared kind: every field that is not optional is there */
static int check_complete(const hk_record_t *r)
{
  for (int k = 0; r->decl && k < r->decl->nfields; k++) {
    const hk_field_decl_t *d = &r->decl->fields[k];
    int found = d->optional;
    for (int i = 0; i < r->nf && !found; i++)
      found = strcmp(r->f[i].name, d->name) == 0 &&
              hk__field_is_param(r->f[i].type) == hk__field_is_param(d->type);
    if (!found)
      return HK_ERROR(HK_ERR_ARG, "a '%s' record lacks its field '%s'", r->kind, d->name);
  }
  return HK_SUCCESS;
}

int hk_record_emit(hk_record_t **record)
{
  int err = HK_SUCCESS, local = HK_SUCCESS;
  if (!record || !*record)
    return HK_ERROR(HK_ERR_ARG, "record is NULL");
  hk_record_t *r = *record;
  hk_reporter_t *rep = r->rep;
  local = r->err != HK_SUCCESS ? r->err : check_complete(r);
  err = rep->local ? local : hk_agree(rep->comm, local);
  if (err == HK_SUCCESS && rep->rank == 0) {
    if (rep->table && rep->style == HK_TABLE_LIST)
      hk__record_table_list(r, rep->table);
    else if (rep->table)
      hk__record_table_row(r, rep->table);
    if (rep->out) {
      char *line = hk__record_json(r);
      if (!line)
        local = HK_ERROR(HK_ERR_NOMEM, "out of memory writing a '%s' record", r->kind);
      else if (fprintf(rep->out, "%s\n", line) < 0 || fflush(rep->out) != 0)
        local = HK_ERROR(HK_ERR_IO, "writing a '%s' record failed", r->kind);
      free(line);
    }
  }
  hk_record_discard(record);
  if (err == HK_SUCCESS)
    err = rep->local ? local : hk_agree(rep->comm, local);
  return local != HK_SUCCESS ? local : err;
}
