/* tests/mpi/test_cart.c: the Cartesian communicator of a map policy (--map NAME)
 * on real nodes or virtual ones (HK_NODE_SIZE).  For 2D and 3D grids, periodic
 * and not: the blocks tile the grid exactly, neighbours are symmetric and really
 * reachable (MPI_Sendrecv on the cart comm), cart rank == position, the node of
 * every cart rank is the hk_nodes node of the rank behind it, and the surface
 * counts agree with what the neighbour tables see.  Bad sizes must fail on every
 * rank with the same message.  Expectations come from the environment, so the
 * same binary serves every rank count and node grouping. */
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

#define NOFF 27 /* offsets {-1,0,1}^3, o = (dx+1) + 3(dy+1) + 9(dz+1); -d is 26 - o */

static int rank, size;
static hk_nodes_t *nodes;
static hk_cart_map_t map = HK_CART_MAP_SEQUENTIAL;

/* the node of a rank (cart or nodes), checking the call succeeds */
static int cart_node(const hk_cart_t *cart, int r)
{
  int node = -1;
  CHECK_EQ_INT(hk_cart_node_of(cart, r, &node), HK_SUCCESS);
  return node;
}

static int node_of(const hk_nodes_t *n, int r)
{
  int node = -1;
  CHECK_EQ_INT(hk_nodes_node_of(n, r, &node), HK_SUCCESS);
  return node;
}

static void offset_of(int o, int d[3])
{
  d[0] = o % 3 - 1;
  d[1] = o / 3 % 3 - 1;
  d[2] = o / 9 - 1;
}

static void coords_of(const int P[3], int r, int c[3])
{
  c[0] = r % P[0];
  c[1] = r / P[0] % P[1];
  c[2] = r / (P[0] * P[1]);
}

/* the neighbour table of cart rank r, computed here from coords */
static int expected_neighbor(const hk_cart_info_t *in, int r, const int d[3])
{
  int c[3];
  coords_of(in->procs, r, c);
  for (int i = 0; i < 3; i++) {
    if (i >= in->dims && d[i] != 0)
      return MPI_PROC_NULL;
    c[i] += d[i];
    if (c[i] < 0 || c[i] >= in->procs[i]) {
      if (!in->periodic[i])
        return MPI_PROC_NULL;
      c[i] = (c[i] + in->procs[i]) % in->procs[i];
    }
  }
  return c[0] + in->procs[0] * (c[1] + in->procs[1] * c[2]);
}

/* map_used and note expected from the node grouping */
static void check_policy(const hk_cart_t *cart, const hk_cart_info_t *in, const int *world_of)
{
  const hk_cart_layout_t *l = hk_cart_layout(cart);
  hk_nodes_info_t ni;
  CHECK_EQ_INT(hk_nodes_info(nodes, &ni), HK_SUCCESS);
  int *count = calloc((size_t)ni.nnodes, sizeof *count), equal = 1;
  for (int r = 0; r < size; r++)
    count[node_of(nodes, r)]++;
  for (int k = 1; k < ni.nnodes; k++)
    equal = equal && count[k] == count[0];
  free(count);
  CHECK_EQ_INT(l->map, map);
  CHECK_EQ_INT(in->map_used, l->map_used);
  CHECK(in->note == l->note);
  CHECK_EQ_INT(in->node, ni.node);
  CHECK_EQ_INT(in->nnodes, ni.nnodes);
  if (map == HK_CART_MAP_SEQUENTIAL || equal) {
    CHECK_EQ_INT(l->map_used, map);
    CHECK_STR(l->note, "");
  } else {
    CHECK_EQ_INT(l->map_used, HK_CART_MAP_SEQUENTIAL);
    CHECK_CONTAINS(l->note, "needs equal node sizes");
  }
  for (int r = 0; r < size; r++) {
    int c[3];
    coords_of(in->procs, r, c);
    if (l->map_used == HK_CART_MAP_SEQUENTIAL)
      CHECK_EQ_INT(world_of[r], r);
    else if (l->map_used == HK_CART_MAP_ROUND_ROBIN)
      CHECK_EQ_INT(cart_node(cart, r), r % ni.nnodes);
    else {
      const int *L = l->local_procs, *N = l->node_procs;
      CHECK_EQ_INT(cart_node(cart, r), c[0] / L[0] + N[0] * (c[1] / L[1] + N[1] * (c[2] / L[2])));
    }
  }
  if (l->map_used == HK_CART_MAP_NODE_AWARE)
    for (int i = 0; i < 3; i++)
      CHECK_EQ_INT(l->local_procs[i] * l->node_procs[i], in->procs[i]);
}

