/* hybridkit/kind_fields.h: shorthands for the tables that declare record kinds
 * (hk_kind_decl_t in hybridkit/record.h; apps/NAME/NAME_kinds.c, bench/bench_kinds.c,
 * preload/hk_profile_kinds.c).  Each row: {name, type, unit, ranks, phase, optional,
 * meaning}.  The short names are meant for a .c file that holds nothing but such
 * tables: include this header there only (hybridkit.h does not include it). */
#ifndef HYBRIDKIT_KIND_FIELDS_H
#define HYBRIDKIT_KIND_FIELDS_H

#include "hybridkit/record.h"

#define PI HK_FIELD_PARAM_INT
#define PD HK_FIELD_PARAM_DOUBLE
#define PS HK_FIELD_PARAM_STR
#define V HK_FIELD_VALUE
#define VI HK_FIELD_VALUE_INT
#define ST HK_FIELD_STATS
#define SAME HK_RANKS_SAME
#define RANKS HK_RANKS_MIN_AVG_MAX
#define GIVEN HK_RANKS_GIVEN
#define OPT 1

/* .fields and .nfields of a kind from a static array of fields */
#define HK_KIND_FIELDS(a) .fields = (a), .nfields = (int)(sizeof(a) / sizeof((a)[0]))

#endif
