/* tests/unit/cart_check.h: the checked planning steps test_cart.c and test_cart_maps.c
 * share (serial, no MPI_Init). */
#ifndef HK_TEST_CART_CHECK_H
#define HK_TEST_CART_CHECK_H
#include <stdlib.h>
#include "hk_test.h"
#include "hybridkit.h"

/* node_of[r] = r / per */
static inline int *nodes_of_blocks(int nranks, int per)
{
  int *n = malloc((size_t)nranks * sizeof *n);
  for (int r = 0; r < nranks; r++)
    n[r] = r / per;
  return n;
}

/* rank_of_pos is a permutation and node_of_pos follows it */
static inline void check_layout(const hk_cart_layout_t *l, const int *node_of)
{
  CHECK(l != NULL);
  if (!l)
    return;
  int *seen = calloc((size_t)l->nranks, sizeof *seen), ok = 1;
  for (int p = 0; p < l->nranks; p++) {
    int r = l->rank_of_pos[p];
    if (r < 0 || r >= l->nranks || seen[r]++) {
      ok = 0;
      continue;
    }
    if (l->node_of_pos[p] != node_of[r])
      ok = 0;
  }
  CHECK(ok);
  free(seen);
}

static inline hk_cart_layout_t *plan(const hk_cart_desc_t *d, int nranks, const int *node_of)
{
  hk_cart_layout_t *l = NULL;
  CHECK_EQ_INT(hk_cart_plan(d, nranks, node_of, &l), HK_SUCCESS);
  check_layout(l, node_of);
  return l;
}

static inline hk_cart_surface_t surface(const hk_cart_desc_t *d, const hk_cart_layout_t *l)
{
  hk_cart_surface_t s = {0};
  CHECK_EQ_INT(hk_cart_surface(d, l, &s), HK_SUCCESS);
  return s;
}

#endif