static void check_cart(const hk_cart_desc_t *d)
{
  hk_cart_t *cart = NULL;
  int err = hk_cart_create(MPI_COMM_WORLD, nodes, d, &cart);
  CHECK_EQ_INT(err, HK_SUCCESS);
  if (err != HK_SUCCESS) { /* agreed: every rank skips */
    if (rank == 0)
      fprintf(stderr, "hk_cart_create: %s\n", hk_error_message());
    return;
  }
  MPI_Comm comm = hk_cart_comm(cart);
  const hk_cart_layout_t *l = hk_cart_layout(cart);
  const hk_cart_desc_t *cd = hk_cart_desc(cart);
  hk_cart_info_t in;
  int crank = -1, csize = -1;
  MPI_Comm_rank(comm, &crank);
  MPI_Comm_size(comm, &csize);
  CHECK_EQ_INT(hk_cart_info(cart, &in), HK_SUCCESS);
  CHECK_EQ_INT(in.rank, crank);
  CHECK_EQ_INT(in.size, size);
  CHECK_EQ_INT(csize, size);
  CHECK_EQ_INT(in.dims, d->dims);
  CHECK_EQ_INT(l->rank_of_pos[crank], rank); /* cart rank == my position */
  CHECK_EQ_INT(in.procs[0] * in.procs[1] * in.procs[2], size);
  CHECK_EQ_INT(in.coords[0] + in.procs[0] * (in.coords[1] + in.procs[1] * in.coords[2]), crank);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(in.procs[i], l->procs[i]);
    CHECK_EQ_INT(cd->procs[i], l->procs[i]);
    CHECK(in.coords[i] >= 0 && in.coords[i] < in.procs[i]);
    CHECK_EQ_INT(in.global[i], i < d->dims ? d->global[i] : 1);
    CHECK_EQ_INT(in.periodic[i], i < d->dims ? d->periodic[i] : 0);
    if (d->procs[0])
      CHECK_EQ_INT(in.procs[i], i < d->dims ? d->procs[i] : 1);
  }
  if (d->dims == 2)
    CHECK(in.procs[2] == 1 && in.coords[2] == 0 && in.lo[2] == 0 && in.n[2] == 1);

  /* what every cart rank says about itself, in cart order */
  int mine[8] = {in.n[0], in.n[1], in.n[2], in.coords[0], in.coords[1], in.coords[2], rank, in.node};
  int *all = malloc((size_t)size * 8 * sizeof *all), *world_of = malloc((size_t)size * sizeof *world_of);
  long long *lo = malloc((size_t)size * 3 * sizeof *lo);
  MPI_Allgather(mine, 8, MPI_INT, all, 8, MPI_INT, comm);
  MPI_Allgather(in.lo, 3, MPI_LONG_LONG, lo, 3, MPI_LONG_LONG, comm);
  long long cells = in.global[0] * in.global[1] * in.global[2];
  char *cover = calloc((size_t)cells, 1);
  int overlap = 0;
  for (int r = 0; r < size; r++) {
    const int *a = all + 8 * r;
    int c[3], n[3];
    long long blo[3];
    world_of[r] = a[6];
    coords_of(in.procs, r, c);
    CHECK_EQ_INT(hk_cart_block(cart, r, blo, n), HK_SUCCESS);
    for (int i = 0; i < 3; i++) {
      long long elo;
      int en;
      hk_cart_block_range(in.global[i], in.procs[i], c[i], &elo, &en);
      CHECK_EQ_INT(a[3 + i], c[i]);
      CHECK_EQ_INT(a[i], en);
      CHECK_EQ_INT(lo[3 * r + i], elo);
      CHECK_EQ_INT(blo[i], elo);
      CHECK_EQ_INT(n[i], en);
    }
    CHECK_EQ_INT(l->rank_of_pos[r], a[6]);
    CHECK_EQ_INT(cart_node(cart, r), node_of(nodes, a[6]));
    CHECK_EQ_INT(a[7], node_of(nodes, a[6]));
    for (long long z = lo[3 * r + 2]; z < lo[3 * r + 2] + a[2]; z++)
      for (long long y = lo[3 * r + 1]; y < lo[3 * r + 1] + a[1]; y++)
        for (long long x = lo[3 * r]; x < lo[3 * r] + a[0]; x++) {
          long long cell = x + in.global[0] * (y + in.global[1] * z);
          if (cell < 0 || cell >= cells || cover[cell]++)
            overlap = 1;
        }
  }
  long long covered = 0;
  for (long long i = 0; i < cells; i++)
    covered += cover[i];
  CHECK(!overlap);
  CHECK_EQ_INT(covered, cells); /* every cell exactly once */
  int node = 0;
  CHECK_EQ_INT(hk_cart_node_of(cart, -1, &node), HK_ERR_ARG);
  CHECK_EQ_INT(hk_cart_node_of(cart, size, &node), HK_ERR_ARG);
  CHECK_EQ_INT(hk_cart_neighbor(cart, (int[3]){2, 0, 0}, &node), HK_ERR_ARG);
  long long blo[3];
  int bn[3];
  CHECK_EQ_INT(hk_cart_block(cart, size, blo, bn), HK_ERR_ARG);
  check_policy(cart, &in, world_of);

  /* neighbours: from coords, symmetric over all tables, reachable by messages */
  int nb[NOFF], *nbs = malloc((size_t)size * NOFF * sizeof *nbs), sym = 1, reach = 1;
  for (int o = 0; o < NOFF; o++) {
    int dd[3];
    offset_of(o, dd);
    CHECK_EQ_INT(hk_cart_neighbor(cart, dd, &nb[o]), HK_SUCCESS);
    CHECK_EQ_INT(nb[o], expected_neighbor(&in, crank, dd));
  }
  CHECK_EQ_INT(nb[13], crank); /* offset 0 0 0 */
  MPI_Allgather(nb, NOFF, MPI_INT, nbs, NOFF, MPI_INT, comm);
  for (int r = 0; r < size; r++)
    for (int o = 0; o < NOFF; o++) {
      int q = nbs[NOFF * r + o];
      if (q != MPI_PROC_NULL && (q < 0 || q >= size || nbs[NOFF * q + NOFF - 1 - o] != r))
        sym = 0;
    }
  CHECK(sym);
  for (int o = 0; o < NOFF; o++) {
    int got = -7;
    MPI_Sendrecv(&crank, 1, MPI_INT, nb[o], o, &got, 1, MPI_INT, nb[NOFF - 1 - o], o, comm,
                 MPI_STATUS_IGNORE);
    if (nb[NOFF - 1 - o] != MPI_PROC_NULL && got != nb[NOFF - 1 - o])
      reach = 0;
  }
  CHECK(reach);

  /* surface counts == what the neighbour tables see */
  hk_cart_surface_t s;
  CHECK_EQ_INT(hk_cart_surface(cd, l, &s), HK_SUCCESS);
  long long seen[6] = {0}, sum[6];
  for (int o = 0; o < NOFF; o++) {
    int dd[3], nonzero = 0;
    long long bytes = 8;
    offset_of(o, dd);
    for (int i = 0; i < 3; i++) {
      nonzero += dd[i] != 0;
      if (i < d->dims)
        bytes *= dd[i] == 0 ? in.n[i] : cd->halo_width;
    }
    if (nonzero == 0 || nb[o] == MPI_PROC_NULL || (cd->stencil == HK_STENCIL_FACES && nonzero > 1))
      continue;
    int k = nb[o] == crank ? 2 : cart_node(cart, nb[o]) == in.node ? 1 : 0;
    seen[k] += bytes;
    seen[3 + k]++;
  }
  MPI_Allreduce(seen, sum, 6, MPI_LONG_LONG, MPI_SUM, comm);
  CHECK_EQ_INT(sum[0], s.inter_bytes);
  CHECK_EQ_INT(sum[1], s.intra_bytes);
  CHECK_EQ_INT(sum[2], s.self_bytes);
  CHECK_EQ_INT(sum[3], s.inter_msgs);
  CHECK_EQ_INT(sum[4], s.intra_msgs);
  CHECK_EQ_INT(sum[5], s.self_msgs);

  free(all);
  free(world_of);
  free(lo);
  free(cover);
  free(nbs);
  CHECK_EQ_INT(hk_cart_destroy(&cart), HK_SUCCESS);
  CHECK(cart == NULL);
}

