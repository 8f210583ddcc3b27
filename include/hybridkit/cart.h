/* hybridkit/cart.h: Cartesian domain decomposition and node-aware rank mapping.
 *
 * A global grid of cells (2D or 3D) is cut into a process grid of P = Px*Py*Pz
 * blocks.  Blocks are uneven when P does not divide the cells: N cells over P
 * blocks give the first N % P blocks N/P + 1 cells.  Positions are numbered
 * row-major with x fastest: p = x + Px*(y + Py*z).  The Cartesian communicator
 * numbers its ranks by position, so "cart rank" == position.
 *
 * A mapping decides which rank (and so which node) holds which position:
 *
 *   sequential   position p <- the p-th rank (what MPI_Cart_create without
 *                reordering does); nodes hold consecutive positions
 *   round-robin  position p <- a rank of node p mod N (as if the launcher had dealt
 *                ranks round-robin over the nodes); needs equal node sizes
 *   node-aware   the process grid is factored into a node grid x an intra-node
 *                grid (Nx*Lx = Px, ...), Lx*Ly*Lz = ranks per node, the factorisation
 *                with the least inter-node halo surface wins, so every node owns a
 *                compact sub-block (Gropp's nodecart); falls back to sequential,
 *                with a note, when the node sizes differ or no factorisation fits
 *
 *   4x4 positions on 2 nodes of 8:  sequential     round-robin    node-aware (2x4 blocks)
 *                                    0 0 0 0        0 1 0 1        0 0 1 1
 *                                    0 0 0 0        0 1 0 1        0 0 1 1
 *                                    1 1 1 1        0 1 0 1        0 0 1 1
 *                                    1 1 1 1        0 1 0 1        0 0 1 1
 *   (the digit is the node; here sequential and node-aware cut the same 4 links)
 *
 * hk_cart_surface() counts, for a layout, the halo bytes and messages of one
 * exchange that cross node boundaries, stay inside nodes, or stay inside a
 * process (periodic self-neighbour), and the tutorial's "inter-node connections
 * per node" (neighbour links of a node's blocks to blocks on other nodes).
 */
#ifndef HYBRIDKIT_CART_H
#define HYBRIDKIT_CART_H

#include <mpi.h>
#include "hybridkit/export.h"
#include "hybridkit/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hk_cart_map {
  HK_CART_MAP_SEQUENTIAL = 0,
  HK_CART_MAP_ROUND_ROBIN = 1,
  HK_CART_MAP_NODE_AWARE = 2,
  HK_CART_MAP_COUNT
} hk_cart_map_t;

/* Which neighbours exchange halos: faces only (5-point 2D / 7-point 3D
 * stencils: "diagonal communication elimination") or faces, edges and corners
 * (9-point / 27-point). */
typedef enum hk_stencil {
  HK_STENCIL_FACES = 0,
  HK_STENCIL_FULL = 1,
  HK_STENCIL_COUNT
} hk_stencil_t;

typedef struct hk_cart_desc {
  int dims;                /* 2 or 3 */
  long long global[3];     /* global cells in x, y, z (z must be 1 in 2D) */
  int periodic[3];         /* per dimension, 0 or 1 */
  int procs[3];            /* process grid; all 0: chosen (least halo surface);
                              in 2D procs[2] is 1.  Its product must be the rank count */
  hk_cart_map_t map;
  int halo_width;          /* w >= 1: every block needs >= w cells in each decomposed
                              dimension (halo_width 0 is taken as 1) */
  hk_stencil_t stencil;    /* for the surface counts */
  int outer_first;         /* procs chosen, 1: of the grids with the least surface, the one
                              that splits z before y before x (a face normal to z is
                              contiguous in memory, one normal to x is a cell per row; an
                              undecomposed periodic x needs no exchange at all).  0: the
                              larger Px wins a tie */
} hk_cart_desc_t;

/* A layout: the decomposition and which node holds which position.  Pure data,
 * computable without MPI (planning, tests, the advisor). */
typedef struct hk_cart_layout {
  int dims;
  int nranks;
  int nnodes;
  int procs[3];
  int node_procs[3];       /* node grid of node-aware mapping, else 0 0 0 */
  int local_procs[3];      /* intra-node grid of node-aware mapping, else 0 0 0 */
  hk_cart_map_t map;       /* the policy asked for */
  hk_cart_map_t map_used;  /* what was done (node-aware/round-robin may fall back) */
  char note[256];          /* why it fell back, "" otherwise */
  int *rank_of_pos;        /* [nranks] rank of the parent communicator at position p */
  int *node_of_pos;        /* [nranks] its node */
} hk_cart_layout_t;

typedef struct hk_cart_surface {
  long long inter_bytes;   /* halo bytes of one exchange (all ranks, sent) crossing nodes */
  long long intra_bytes;   /* between ranks of one node */
  long long self_bytes;    /* a rank to itself (periodic, one block in that dimension) */
  long long inter_msgs, intra_msgs, self_msgs;
  int max_node_links;      /* max over nodes: links from the node's blocks to blocks of
                              other nodes (each block-neighbour pair of the stencil) */
  int min_node_links;
} hk_cart_surface_t;

/* hk_cart_map_name: sequential, round-robin, node-aware.  Collective: local.  Threads: any thread.
 * Errors: none (an unknown value gives "invalid"). */
