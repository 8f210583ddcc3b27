/* src/cart/cart.c: the Cartesian communicator of a layout.
 *
 * Every rank plans the same layout from the same desc and the node of every
 * rank (hk_nodes), then MPI_Comm_split(comm, 0, position) renumbers the ranks
 * so that cart rank == position.  Planning errors are agreed, so a bad size
 * gives every rank the same code and message instead of a hang.
 *
 *   8 ranks on 2 nodes of 4, procs 4x2, node-aware (local grid 2x2):
 *     position (y up)    comm rank holding it    node
 *        4 5 6 7              2 3 6 7            0 0 1 1
 *        0 1 2 3              0 1 4 5            0 0 1 1
 */
#include <stdlib.h>
#include <string.h>
#include "internal/hk_internal.h"

struct hk_cart {
  MPI_Comm comm;              /* ranks numbered by position */
  hk_cart_desc_t desc;        /* as given, with the chosen procs and halo width filled in */
  hk_cart_layout_t *layout;
  int rank;                   /* position of this rank */
};

static void coords_of(const int procs[3], int p, int c[3])
{
  c[0] = p % procs[0];
  c[1] = (p / procs[0]) % procs[1];
  c[2] = p / (procs[0] * procs[1]);
}

/* node_of[r] = the node of rank r of the size ranks */
static int nodes_of_ranks(const hk_nodes_t *nodes, int size, int *node_of)
{
  for (int r = 0; r < size; r++) {
    node_of[r] = hk__nodes_node_of(nodes, r);
    if (node_of[r] < 0)
      return HK_ERROR(HK_ERR_ARG, "nodes has no node for rank %d of %d (made for another comm?)",
                      r, size);
  }
  return HK_SUCCESS;
}