/* an error every rank must see, with the same message containing `want` */
static void check_agreed(const hk_cart_desc_t *d, int expect, const char *want)
{
  hk_cart_t *cart = NULL;
  hk_error_clear();
  int err = hk_cart_create(MPI_COMM_WORLD, nodes, d, &cart);
  CHECK_EQ_INT(err, expect);
  if (expect == HK_SUCCESS) {
    CHECK_EQ_INT(hk_cart_destroy(&cart), HK_SUCCESS);
    return;
  }
  CHECK(cart == NULL);
  CHECK_CONTAINS(hk_error_message(), want);
  char msg[512] = "", *msgs = malloc((size_t)size * sizeof msg);
  snprintf(msg, sizeof msg, "%s", hk_error_message());
  MPI_Allgather(msg, (int)sizeof msg, MPI_CHAR, msgs, (int)sizeof msg, MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++)
    CHECK_STR(msgs + r * sizeof msg, msg);
  free(msgs);
}

static void check_errors(void)
{
  char want[160];
  /* 2x2 cells with halo width 2: only one rank fits */
  hk_cart_desc_t d = {.dims = 2, .global = {2, 2}, .map = map, .halo_width = 2};
  snprintf(want, sizeof want, "no process grid of %d ranks fits grid 2x2 with halo width 2", size);
  check_agreed(&d, size == 1 ? HK_SUCCESS : HK_ERR_ARG, want);
  /* explicit procs: too many, and too small for the halo */
  d.global[0] = d.global[1] = 8;
  d.procs[0] = size + 1;
  d.procs[1] = 1;
  snprintf(want, sizeof want, "procs %dx1 make %d ranks, not %d", size + 1, size + 1, size);
  check_agreed(&d, HK_ERR_ARG, want);
  d.global[0] = 2 * size - 1;
  d.procs[0] = size;
  snprintf(want, sizeof want, "grid %dx8 is too small for %dx1 ranks with halo width 2 (blocks of 1x8 cells)",
           2 * size - 1, size);
  check_agreed(&d, size == 1 ? HK_SUCCESS : HK_ERR_ARG, want); /* one block needs nothing */
  /* only the last rank passes a bad desc: all fail, naming it */
  hk_cart_desc_t ok = {.dims = 3, .global = {6, 6, 6}, .map = map}, bad = ok;
  bad.dims = 4;
  check_agreed(rank == size - 1 ? &bad : &ok, HK_ERR_ARG, "dims is 4: must be 2 or 3");
  snprintf(want, sizeof want, "rank %d: ", size - 1);
  if (size > 1)
    CHECK(strncmp(hk_error_message(), want, strlen(want)) == 0);
  /* valid but different descs */
  if (size > 1) {
    hk_cart_desc_t other = ok;
    other.global[0] = 7;
    check_agreed(rank == 0 ? &other : &ok, HK_ERR_ARG, "the ranks passed different descriptions");
  }
  check_agreed(NULL, HK_ERR_ARG, "desc and cart must not be NULL");
}

