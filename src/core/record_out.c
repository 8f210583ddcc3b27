/* src/core/record_out.c: a record as rows of the OSU-style table and as one JSON
 * line (schema/record.schema.json); the reporter (record.c) writes both from rank 0. */
#include <stdio.h>
#include <string.h>
#include "internal/hk_internal.h"
#include "internal/hk_record.h"
#include "internal/json.h"

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