/* FNV-1a over a buffer, to compare layouts between ranks. */
static unsigned long long hash_bytes(unsigned long long h, const void *buf, size_t len)
{
  const unsigned char *b = buf;
  for (size_t i = 0; i < len; i++)
    h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

/* the desc as used: chosen procs, 2D z extent 1, periodic 0/1, halo width >= 1 */
static hk_cart_desc_t desc_used(const hk_cart_desc_t *desc, const hk_cart_layout_t *layout)
{
  hk_cart_desc_t used = *desc;
  for (int i = 0; i < 3; i++) {
    used.procs[i] = layout->procs[i];
    used.periodic[i] = i < desc->dims && desc->periodic[i] != 0;
    if (i >= desc->dims)
      used.global[i] = 1;
  }
  if (used.halo_width < 1)
    used.halo_width = 1;
  return used;
}

/* Every rank must have planned the same layout (same desc everywhere): the min over ranks
 * of (hash, ~hash) is a pair only when all hashes are equal.  Collective: comm; the result
 * is the same on every rank. */
static int same_layout(MPI_Comm comm, int size, const hk_cart_layout_t *layout,
                       const hk_cart_desc_t *used)
{
  int err = HK_SUCCESS;
  unsigned long long h = 14695981039346656037ULL, both[2], agreed[2];
  h = hash_bytes(h, layout->rank_of_pos, (size_t)size * sizeof *layout->rank_of_pos);
  h = hash_bytes(h, used->procs, sizeof used->procs);
  h = hash_bytes(h, used->global, sizeof used->global);
  h = hash_bytes(h, used->periodic, sizeof used->periodic);
  h = hash_bytes(h, &used->halo_width, sizeof used->halo_width);
  both[0] = h;
  both[1] = ~h;
  HK_MPI_TRY(err, MPI_Allreduce(both, agreed, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm));
  if (agreed[0] != ~agreed[1])
    err = HK_ERROR(HK_ERR_ARG, "the ranks passed different descriptions (their layouts differ)");
cleanup:
  return err;
}

int hk_cart_create(MPI_Comm comm, const hk_nodes_t *nodes, const hk_cart_desc_t *desc,
                   hk_cart_t **cart)
{
  int err = HK_SUCCESS, rank = 0, size = 0, *node_of = NULL;
  hk_nodes_t *own = NULL;
  hk_cart_layout_t *layout = NULL;
  hk_cart_t *c = NULL;
  if (cart)
    *cart = NULL;
  if (comm == MPI_COMM_NULL)
    return HK_ERROR(HK_ERR_ARG, "comm is MPI_COMM_NULL");
  HK_MPI_TRY(err, MPI_Comm_rank(comm, &rank));
  HK_MPI_TRY(err, MPI_Comm_size(comm, &size));
  if (!cart || !desc)
    err = HK_ERROR(HK_ERR_ARG, "desc and cart must not be NULL");
  HK_AGREE(err, comm);
  if (!nodes) {
    HK_TRY(err, hk_nodes_create(comm, &own));
    nodes = own;
  }
  HK_ALLOC_LOCAL(err, node_of, size);
  HK_LOCAL(err, nodes_of_ranks(nodes, size, node_of));
  HK_LOCAL(err, hk_cart_plan(desc, size, node_of, &layout));
  HK_ALLOC_LOCAL(err, c, 1);
  if (c)
    c->comm = MPI_COMM_NULL;
  HK_AGREE(err, comm);

  c->desc = desc_used(desc, layout);
  HK_TRY(err, same_layout(comm, size, layout, &c->desc));
  int pos = -1;
  for (int p = 0; p < size; p++)
    if (layout->rank_of_pos[p] == rank)
      pos = p;
  HK_MPI_TRY(err, MPI_Comm_split(comm, 0, pos, &c->comm));
  HK_MPI_TRY(err, MPI_Comm_rank(c->comm, &c->rank));
  if (c->rank != pos) {
    err = HK_ERROR(HK_ERR_MPI, "MPI_Comm_split gave rank %d to position %d", c->rank, pos);
    goto cleanup;
  }
  c->layout = layout;
  layout = NULL;
  *cart = c;
  c = NULL;
cleanup:
  if (c) {
    if (c->comm != MPI_COMM_NULL)
      MPI_Comm_free(&c->comm);
    free(c);
  }
  hk_cart_layout_destroy(&layout);
  free(node_of);
  if (own) {
    int e = hk_nodes_destroy(&own);
    HK_LOCAL(err, e);
  }
  return err;
}

int hk_cart_destroy(hk_cart_t **cart)
{
  int err = HK_SUCCESS;
  if (!cart || !*cart)
    return HK_SUCCESS;
  if ((*cart)->comm != MPI_COMM_NULL)
    HK_MPI_TRY(err, MPI_Comm_free(&(*cart)->comm));
cleanup:
  hk_cart_layout_destroy(&(*cart)->layout);
  free(*cart);
  *cart = NULL;
  return err;
}

MPI_Comm hk_cart_comm(const hk_cart_t *cart) { return cart ? cart->comm : MPI_COMM_NULL; }

const hk_cart_layout_t *hk_cart_layout(const hk_cart_t *cart)
{
  return cart ? cart->layout : NULL;
}

const hk_cart_desc_t *hk_cart_desc(const hk_cart_t *cart) { return cart ? &cart->desc : NULL; }

int hk_cart_block(const hk_cart_t *cart, int cart_rank, long long lo[3], int n[3])
{
  if (!cart || !lo || !n)
    return HK_ERROR(HK_ERR_ARG, "cart, lo and n must not be NULL");
  if (cart_rank < 0 || cart_rank >= cart->layout->nranks)
    return HK_ERROR(HK_ERR_ARG, "cart rank %d: must be in 0..%d", cart_rank,
                    cart->layout->nranks - 1);
  int c[3];
  coords_of(cart->layout->procs, cart_rank, c);
  for (int i = 0; i < 3; i++)
    hk_cart_block_range(cart->desc.global[i], cart->layout->procs[i], c[i], &lo[i], &n[i]);
  return HK_SUCCESS;
}

int hk_cart_info(const hk_cart_t *cart, hk_cart_info_t *info)
{
  if (!cart || !info)
    return HK_ERROR(HK_ERR_ARG, "cart and info must not be NULL");
  const hk_cart_layout_t *l = cart->layout;
  memset(info, 0, sizeof *info);
  info->dims = l->dims;
  info->rank = cart->rank;
  info->size = l->nranks;
  coords_of(l->procs, cart->rank, info->coords);
  for (int i = 0; i < 3; i++) {
    info->procs[i] = l->procs[i];
    info->periodic[i] = cart->desc.periodic[i];
    info->global[i] = cart->desc.global[i];
  }
  hk_cart_block(cart, cart->rank, info->lo, info->n);
  info->node = l->node_of_pos[cart->rank];
  info->nnodes = l->nnodes;
  info->map_used = l->map_used;
  info->note = l->note;
  return HK_SUCCESS;
}

int hk__cart_neighbor(const hk_cart_t *cart, const int offset[3])
{
  if (!cart || !offset)
    return MPI_PROC_NULL;
  const int *P = cart->layout->procs;
  int c[3];
  coords_of(P, cart->rank, c);
  for (int i = 0; i < 3; i++) {
    if (offset[i] < -1 || offset[i] > 1 || (i >= cart->layout->dims && offset[i] != 0))
      return MPI_PROC_NULL;
    c[i] += offset[i];
    if (c[i] < 0 || c[i] >= P[i]) {
      if (!cart->desc.periodic[i])
        return MPI_PROC_NULL;
      c[i] = (c[i] + P[i]) % P[i];
    }
  }
  return c[0] + P[0] * (c[1] + P[1] * c[2]);
}

int hk__cart_node_of(const hk_cart_t *cart, int cart_rank)
{
  if (!cart || cart_rank < 0 || cart_rank >= cart->layout->nranks)
    return -1;
  return cart->layout->node_of_pos[cart_rank];
}

int hk_cart_neighbor(const hk_cart_t *cart, const int offset[3], int *rank)
{
  if (!cart || !offset || !rank)
    return HK_ERROR(HK_ERR_ARG, "cart, offset and rank must not be NULL");
  for (int i = 0; i < 3; i++)
    if (offset[i] < -1 || offset[i] > 1)
      return HK_ERROR(HK_ERR_ARG, "offset %d %d %d: each must be -1, 0 or 1", offset[0], offset[1],
                      offset[2]);
  *rank = hk__cart_neighbor(cart, offset);
  return HK_SUCCESS;
}

int hk_cart_node_of(const hk_cart_t *cart, int cart_rank, int *node)
{
  if (!cart || !node)
    return HK_ERROR(HK_ERR_ARG, "cart and node must not be NULL");
  if (cart_rank < 0 || cart_rank >= cart->layout->nranks)
    return HK_ERROR(HK_ERR_ARG, "cart rank %d is not in 0..%d", cart_rank, cart->layout->nranks - 1);
  *node = hk__cart_node_of(cart, cart_rank);
  return HK_SUCCESS;
}
