/* apps/mz/mz_kinds.h: the record kind hk-mz writes, declared once (mz_kinds.c). */
#ifndef MZ_KINDS_H
#define MZ_KINDS_H

#include "hybridkit.h"

extern const hk_kind_decl_t mz_kind; /* "mz": one run */

#endif
