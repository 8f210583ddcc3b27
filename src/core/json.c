/* src/core/json.c: the JSON writer behind records (see internal/json.h).
 * Hand-written instead of a library (jansson, cJSON) because only writing is
 * needed, and the library (and later the PMPI preload library) should not pull
 * another shared dependency into every MPI program it is linked or preloaded into. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal/json.h"

void hk_json_init(hk_json_t *j) { memset(j, 0, sizeof *j); }

void hk_json_free(hk_json_t *j)
{
  free(j->buf);
  memset(j, 0, sizeof *j);
}

static void put(hk_json_t *j, const char *s, size_t n)
{
  if (j->nomem)
    return;
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 256;
    while (cap < j->len + n + 1)
      cap *= 2;
    char *b = realloc(j->buf, cap);
    if (!b) {
      j->nomem = 1;
      return;
    }
    j->buf = b;
    j->cap = cap;
  }
  memcpy(j->buf + j->len, s, n);
  j->len += n;
  j->buf[j->len] = '\0';
}

static void puts_(hk_json_t *j, const char *s) { put(j, s, strlen(s)); }

/* Before any value or key: a comma unless it is the first item of its container. */
static void sep(hk_json_t *j)
{
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth > 0 && j->depth < (int)sizeof j->need_comma) {
    if (j->need_comma[j->depth])
      put(j, ",", 1);
    j->need_comma[j->depth] = 1;
  }
}

static void open_(hk_json_t *j, const char *c)
{
  sep(j);
  puts_(j, c);
  j->depth++;
  if (j->depth < (int)sizeof j->need_comma)
    j->need_comma[j->depth] = 0;
}

static void close_(hk_json_t *j, const char *c)
{
  j->depth--;
  puts_(j, c);
}

void hk_json_obj_begin(hk_json_t *j) { open_(j, "{"); }
void hk_json_obj_end(hk_json_t *j) { close_(j, "}"); }
void hk_json_arr_begin(hk_json_t *j) { open_(j, "["); }
void hk_json_arr_end(hk_json_t *j) { close_(j, "]"); }

static void quoted(hk_json_t *j, const char *s)
{
  put(j, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char esc[8];
    switch (*p) {
    case '"': puts_(j, "\\\""); break;
    case '\\': puts_(j, "\\\\"); break;
    case '\n': puts_(j, "\\n"); break;
    case '\r': puts_(j, "\\r"); break;
    case '\t': puts_(j, "\\t"); break;
    default:
      if (*p < 0x20) {
        snprintf(esc, sizeof esc, "\\u%04x", *p);
        puts_(j, esc);
      } else {
        put(j, (const char *)p, 1);
      }
    }
  }
  put(j, "\"", 1);
}

void hk_json_key(hk_json_t *j, const char *key)
{
  sep(j);
  quoted(j, key);
  put(j, ":", 1);
  j->after_key = 1;
}

void hk_json_str(hk_json_t *j, const char *s)
{
  if (!s) {
    hk_json_null(j);
    return;
  }
  sep(j);
  quoted(j, s);
}

void hk_json_int(hk_json_t *j, long long v)
{
  char b[32];
  sep(j);
  snprintf(b, sizeof b, "%lld", v);
  puts_(j, b);
}

void hk_json_dbl(hk_json_t *j, double v)
{
  char b[40];
  if (!isfinite(v)) {
    hk_json_null(j);
    return;
  }
  sep(j);
  snprintf(b, sizeof b, "%.17g", v);
  /* keep it a JSON number that reads back as a float */
  if (!strpbrk(b, ".eE"))
    strcat(b, ".0");
  puts_(j, b);
}

void hk_json_bool(hk_json_t *j, int v)
{
  sep(j);
  puts_(j, v ? "true" : "false");
}

void hk_json_null(hk_json_t *j)
{
  sep(j);
  puts_(j, "null");
}

void hk_json_raw(hk_json_t *j, const char *fragment)
{
  sep(j);
  puts_(j, fragment);
}
