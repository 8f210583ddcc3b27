/* tests/unit/test_cart.c: block ranges, process grid choice, the fallbacks of
 * the mappings, input checks and self neighbours (serial, no MPI_Init); the
 * mappings' surface counts on the tutorial's example are in test_cart_maps.c. */
#include "cart_check.h"

static void test_names(void)
{
  hk_cart_map_t m = HK_CART_MAP_SEQUENTIAL;
  CHECK_STR(hk_cart_map_name(HK_CART_MAP_ROUND_ROBIN), "round-robin");
  CHECK_STR(hk_cart_map_name((hk_cart_map_t)7), "invalid");
  CHECK_EQ_INT(hk_cart_map_parse("node-aware", &m), HK_SUCCESS);
  CHECK_EQ_INT(m, HK_CART_MAP_NODE_AWARE);
  CHECK_EQ_INT(hk_cart_map_parse("sequential", &m), HK_SUCCESS);
  CHECK_EQ_INT(m, HK_CART_MAP_SEQUENTIAL);
  CHECK_EQ_INT(hk_cart_map_parse("nodecart", &m), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "unknown map policy 'nodecart'");
}

static void test_block_range(void)
{
  long long lo = -1;
  int n = -1;
  const int n10[] = {4, 3, 3};
  const long long lo10[] = {0, 4, 7};
  for (int i = 0; i < 3; i++) {
    hk_cart_block_range(10, 3, i, &lo, &n);
    CHECK_EQ_INT(lo, lo10[i]);
    CHECK_EQ_INT(n, n10[i]);
  }
  for (int i = 0; i < 7; i++) {
    hk_cart_block_range(7, 7, i, &lo, &n);
    CHECK_EQ_INT(lo, i);
    CHECK_EQ_INT(n, 1);
  }
  hk_cart_block_range(5, 1, 0, &lo, &n);
  CHECK_EQ_INT(lo, 0);
  CHECK_EQ_INT(n, 5);
  /* blocks tile: each starts where the previous ended, the last ends at N */
  long long end = 0;
  for (int i = 0; i < 13; i++) {
    hk_cart_block_range(1000003, 13, i, &lo, &n);
    CHECK_EQ_INT(lo, end);
    end = lo + n;
  }
  CHECK_EQ_INT(end, 1000003);
}

static void test_fallbacks(void)
{
  const int uneven[4] = {0, 0, 0, 1};
  hk_cart_desc_t d = {.dims = 2, .global = {8, 8}, .procs = {2, 2}, .map = HK_CART_MAP_ROUND_ROBIN};
  hk_cart_layout_t *l = plan(&d, 4, uneven);
  CHECK_EQ_INT(l->map, HK_CART_MAP_ROUND_ROBIN);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_SEQUENTIAL);
  CHECK_STR(l->note, "round-robin needs equal node sizes (3, 1): using sequential");
  for (int p = 0; p < 4; p++)
    CHECK_EQ_INT(l->rank_of_pos[p], p);
  hk_cart_layout_destroy(&l);
  /* 3 ranks per node cannot tile a 2x2 grid: node sizes 3 and 1 */
  d.map = HK_CART_MAP_NODE_AWARE;
  l = plan(&d, 4, uneven);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_SEQUENTIAL);
  CHECK_STR(l->note, "node-aware needs equal node sizes (3, 1): using sequential");
  CHECK_EQ_INT(l->node_procs[0], 0);
  CHECK_EQ_INT(l->local_procs[0], 0);
  CHECK_EQ_INT(l->nnodes, 2);
  hk_cart_layout_destroy(&l);
  /* 3 ranks per node do fit a 2x3 grid: each node is a 1x3 column */
  int *node_of = nodes_of_blocks(6, 3);
  d.global[0] = 8;
  d.global[1] = 9;
  d.procs[0] = 2;
  d.procs[1] = 3;
  l = plan(&d, 6, node_of);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_NODE_AWARE);
  CHECK_STR(l->note, "");
  CHECK_EQ_INT(l->local_procs[0], 1);
  CHECK_EQ_INT(l->local_procs[1], 3);
  hk_cart_layout_destroy(&l);
  free(node_of);
  /* a node id with no rank (gap) makes the sizes unequal too */
  const int gap[4] = {0, 0, 2, 2};
  d.procs[0] = d.procs[1] = 2;
  l = plan(&d, 4, gap);
  CHECK_EQ_INT(l->nnodes, 3);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_SEQUENTIAL);
  CHECK_STR(l->note, "node-aware needs equal node sizes (2, 0, 2): using sequential");
  hk_cart_layout_destroy(&l);
}

