/* src/internal/json.h: a small JSON writer (no parser is needed in C: records
 * are written here and read in Python).  Keys and values are appended in order;
 * commas are handled by the writer.  Non-finite doubles become null. */
#ifndef HK_JSON_H
#define HK_JSON_H

#include <stddef.h>

typedef struct hk_json {
  char *buf;
  size_t len, cap;
  int depth;
  int nomem;                 /* set when an allocation failed; output is then invalid */
  unsigned char need_comma[64];
  int after_key;
} hk_json_t;

void hk_json_init(hk_json_t *j);
void hk_json_free(hk_json_t *j);
void hk_json_obj_begin(hk_json_t *j);
void hk_json_obj_end(hk_json_t *j);
void hk_json_arr_begin(hk_json_t *j);
void hk_json_arr_end(hk_json_t *j);
void hk_json_key(hk_json_t *j, const char *key);
void hk_json_str(hk_json_t *j, const char *s);   /* NULL writes null */
void hk_json_int(hk_json_t *j, long long v);
void hk_json_dbl(hk_json_t *j, double v);
void hk_json_bool(hk_json_t *j, int v);
void hk_json_null(hk_json_t *j);
void hk_json_raw(hk_json_t *j, const char *fragment);  /* an already valid JSON value */

#endif
