/* tools/topology_kinds.h: the record kind of hk-topology, declared once (topology_kinds.c). */
#ifndef HK_TOPOLOGY_KINDS_H
#define HK_TOPOLOGY_KINDS_H

#include "hybridkit/record.h"

extern const hk_kind_decl_t topology_kind_binding; /* "topology.binding" */

#endif