static void test_auto_procs(void)
{
  int *one = calloc(12, sizeof *one);
  /* 12 ranks on 120x60: 6x2 (blocks 20x30) and 4x3 (30x20) both have 840 cells
   * of face; the tie goes to the larger Px */
  hk_cart_desc_t d = {.dims = 2, .global = {120, 60}, .halo_width = 1};
  hk_cart_layout_t *l = plan(&d, 12, one);
  CHECK_EQ_INT(l->procs[0], 6);
  CHECK_EQ_INT(l->procs[1], 2);
  CHECK_EQ_INT(l->procs[2], 1);
  hk_cart_surface_t s = surface(&d, l);
  CHECK_EQ_INT(s.intra_bytes, 840 * 8);
  CHECK_EQ_INT(s.inter_bytes, 0);
  hk_cart_layout_destroy(&l);
  d.procs[0] = 4;
  d.procs[1] = 3;
  l = plan(&d, 12, one);
  s = surface(&d, l);
  CHECK_EQ_INT(s.intra_bytes, 840 * 8);
  hk_cart_layout_destroy(&l);
  d.procs[0] = 12;
  d.procs[1] = 1;
  l = plan(&d, 12, one);
  s = surface(&d, l);
  CHECK_EQ_INT(s.intra_bytes, 1320 * 8);
  hk_cart_layout_destroy(&l);
  /* 7 ranks (prime) on 70x70: 7x1 (and 1x7) are the only grids */
  d.procs[0] = d.procs[1] = 0;
  d.global[0] = d.global[1] = 70;
  l = plan(&d, 7, one);
  CHECK_EQ_INT(l->procs[0], 7);
  CHECK_EQ_INT(l->procs[1], 1);
  hk_cart_layout_destroy(&l);
  /* uneven blocks: 7 ranks on 73x70 still 7x1 (the cheaper cut) */
  d.global[0] = 73;
  l = plan(&d, 7, one);
  CHECK_EQ_INT(l->procs[0], 7);
  hk_cart_layout_destroy(&l);
  /* a grid long in y: 1x4 */
  d.global[0] = 10;
  d.global[1] = 400;
  l = plan(&d, 4, one);
  CHECK_EQ_INT(l->procs[0], 1);
  CHECK_EQ_INT(l->procs[1], 4);
  hk_cart_layout_destroy(&l);
  /* outer_first: of the grids with least surface, the one splitting z, then y, before x.
   * 2 ranks on 256^3 periodic: 2x1x1, 1x2x1 and 1x1x2 all have 2 x 2 faces of 256^2 cells;
   * 4 ranks on 12^3 (Dirichlet): 2x2x1, 2x1x2 and 1x2x2 have 4 faces of 144 cells, 4x1x1 6 */
  hk_cart_desc_t dz = {.dims = 3, .global = {256, 256, 256}, .periodic = {1, 1, 1}};
  const int zwant[2][2][3] = {{{2, 1, 1}, {2, 2, 1}}, {{1, 1, 2}, {1, 2, 2}}};
  for (int of = 0; of < 2; of++)
    for (int c = 0; c < 2; c++) {
      dz.outer_first = of;
      dz.global[0] = dz.global[1] = dz.global[2] = c ? 12 : 256;
      dz.periodic[0] = dz.periodic[1] = dz.periodic[2] = !c;
      l = plan(&dz, c ? 4 : 2, one);
      for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(l->procs[i], zwant[of][c][i]);
      hk_cart_layout_destroy(&l);
    }
  /* no tie, no change: a grid long in x is still cut in x (7 ranks on 73x70 above too) */
  dz.outer_first = 1;
  dz.global[0] = 400;
  dz.global[1] = dz.global[2] = 10;
  l = plan(&dz, 4, one);
  CHECK_EQ_INT(l->procs[0], 4);
  hk_cart_layout_destroy(&l);
  /* 3D: 8 ranks on 32^3 -> 2x2x2 */
  hk_cart_desc_t d3 = {.dims = 3, .global = {32, 32, 32}};
  l = plan(&d3, 8, one);
  CHECK_EQ_INT(l->procs[0], 2);
  CHECK_EQ_INT(l->procs[1], 2);
  CHECK_EQ_INT(l->procs[2], 2);
  hk_cart_layout_destroy(&l);
  /* a narrow grid, 4 ranks on 5x100 with halo width 3: 1x4 is the cheapest and
   * the only grid that fits (2x2 and 4x1 give blocks 2 and 1 cells wide) */
  d3.dims = 2;
  d3.global[0] = 5;
  d3.global[1] = 100;
  d3.global[2] = 1;
  d3.halo_width = 3;
  l = plan(&d3, 4, one);
  CHECK_EQ_INT(l->procs[0], 1);
  CHECK_EQ_INT(l->procs[1], 4);
  hk_cart_layout_destroy(&l);
  free(one);
}

