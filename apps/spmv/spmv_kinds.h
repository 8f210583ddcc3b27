/* apps/spmv/spmv_kinds.h: the record kinds hk-spmv writes, declared once
 * (spmv_kinds.c); their schemas are generated from it (python/src/hybridkit/schemas/). */
#ifndef SPMV_KINDS_H
#define SPMV_KINDS_H

#include "hybridkit.h"

extern const hk_kind_decl_t spmv_kind;    /* "spmv": one run of the timed multiplies */
extern const hk_kind_decl_t spmv_kind_cg; /* "spmv.cg": --solver cg */

#endif
