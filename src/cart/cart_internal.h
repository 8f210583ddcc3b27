/* src/cart/cart_internal.h: what layout.c (decomposition, surfaces) and mapping.c (rank
 * mappings) share; never installed. */
#ifndef HK_CART_INTERNAL_H
#define HK_CART_INTERNAL_H

#include "internal/hk_internal.h"

/* The desc, checked and normalised (2D: z extent 1, procs[2] 1; w >= 1). */
typedef struct geom {
  int dims;
  long long global[3];
  int periodic[3];
  int procs[3];  /* all 0 when to be chosen */
  int w;
  hk_stencil_t stencil;
  int outer_first; /* ties: z split before y before x (else the larger Px) */
} geom_t;

/* the desc checked and normalised into *g (HK_ERR_ARG naming what is wrong) */
int hk__cart_geom_from_desc(const hk_cart_desc_t *d, geom_t *g);
/* "8x8" / "8x8x8" */
void hk__cart_fmt_int(char *buf, size_t len, int dims, const int v[3]);
/* Surface counts of a layout (node_of_pos over the procs of g); links is scratch of
 * nnodes ints. */
void hk__cart_surface_of(const geom_t *g, const int *node_of_pos, int nnodes, int *links,
                         hk_cart_surface_t *s);
/* l->rank_of_pos, node_of_pos (allocated), nnodes, map_used and note by l->map */
int hk__cart_map(const geom_t *g, const int *node_of_rank, hk_cart_layout_t *l);

#endif
