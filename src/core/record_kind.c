/* src/core/record_kind.c: declared record kinds: the check of a declaration, the
 * lookup of a field, and the JSON schema generated from it (on top of
 * python/src/hybridkit/schemas/record.schema.json; written to build/schema/kinds/ at
 * build time by tools/hk-kinds and compared with the committed copy in ctest). */
#include <stdio.h>
#include <string.h>
#include "internal/hk_internal.h"
#include "internal/hk_record.h"
#include "internal/json.h"

static const char *const ranks_names[HK_RANKS_COUNT] = {"same", "rank0", "min/avg/max", "given"};

const hk_field_decl_t *hk__kind_field(const hk_kind_decl_t *decl, const char *name, int param)
{
  for (int i = 0; decl && name && i < decl->nfields; i++)
    if (strcmp(decl->fields[i].name, name) == 0 &&
        hk__field_is_param(decl->fields[i].type) == param)
      return &decl->fields[i];
  return NULL;
}

/* the declared stats/value field `name` with a unit, for metric and time */
static int check_result(const hk_kind_decl_t *k, const char *what, const char *name)
{
  const hk_field_decl_t *f = hk__kind_field(k, name, 0);
  if (!f)
    return HK_ERROR(HK_ERR_ARG, "kind '%s': its %s '%s' is not a declared result", k->kind, what,
                    name);
  return HK_SUCCESS;
}

static int check_field(const hk_kind_decl_t *k, int i)
{
  const hk_field_decl_t *f = &k->fields[i];
  if (!f->name || !*f->name || strlen(f->name) >= 64 || !f->meaning || !*f->meaning)
    return HK_ERROR(HK_ERR_ARG, "kind '%s': field %d needs a name (1-63 chars) and a meaning",
                    k->kind, i);
  if ((int)f->type < 0 || f->type >= HK_FIELD_TYPE_COUNT || (int)f->ranks < 0 ||
      f->ranks >= HK_RANKS_COUNT)
    return HK_ERROR(HK_ERR_ARG, "kind '%s': field '%s' has an unknown type or rank aggregation",
                    k->kind, f->name);
  int stats = f->type == HK_FIELD_STATS;
  if (stats != (f->ranks == HK_RANKS_MIN_AVG_MAX || f->ranks == HK_RANKS_GIVEN))
    return HK_ERROR(HK_ERR_ARG, "kind '%s': field '%s': stats and only stats are min/avg/max "
                    "over ranks", k->kind, f->name);
  if (hk__field_is_param(f->type) && f->unit && *f->unit)
    return HK_ERROR(HK_ERR_ARG, "kind '%s': param '%s' has a unit (params have none)", k->kind,
                    f->name);
  for (int j = 0; j < i; j++) /* a param and a result may share a name */
    if (strcmp(k->fields[j].name, f->name) == 0 &&
        hk__field_is_param(k->fields[j].type) == hk__field_is_param(f->type))
      return HK_ERROR(HK_ERR_ARG, "kind '%s': field '%s' declared twice", k->kind, f->name);
  if ((int)f->phase < HK_PHASE_NO || f->phase > HK_PHASE_REST)
    return HK_ERROR(HK_ERR_ARG, "kind '%s': field '%s' has an unknown phase", k->kind, f->name);
  if (f->phase != HK_PHASE_NO) {
    const hk_field_decl_t *t = k->time ? hk__kind_field(k, k->time, 0) : NULL;
    if (!t || !stats || strcmp(f->unit ? f->unit : "", t->unit ? t->unit : "") != 0 ||
        f == t)
      return HK_ERROR(HK_ERR_ARG, "kind '%s': phase '%s' must be stats in the unit of the "
                      "kind's time per iteration", k->kind, f->name);
  }
  return HK_SUCCESS;
}

int hk_kind_check(const hk_kind_decl_t *k)
{
  int err = HK_SUCCESS;
  if (!k || !k->fields || k->nfields < 1)
    return HK_ERROR(HK_ERR_ARG, "a kind declaration needs fields");
  if (!hk__record_valid_kind(k->kind) || !k->caption || !*k->caption)
    return HK_ERROR(HK_ERR_ARG, "kind '%s' needs a name [a-z][a-z0-9_.-]* and a caption",
                    k->kind ? k->kind : "(null)");
  int rests = 0;
  for (int i = 0; i < k->nfields; i++) {
    HK_TRY(err, check_field(k, i));
    rests += k->fields[i].phase == HK_PHASE_REST;
  }
  if (rests > 1)
    return HK_ERROR(HK_ERR_ARG, "kind '%s': more than one rest phase", k->kind);
  if (k->metric) {
    HK_TRY(err, check_result(k, "metric", k->metric));
    if (!k->better || (strcmp(k->better, "higher") != 0 && strcmp(k->better, "lower") != 0))
      return HK_ERROR(HK_ERR_ARG, "kind '%s': better must be 'higher' or 'lower'", k->kind);
  }
  if (k->time)
    HK_TRY(err, check_result(k, "time", k->time));
cleanup:
  return err;
}