int main(int argc, char **argv)
{
  hk_init(&argc, &argv, HK_THREAD_MASTERONLY);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--map") == 0)
      CHECK_EQ_INT(hk_cart_map_parse(argv[++i], &map), HK_SUCCESS);
  CHECK_EQ_INT(hk_nodes_create(MPI_COMM_WORLD, &nodes), HK_SUCCESS);
  if (nodes) {
    /* uneven blocks at 2, 3 and 4 ranks; chosen and given process grids */
    hk_cart_desc_t d2 = {.dims = 2, .global = {13, 7}, .map = map, .halo_width = 1};
    check_cart(&d2);
    d2.periodic[0] = d2.periodic[1] = 1;
    d2.stencil = HK_STENCIL_FULL;
    d2.halo_width = 2;
    check_cart(&d2);
    d2.periodic[1] = 0;
    d2.procs[0] = 1; /* periodic in x with one block: self neighbours */
    d2.procs[1] = size;
    d2.halo_width = 1;
    check_cart(&d2);
    hk_cart_desc_t d3 = {.dims = 3, .global = {9, 7, 5}, .map = map, .halo_width = 1};
    check_cart(&d3);
    d3.periodic[0] = d3.periodic[1] = d3.periodic[2] = 1;
    d3.stencil = HK_STENCIL_FULL;
    check_cart(&d3);
    d3.procs[0] = d3.procs[1] = 1;
    d3.procs[2] = size;
    d3.periodic[2] = 0;
    check_cart(&d3);
    /* nodes NULL: made from comm (the same grouping) */
    hk_cart_t *cart = NULL;
    CHECK_EQ_INT(hk_cart_create(MPI_COMM_WORLD, NULL, &d3, &cart), HK_SUCCESS);
    for (int r = 0; cart && r < size; r++)
      CHECK_EQ_INT(cart_node(cart, r),
                   node_of(nodes, hk_cart_layout(cart)->rank_of_pos[r]));
    CHECK_EQ_INT(hk_cart_destroy(&cart), HK_SUCCESS);
    check_errors();
    CHECK_EQ_INT(hk_nodes_destroy(&nodes), HK_SUCCESS);
  }
  int rc = hk_test_mpi_report("test_cart");
  hk_finalize();
  return rc;
}
