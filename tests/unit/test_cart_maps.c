/* tests/unit/test_cart_maps.c: the three rank mappings and their halo surface
 * counts (serial, no MPI_Init); block ranges, grid choice and input checks are in
 * test_cart.c.
 *
 * The 80-rank cases are the "topology problem" example of Rabenseifner, Hager
 * and Jost, "Hybrid MPI and OpenMP Parallel Programming" (SC/ISC tutorial):
 * 80 sub-domains on 10 nodes of 8 cores, 17 inter-node connections per node
 * with sequential ranks, 32 with round-robin ranks, 12 with two levels of
 * domain decomposition. */
#include "cart_check.h"

/* The tutorial's 80 cores on 10 nodes of 8 (2D, 5-point stencil, halo width 1). */
static void test_tutorial(void)
{
  int *node_of = nodes_of_blocks(80, 8);
  hk_cart_desc_t d = {.dims = 2, .global = {160, 50, 1}, .procs = {16, 5, 1},
                      .map = HK_CART_MAP_SEQUENTIAL, .halo_width = 1, .stencil = HK_STENCIL_FACES};
  /* sequential on 16x5: a node is half a row; a middle row's node has 8 links up,
   * 8 down and 1 sideways: the tutorial's "17 x inter-node connections per node" */
  hk_cart_layout_t *l = plan(&d, 80, node_of);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_SEQUENTIAL);
  CHECK_EQ_INT(l->nnodes, 10);
  CHECK_EQ_INT(l->node_procs[0], 0);
  hk_cart_surface_t s = surface(&d, l);
  CHECK_EQ_INT(s.max_node_links, 17);
  CHECK_EQ_INT(s.min_node_links, 9); /* top and bottom rows: 8 + 1 */
  CHECK_EQ_INT(s.inter_msgs, 138);
  CHECK_EQ_INT(s.inter_bytes, 11040);
  CHECK_EQ_INT(s.intra_bytes, 11200);
  CHECK_EQ_INT(s.self_msgs, 0);
  hk_cart_layout_destroy(&l);
  CHECK(l == NULL);

  /* round-robin on 16x5: position p on node p mod 10; x-neighbours differ by 1,
   * y-neighbours by 16 (and periodic wraps by 15 and 64): never a multiple of 10,
   * so every link crosses nodes */
  d.map = HK_CART_MAP_ROUND_ROBIN;
  l = plan(&d, 80, node_of);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_ROUND_ROBIN);
  CHECK_STR(l->note, "");
  for (int p = 0; p < 80; p++)
    CHECK_EQ_INT(l->rank_of_pos[p], 8 * (p % 10) + p / 10);
  s = surface(&d, l);
  CHECK_EQ_INT(s.intra_bytes, 0);
  CHECK_EQ_INT(s.intra_msgs, 0);
  /* not 32: without periodic boundaries the blocks on the grid's edge lose their
   * links beyond it, and even the best-placed node has 4 of them */
  CHECK_EQ_INT(s.max_node_links, 28);
  CHECK_EQ_INT(s.min_node_links, 27);
  CHECK_EQ_INT(s.inter_bytes, 22240);
  d.periodic[0] = d.periodic[1] = 1;
  s = surface(&d, l);
  /* the tutorial's "32 x inter-node connections per node": 8 blocks x 4 links */
  CHECK_EQ_INT(s.max_node_links, 32);
  CHECK_EQ_INT(s.min_node_links, 32);
  CHECK_EQ_INT(s.intra_msgs, 0);
  CHECK_EQ_INT(s.inter_msgs, 320);
  hk_cart_layout_destroy(&l);

  /* two levels of domain decomposition: procs 8x10, node-aware gives every
   * node a 4x2 block (node grid 2x5) */
  d.periodic[0] = d.periodic[1] = 0;
  d.procs[0] = 8;
  d.procs[1] = 10;
  d.map = HK_CART_MAP_SEQUENTIAL;
  l = plan(&d, 80, node_of);
  hk_cart_surface_t seq = surface(&d, l);
  CHECK_EQ_INT(seq.inter_bytes, 23040); /* every node is a row of 8: 9 cuts of 160 cells, 2 ways */
  CHECK_EQ_INT(seq.max_node_links, 16);
  hk_cart_layout_destroy(&l);
  d.map = HK_CART_MAP_NODE_AWARE;
  l = plan(&d, 80, node_of);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_NODE_AWARE);
  CHECK_EQ_INT(l->local_procs[0], 4);
  CHECK_EQ_INT(l->local_procs[1], 2);
  CHECK_EQ_INT(l->local_procs[2], 1);
  CHECK_EQ_INT(l->node_procs[0], 2);
  CHECK_EQ_INT(l->node_procs[1], 5);
  CHECK_EQ_INT(l->node_procs[2], 1);
  /* position (x, y) on node x/4 + 2*(y/2), as the (x%4 + 4*(y%2))-th rank of it */
  for (int p = 0; p < 80; p++) {
    int x = p % 8, y = p / 8, node = x / 4 + 2 * (y / 2);
    CHECK_EQ_INT(l->node_of_pos[p], node);
    CHECK_EQ_INT(l->rank_of_pos[p], 8 * node + x % 4 + 4 * (y % 2));
  }
  s = surface(&d, l);
  CHECK(s.inter_bytes < seq.inter_bytes);
  CHECK_EQ_INT(s.inter_bytes, 11040); /* 1 cut of 50 cells + 4 cuts of 160, 2 ways */
  /* a 4x2 node block has 4 + 4 + 2 + 2 = 12 links when it has neighbours on all
   * sides: the tutorial's "12 x inter-node connections per node".  The node grid
   * is only 2 wide, so without periodic boundaries no node has both sideways
   * neighbours and the most is 4 + 4 + 2 = 10; with them every node has 12. */
  CHECK_EQ_INT(s.max_node_links, 10);
  CHECK_EQ_INT(s.min_node_links, 6);
  d.periodic[0] = d.periodic[1] = 1;
  s = surface(&d, l);
  CHECK_EQ_INT(s.max_node_links, 12);
  CHECK_EQ_INT(s.min_node_links, 12);
  hk_cart_layout_destroy(&l);
  l = plan(&d, 80, node_of); /* periodic: the same local grid wins */
  CHECK_EQ_INT(l->local_procs[0], 4);
  CHECK_EQ_INT(l->local_procs[1], 2);
  hk_cart_layout_destroy(&l);
  free(node_of);
}

