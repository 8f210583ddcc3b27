/* apps/common/hk_kind_fields.h: shorthands for the tables that declare the apps'
 * record kinds (apps/NAME/NAME_kinds.c; hk_kind_decl_t in hybridkit/record.h).
 * Each row: {name, type, unit, ranks, phase, optional, meaning}. */
#ifndef HK_KIND_FIELDS_H
#define HK_KIND_FIELDS_H

#include "hybridkit.h"

#define PI HK_FIELD_PARAM_INT
#define PS HK_FIELD_PARAM_STR
#define V HK_FIELD_VALUE
#define VI HK_FIELD_VALUE_INT
#define ST HK_FIELD_STATS
#define SAME HK_RANKS_SAME
#define RANKS HK_RANKS_MIN_AVG_MAX
#define OPT 1

/* .fields and .nfields of a kind from a static array of fields */
#define HK_KIND_FIELDS(a) .fields = (a), .nfields = (int)(sizeof(a) / sizeof((a)[0]))

#endif