HK_EXPORT const char *hk_cart_map_name(hk_cart_map_t map);
/* hk_cart_map_parse: Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_cart_map_parse(const char *name, hk_cart_map_t *map);

/* hk_cart_block_range: the cells [*lo, *lo + *n) of block `index` of `procs`
 * blocks over `cells` cells (uneven blocks as above).  Collective: local.
 * Threads: any thread.  Errors: none (procs < 1 or index out of range give *n = 0). */
HK_EXPORT void hk_cart_block_range(long long cells, int procs, int index, long long *lo, int *n);

/* hk_cart_plan: the layout for `nranks` ranks, rank r on node node_of_rank[r]
 * (node ids 0..nnodes-1, e.g. from hk_nodes_node_of).  HK_ERR_ARG, naming the
 * numbers, for: dims not 2/3, a global extent < 1, a procs product != nranks,
 * blocks thinner than the halo width ("grid 8x8 is too small for 16x1 ranks with
 * halo width 1"), no process grid that fits.
 * Collective: local.  Threads: any thread.
 * Errors: see above; HK_ERR_NOMEM. */
HK_EXPORT int hk_cart_plan(const hk_cart_desc_t *desc, int nranks, const int *node_of_rank,
                           hk_cart_layout_t **layout);
/* hk_cart_layout_destroy: Collective: local.  Threads: any thread.
 * Errors: none (NULL is fine). */
HK_EXPORT void hk_cart_layout_destroy(hk_cart_layout_t **layout);

/* hk_cart_surface: the counts above for a layout of desc (its halo_width,
 * stencil, periodicity; 8-byte cells).  Collective: local.
 * Threads: any thread.  Errors: HK_ERR_ARG (NULL, a layout of other dims), HK_ERR_NOMEM. */
HK_EXPORT int hk_cart_surface(const hk_cart_desc_t *desc, const hk_cart_layout_t *layout,
                              hk_cart_surface_t *surface);

/* ------------------------------------------------------------- with MPI */

typedef struct hk_cart hk_cart_t;

typedef struct hk_cart_info {
  int dims;
  int rank;                /* in hk_cart_comm == position */
  int size;
  int coords[3];
  int procs[3];
  int periodic[3];
  long long global[3];
  long long lo[3];         /* global index of the first owned cell */
  int n[3];                /* owned cells (1 in z for 2D) */
  int node;                /* this rank's node */
  int nnodes;
  hk_cart_map_t map_used;
  const char *note;        /* fallback note, "" if none (lives as long as the cart) */
} hk_cart_info_t;

/* hk_cart_create: plan with the nodes of `nodes` (NULL: hk_nodes_create on comm),
 * then make the Cartesian communicator (ranks of comm renumbered by position).
 * Errors (bad sizes ...) are agreed: every rank returns the same code.
 * Collective: comm.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG (as hk_cart_plan, agreed), HK_ERR_NODES, HK_ERR_NOMEM, HK_ERR_MPI. */
HK_EXPORT int hk_cart_create(MPI_Comm comm, const hk_nodes_t *nodes, const hk_cart_desc_t *desc,
                             hk_cart_t **cart);
/* hk_cart_destroy: free the communicator and the layout; *cart = NULL.  Collective: comm.
 * Threads: outside parallel regions.  Errors: HK_ERR_MPI (NULL is fine). */
HK_EXPORT int hk_cart_destroy(hk_cart_t **cart);
/* hk_cart_comm: Collective: local.  Threads: any thread.
 * Errors: none (MPI_COMM_NULL for a NULL cart). */
HK_EXPORT MPI_Comm hk_cart_comm(const hk_cart_t *cart);
/* hk_cart_info: Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_cart_info(const hk_cart_t *cart, hk_cart_info_t *info);
/* hk_cart_layout: Collective: local.  Threads: any thread.
 * Errors: none (NULL for a NULL cart); lives as long as the cart. */
HK_EXPORT const hk_cart_layout_t *hk_cart_layout(const hk_cart_t *cart);
/* hk_cart_desc: Collective: local.  Threads: any thread.
 * Errors: none (NULL for a NULL cart); lives as long as the cart. */
HK_EXPORT const hk_cart_desc_t *hk_cart_desc(const hk_cart_t *cart);
/* hk_cart_neighbor: *rank = the cart rank at my coords + offset (each -1, 0 or +1),
 * wrapping periodic dimensions; MPI_PROC_NULL beyond a non-periodic edge and for a
 * nonzero offset[2] in 2D.  May be my own rank (periodic, one block in that dimension).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments or an offset outside -1..1. */
HK_EXPORT int hk_cart_neighbor(const hk_cart_t *cart, const int offset[3], int *rank);
/* hk_cart_node_of: *node = the node of a cart rank.
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments or a rank out of range. */
HK_EXPORT int hk_cart_node_of(const hk_cart_t *cart, int cart_rank, int *node);
/* hk_cart_block: global start and size of the block of any cart rank (HK_ERR_ARG out of range).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments or a rank out of range. */
HK_EXPORT int hk_cart_block(const hk_cart_t *cart, int cart_rank, long long lo[3], int n[3]);

#ifdef __cplusplus
}
#endif
#endif