static void expect_arg(const hk_cart_desc_t *d, int nranks, const int *node_of, const char *msg)
{
  static hk_cart_layout_t sentinel;
  hk_cart_layout_t *l = &sentinel; /* must be reset to NULL */
  CHECK_EQ_INT(hk_cart_plan(d, nranks, node_of, &l), HK_ERR_ARG);
  CHECK(l == NULL);
  CHECK_CONTAINS(hk_error_message(), msg);
}

static void test_bad_input(void)
{
  int *one = calloc(16, sizeof *one);
  hk_cart_desc_t d = {.dims = 4, .global = {8, 8, 8}};
  expect_arg(&d, 4, one, "dims is 4: must be 2 or 3");
  d.dims = 2;
  d.global[1] = 0;
  expect_arg(&d, 4, one, "global extent 0 in y: must be >= 1");
  d.global[1] = 8;
  d.global[2] = 5;
  expect_arg(&d, 4, one, "global extent 5 in z: must be 1 in 2D");
  d.global[2] = 1;
  d.procs[0] = d.procs[1] = 4;
  expect_arg(&d, 12, one, "procs 4x4 make 16 ranks, not 12");
  d.procs[0] = 16;
  d.procs[1] = 1;
  d.halo_width = 1;
  expect_arg(&d, 16, one, "grid 8x8 is too small for 16x1 ranks with halo width 1 (blocks of 0x8 cells)");
  d.global[0] = d.global[1] = 4;
  d.procs[0] = d.procs[1] = 2;
  d.halo_width = 3;
  expect_arg(&d, 4, one, "grid 4x4 is too small for 2x2 ranks with halo width 3 (blocks of 2x2 cells)");
  d.halo_width = 2; /* blocks of 2 cells: fits */
  hk_cart_layout_t *l = plan(&d, 4, one);
  hk_cart_layout_destroy(&l);
  d.procs[1] = 0;
  expect_arg(&d, 4, one, "procs 2x0: procs must be all 0 or all given");
  hk_cart_desc_t d3 = {.dims = 3, .global = {8, 8, 8}, .procs = {2, 2, 0}};
  expect_arg(&d3, 4, one, "procs 2x2x0: procs must be all 0 or all given");
  d.procs[0] = 0;
  d.global[0] = d.global[1] = 8;
  d.halo_width = 3;
  expect_arg(&d, 16, one, "no process grid of 16 ranks fits grid 8x8 with halo width 3");
  d.halo_width = -1;
  expect_arg(&d, 4, one, "halo width -1");
  d.halo_width = 1;
  const int bad_node[2] = {0, -1};
  expect_arg(&d, 2, bad_node, "node -1 of rank 1");
  expect_arg(&d, 0, one, "0 ranks");
  CHECK_EQ_INT(hk_cart_plan(&d, 4, one, NULL), HK_ERR_ARG);
  /* surface of a layout with a desc of other procs */
  d.procs[0] = d.procs[1] = 2;
  l = plan(&d, 4, one);
  hk_cart_surface_t s;
  d.procs[0] = 4;
  d.procs[1] = 1;
  CHECK_EQ_INT(hk_cart_surface(&d, l, &s), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "desc procs 4x1 differ from the layout's 2x2");
  hk_cart_layout_destroy(&l);
  free(one);
}

