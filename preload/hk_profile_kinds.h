/* preload/hk_profile_kinds.h: the record kinds libhybridkit-profile.so writes,
 * declared once (hk_profile_kinds.c) for their schemas
 * (python/src/hybridkit/schemas/profile*.schema.json, tools/hk-kinds).  The library
 * writes its JSON itself (it runs inside programs that never call hk_init); the
 * tests validate what it writes against these schemas. */
#ifndef HK_PROFILE_KINDS_H
#define HK_PROFILE_KINDS_H

#include "hybridkit.h"

extern const hk_kind_decl_t hk_profile_kind;      /* "profile": one program run */
extern const hk_kind_decl_t hk_profile_site_kind; /* "profile.site": one MPI function at one call site */
extern const hk_kind_decl_t hk_profile_size_kind; /* "profile.size": one bin of a size histogram */

#endif
