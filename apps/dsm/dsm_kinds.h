/* apps/dsm/dsm_kinds.h: the record kind hk-dsm-heat writes, declared once (dsm_kinds.c). */
#ifndef DSM_KINDS_H
#define DSM_KINDS_H

#include "hybridkit.h"

extern const hk_kind_decl_t dsm_heat_kind; /* "dsm.heat": one run of the heat example */

#endif