static void field_schema(hk_json_t *j, const hk_field_decl_t *f)
{
  static const char *const json_type[] = {"integer", "number", "string"};
  const char *unit = f->unit && *f->unit ? f->unit : NULL;
  hk_json_key(j, f->name);
  hk_json_obj_begin(j);
  hk_json_key(j, "description"); hk_json_str(j, f->meaning);
  if (hk__field_is_param(f->type)) {
    hk_json_key(j, "type"); hk_json_str(j, json_type[f->type]);
  } else {
    hk_json_key(j, "type"); hk_json_str(j, "object");
    hk_json_key(j, "required");
    hk_json_arr_begin(j);
    if (f->type == HK_FIELD_STATS) {
      hk_json_str(j, "min"); hk_json_str(j, "avg"); hk_json_str(j, "max");
    } else {
      hk_json_str(j, "value");
    }
    if (unit)
      hk_json_str(j, "unit");
    hk_json_arr_end(j);
    hk_json_key(j, "properties");
    hk_json_obj_begin(j);
    if (f->type == HK_FIELD_VALUE_INT) {
      hk_json_key(j, "value"); hk_json_raw(j, "{\"type\": \"integer\"}");
    } else if (f->type == HK_FIELD_VALUE) {
      hk_json_key(j, "value"); hk_json_raw(j, "{\"type\": \"number\"}");
    }
    hk_json_key(j, "unit");
    if (unit) {
      hk_json_obj_begin(j);
      hk_json_key(j, "const"); hk_json_str(j, unit);
      hk_json_obj_end(j);
    } else {
      hk_json_raw(j, "false");
    }
    hk_json_obj_end(j);
  }
  hk_json_key(j, "x-unit"); hk_json_str(j, unit);
  hk_json_key(j, "x-ranks"); hk_json_str(j, ranks_names[f->ranks]);
  hk_json_key(j, "x-phase"); hk_json_bool(j, f->phase != HK_PHASE_NO);
  hk_json_obj_end(j);
}

/* "params" or "results": the declared fields of that side, all required but optional ones */
static void side_schema(hk_json_t *j, const hk_kind_decl_t *k, int params)
{
  hk_json_key(j, params ? "params" : "results");
  hk_json_obj_begin(j);
  hk_json_key(j, "type"); hk_json_str(j, "object");
  hk_json_key(j, "additionalProperties"); hk_json_bool(j, 0);
  hk_json_key(j, "required");
  hk_json_arr_begin(j);
  for (int i = 0; i < k->nfields; i++)
    if (hk__field_is_param(k->fields[i].type) == params && !k->fields[i].optional)
      hk_json_str(j, k->fields[i].name);
  hk_json_arr_end(j);
  hk_json_key(j, "properties");
  hk_json_obj_begin(j);
  for (int i = 0; i < k->nfields; i++)
    if (hk__field_is_param(k->fields[i].type) == params)
      field_schema(j, &k->fields[i]);
  hk_json_obj_end(j);
  hk_json_obj_end(j);
}

int hk_kind_schema_write(const hk_kind_decl_t *k, FILE *out)
{
  int err = HK_SUCCESS;
  char id[160];
  hk_json_t j;
  hk_json_init(&j);
  HK_TRY(err, hk_kind_check(k));
  if (!out)
    return HK_ERROR(HK_ERR_ARG, "out must not be NULL");
  snprintf(id, sizeof id, "https://hybridkit.invalid/schema/kinds/%s.schema.json", k->kind);
  hk_json_obj_begin(&j);
  hk_json_key(&j, "$schema"); hk_json_str(&j, "https://json-schema.org/draft/2020-12/schema");
  hk_json_key(&j, "$id"); hk_json_str(&j, id);
  hk_json_key(&j, "title"); hk_json_str(&j, k->kind);
  hk_json_key(&j, "description"); hk_json_str(&j, k->caption);
  hk_json_key(&j, "x-metric"); hk_json_str(&j, k->metric);
  hk_json_key(&j, "x-better"); hk_json_str(&j, k->metric ? k->better : NULL);
  hk_json_key(&j, "x-time"); hk_json_str(&j, k->time);
  hk_json_key(&j, "x-phases");
  hk_json_arr_begin(&j);
  for (int i = 0; i < k->nfields; i++)
    if (k->fields[i].phase != HK_PHASE_NO)
      hk_json_str(&j, k->fields[i].name);
  hk_json_arr_end(&j);
  hk_json_key(&j, "x-rest");
  const char *rest = NULL;
  for (int i = 0; i < k->nfields; i++)
    if (k->fields[i].phase == HK_PHASE_REST)
      rest = k->fields[i].name;
  hk_json_str(&j, rest);
  hk_json_key(&j, "type"); hk_json_str(&j, "object");
  hk_json_key(&j, "required");
  hk_json_raw(&j, "[\"kind\", \"params\", \"results\"]");
  hk_json_key(&j, "properties");
  hk_json_obj_begin(&j);
  hk_json_key(&j, "kind");
  hk_json_obj_begin(&j);
  hk_json_key(&j, "const"); hk_json_str(&j, k->kind);
  hk_json_obj_end(&j);
  side_schema(&j, k, 1);
  side_schema(&j, k, 0);
  hk_json_obj_end(&j);
  hk_json_obj_end(&j);
  if (j.nomem) {
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory writing the schema of '%s'", k->kind);
    goto cleanup;
  }
  if (fprintf(out, "%s\n", j.buf) < 0 || fflush(out) != 0)
    err = HK_ERROR(HK_ERR_IO, "writing the schema of '%s' failed", k->kind);
cleanup:
  hk_json_free(&j);
  return err;
}