/* The header's picture: 4x4 positions on 2 nodes of 8, 64x64 cells, so every
 * face message is 16 cells x 8 bytes = 128 B; 48 messages in all. */
static void test_two_nodes(void)
{
  int *node_of = nodes_of_blocks(16, 8);
  hk_cart_desc_t d = {.dims = 2, .global = {64, 64}, .procs = {4, 4},
                      .map = HK_CART_MAP_SEQUENTIAL, .halo_width = 1};
  hk_cart_layout_t *l = plan(&d, 16, node_of);
  hk_cart_surface_t s = surface(&d, l);
  CHECK_EQ_INT(s.inter_msgs, 8); /* one cut of 4 links, both ways */
  CHECK_EQ_INT(s.inter_bytes, 8 * 128);
  CHECK_EQ_INT(s.intra_msgs, 40);
  CHECK_EQ_INT(s.intra_bytes, 40 * 128);
  CHECK_EQ_INT(s.max_node_links, 4);
  CHECK_EQ_INT(s.min_node_links, 4);
  hk_cart_layout_destroy(&l);

  /* round-robin: columns alternate nodes, so x links cross and y links stay */
  d.map = HK_CART_MAP_ROUND_ROBIN;
  l = plan(&d, 16, node_of);
  for (int p = 0; p < 16; p++) {
    CHECK_EQ_INT(l->node_of_pos[p], p % 2);
    CHECK_EQ_INT(l->rank_of_pos[p], 8 * (p % 2) + p / 2);
  }
  s = surface(&d, l);
  CHECK_EQ_INT(s.inter_msgs, 24);
  CHECK_EQ_INT(s.inter_bytes, 24 * 128);
  CHECK_EQ_INT(s.intra_msgs, 24);
  CHECK_EQ_INT(s.intra_bytes, 24 * 128);
  CHECK_EQ_INT(s.max_node_links, 12);
  CHECK_EQ_INT(s.min_node_links, 12);
  hk_cart_layout_destroy(&l);

  /* node-aware: 2x4 and 4x2 local grids cut the same 4 links; the tie goes to the
   * smaller Lx (2x4: the header's picture, nodes are the left and right halves) */
  d.map = HK_CART_MAP_NODE_AWARE;
  l = plan(&d, 16, node_of);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_NODE_AWARE);
  CHECK_EQ_INT(l->local_procs[0], 2);
  CHECK_EQ_INT(l->local_procs[1], 4);
  CHECK_EQ_INT(l->node_procs[0], 2);
  CHECK_EQ_INT(l->node_procs[1], 1);
  for (int p = 0; p < 16; p++) {
    int x = p % 4, y = p / 4;
    CHECK_EQ_INT(l->node_of_pos[p], x / 2);
    CHECK_EQ_INT(l->rank_of_pos[p], 8 * (x / 2) + x % 2 + 2 * y);
  }
  s = surface(&d, l);
  CHECK_EQ_INT(s.inter_msgs, 8);
  CHECK_EQ_INT(s.inter_bytes, 8 * 128);
  CHECK_EQ_INT(s.intra_bytes, 40 * 128);
  CHECK_EQ_INT(s.max_node_links, 4);
  hk_cart_layout_destroy(&l);

  /* ranks dealt round-robin by the launcher (node r % 2): node-aware still gives
   * node k the k-th block, filled with node k's ranks in increasing order */
  for (int r = 0; r < 16; r++)
    node_of[r] = r % 2;
  l = plan(&d, 16, node_of);
  for (int p = 0; p < 16; p++) {
    int x = p % 4, y = p / 4;
    CHECK_EQ_INT(l->node_of_pos[p], x / 2);
    CHECK_EQ_INT(l->rank_of_pos[p], 2 * (x % 2 + 2 * y) + x / 2);
  }
  hk_cart_layout_destroy(&l);
  free(node_of);

  /* 3D: 8 ranks on 2 nodes of 4, procs 2x2x2, blocks of 16^3 (2048 B faces) */
  node_of = nodes_of_blocks(8, 4);
  hk_cart_desc_t d3 = {.dims = 3, .global = {32, 32, 32}, .procs = {2, 2, 2},
                       .map = HK_CART_MAP_NODE_AWARE, .halo_width = 1};
  l = plan(&d3, 8, node_of);
  CHECK_EQ_INT(l->map_used, HK_CART_MAP_NODE_AWARE);
  int cut = -1, ok = 1;
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(l->local_procs[i] * l->node_procs[i], 2);
    if (l->node_procs[i] == 2)
      cut = i;
  }
  CHECK_EQ_INT(l->local_procs[0] * l->local_procs[1] * l->local_procs[2], 4);
  CHECK(cut >= 0);
  /* every node owns a 2x2 slab: the node is the coordinate along the cut */
  for (int p = 0; p < 8 && cut >= 0; p++) {
    int c[3] = {p % 2, p / 2 % 2, p / 4};
    ok = ok && l->node_of_pos[p] == c[cut];
  }
  CHECK(ok);
  s = surface(&d3, l);
  CHECK_EQ_INT(s.inter_msgs, 8);
  CHECK_EQ_INT(s.inter_bytes, 8 * 2048);
  CHECK_EQ_INT(s.intra_msgs, 16);
  CHECK_EQ_INT(s.max_node_links, 4);
  hk_cart_layout_destroy(&l);
  /* a grid twice as long in z: cutting z is cheapest (16x16 faces, not 16x32) */
  d3.global[2] = 64;
  l = plan(&d3, 8, node_of);
  CHECK_EQ_INT(l->local_procs[0], 2);
  CHECK_EQ_INT(l->local_procs[1], 2);
  CHECK_EQ_INT(l->local_procs[2], 1);
  CHECK_EQ_INT(l->node_procs[2], 2);
  s = surface(&d3, l);
  CHECK_EQ_INT(s.inter_bytes, 8 * 2048);
  hk_cart_layout_destroy(&l);
  free(node_of);
}

int main(void)
{
  test_tutorial();
  test_two_nodes();
  return hk_test_report("test_cart_maps");
}
