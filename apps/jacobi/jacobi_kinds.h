/* apps/jacobi/jacobi_kinds.h: the record kinds hk-jacobi writes, declared once
 * (jacobi_kinds.c); their schemas are generated from it (python/src/hybridkit/schemas/). */
#ifndef JACOBI_KINDS_H
#define JACOBI_KINDS_H

#include "hybridkit.h"

extern const hk_kind_decl_t jac_kind_run;      /* "jacobi": one run */
extern const hk_kind_decl_t jac_kind_exchange; /* "jacobi.exchange": --compare-sendrecv */

#endif
