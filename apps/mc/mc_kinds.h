/* apps/mc/mc_kinds.h: the record kind hk-mc writes, declared once (mc_kinds.c). */
#ifndef MC_KINDS_H
#define MC_KINDS_H

#include "hybridkit.h"

extern const hk_kind_decl_t mc_kind; /* "mc": one run */

#endif