/* one rank, periodic: all its neighbours are itself */
static void test_self(void)
{
  const int node0[1] = {0};
  hk_cart_desc_t d = {.dims = 2, .global = {10, 10}, .periodic = {1, 1}, .halo_width = 1,
                      .stencil = HK_STENCIL_FACES};
  hk_cart_layout_t *l = plan(&d, 1, node0);
  CHECK_EQ_INT(l->procs[0], 1);
  hk_cart_surface_t s = surface(&d, l);
  CHECK_EQ_INT(s.self_msgs, 4);
  CHECK_EQ_INT(s.self_bytes, 4 * 10 * 8);
  CHECK_EQ_INT(s.intra_msgs + s.inter_msgs, 0);
  CHECK_EQ_INT(s.max_node_links, 0);
  d.stencil = HK_STENCIL_FULL;
  s = surface(&d, l);
  CHECK_EQ_INT(s.self_msgs, 8);
  CHECK_EQ_INT(s.self_bytes, 4 * 10 * 8 + 4 * 8); /* 4 faces + 4 corners of 1 cell */
  d.periodic[1] = 0;
  s = surface(&d, l);
  CHECK_EQ_INT(s.self_msgs, 2);
  hk_cart_layout_destroy(&l);
  /* full stencil, width 2, 3D, 2 ranks periodic in x only: a 2x1x1 grid of
   * 4x3x5 blocks; each rank's x neighbours (both ways) are the other rank */
  const int nodes[2] = {0, 1};
  hk_cart_desc_t d3 = {.dims = 3, .global = {8, 3, 5}, .periodic = {1, 0, 0}, .procs = {2, 1, 1},
                       .halo_width = 2, .stencil = HK_STENCIL_FULL};
  l = plan(&d3, 2, nodes);
  s = surface(&d3, l);
  /* per rank: 2 x faces of 3*5*2 cells only (y and z have no neighbours) */
  CHECK_EQ_INT(s.inter_msgs, 4);
  CHECK_EQ_INT(s.inter_bytes, 4 * 3 * 5 * 2 * 8);
  CHECK_EQ_INT(s.max_node_links, 2);
  d3.periodic[1] = d3.periodic[2] = 1;
  s = surface(&d3, l);
  /* all 26 offsets exist; those with dx = 0 are self (8 per rank), the 18 others
   * go to the other rank */
  CHECK_EQ_INT(s.self_msgs, 16);
  CHECK_EQ_INT(s.inter_msgs, 36);
  /* self: y faces 4*2*5 (x2), z faces 4*3*2 (x2), yz edges 4*2*2 (x4): 192 cells */
  CHECK_EQ_INT(s.self_bytes, 2 * 192 * 8);
  hk_cart_layout_destroy(&l);
}

int main(void)
{
  test_names();
  test_block_range();
  test_fallbacks();
  test_auto_procs();
  test_bad_input();
  test_self();
  return hk_test_report("test_cart");
}
