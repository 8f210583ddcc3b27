/* src/topo/nodes.c: which ranks share a node.
 *
 * Real nodes: PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED).  Virtual nodes for
 * one-machine testing: HK_NODE_SIZE=k puts ranks [0,k) on node 0, [k,2k) on
 * node 1, ...  Nodes are numbered by their lowest rank, so node ids are the
 * same whichever way the grouping was made.  The MPI calls go to PMPI_ (the
 * hybrid allreduce creates nodes from inside the preload's MPI_Allreduce).
 *
 *   HK_NODE_SIZE=2, 6 ranks:   node 0: ranks 0 1 | node 1: 2 3 | node 2: 4 5
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal/hk_internal.h"

struct hk_nodes {
  MPI_Comm comm;       /* this rank's node */
  int *node_of;        /* node id of every rank of the parent comm */
  int nranks;
  hk_nodes_info_t info;
};

/* HK_NODE_SIZE; 0 when unset (hk_init checks it at start too) */
int hk__nodes_size_env(long *k)
{
  const char *v = getenv("HK_NODE_SIZE");
  long k0 = 0;
  if (!k)
    k = &k0;
  *k = 0;
  if (!v || !*v)
    return HK_SUCCESS;
  char *end = NULL;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || *end || n < 1 || n > 1 << 24)
    return HK_ERROR(HK_ERR_NODES, "HK_NODE_SIZE=%s is not a positive integer", v);
  *k = n;
  return HK_SUCCESS;
}

/* HK_NODE_SIZE for nranks ranks (must divide them unless HK_NODE_UNEVEN); 0 when unset */
static int virtual_node_size(int nranks, int *k)
{
  long n = 0;
  *k = 0;
  int allow_uneven = 0, err = hk__nodes_size_env(&n);
  if (err != HK_SUCCESS || n == 0)
    return err;
  err = hk__env_bool("HK_NODE_UNEVEN", &allow_uneven);
  if (err != HK_SUCCESS)
    return err;
  if (nranks % n != 0 && !allow_uneven)
    return HK_ERROR(HK_ERR_NODES,
                    "HK_NODE_SIZE=%ld does not divide the %d ranks (set HK_NODE_UNEVEN=1 to "
                    "allow a smaller last node)",
                    n, nranks);
  *k = (int)n;
  return HK_SUCCESS;
}

/* node_of[r] = the position of leader[r] among the distinct leader ranks (ascending) */
static int number_nodes(const int *leader, int size, int *node_of, int *nnodes)
{
  int err = HK_SUCCESS, *id = NULL, next = 0;
  HK_ALLOC_TRY(err, id, size);
  for (int r = 0; r < size; r++)
    id[r] = -1;
  for (int r = 0; r < size; r++)
    if (id[leader[r]] < 0)
      id[leader[r]] = next++;
  for (int r = 0; r < size; r++)
    node_of[r] = id[leader[r]];
  *nnodes = next;
cleanup:
  free(id);
  return err;
}

int hk_nodes_create(MPI_Comm comm, hk_nodes_t **nodes)
{
  int err = HK_SUCCESS, rank = 0, size = 0, k = 0, leader = 0, *leaders = NULL;
  hk_nodes_t *n = NULL;
  if (!nodes)
    return HK_ERROR(HK_ERR_ARG, "nodes is NULL");
  *nodes = NULL;
  HK_MPI_TRY(err, PMPI_Comm_rank(comm, &rank));
  HK_MPI_TRY(err, PMPI_Comm_size(comm, &size));
  err = virtual_node_size(size, &k);
  HK_ALLOC_LOCAL(err, n, 1);
  if (n)
    n->comm = MPI_COMM_NULL;
  HK_ALLOC_LOCAL(err, n->node_of, size);
  HK_ALLOC_LOCAL(err, leaders, size);
  HK_AGREE(err, comm);
  n->nranks = size;
  if (k > 0) {
    HK_MPI_TRY(err, PMPI_Comm_split(comm, rank / k, rank, &n->comm));
    n->info.is_virtual = 1;
  } else {
    HK_MPI_TRY(err, PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &n->comm));
  }
  HK_MPI_TRY(err, PMPI_Comm_rank(n->comm, &n->info.local_rank));
  HK_MPI_TRY(err, PMPI_Comm_size(n->comm, &n->info.local_size));
  /* The node's id: its lowest rank's position among all node leaders. */
  HK_MPI_TRY(err, PMPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, n->comm));
  HK_MPI_TRY(err, PMPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, comm));
  HK_LOCAL(err, number_nodes(leaders, size, n->node_of, &n->info.nnodes));
  HK_AGREE(err, comm);
  n->info.node = n->node_of[rank];
  HK_MPI_TRY(err, PMPI_Allreduce(&n->info.local_size, &n->info.max_local_size, 1, MPI_INT, MPI_MAX,
                                comm));
  *nodes = n;
  n = NULL;
cleanup:
  if (n) {
    if (n->comm != MPI_COMM_NULL)
      PMPI_Comm_free(&n->comm);
    free(n->node_of);
    free(n);
  }
  free(leaders);
  return err;
}

int hk_nodes_destroy(hk_nodes_t **nodes)
{
  int err = HK_SUCCESS;
  if (!nodes || !*nodes)
    return HK_SUCCESS;
  if ((*nodes)->comm != MPI_COMM_NULL)
    HK_MPI_TRY(err, PMPI_Comm_free(&(*nodes)->comm));
cleanup:
  free((*nodes)->node_of);
  free(*nodes);
  *nodes = NULL;
  return err;
}

int hk_nodes_info(const hk_nodes_t *nodes, hk_nodes_info_t *info)
{
  if (!nodes || !info)
    return HK_ERROR(HK_ERR_ARG, "nodes and info must not be NULL");
  *info = nodes->info;
  return HK_SUCCESS;
}

MPI_Comm hk_nodes_comm(const hk_nodes_t *nodes) { return nodes ? nodes->comm : MPI_COMM_NULL; }

int hk__nodes_node_of(const hk_nodes_t *nodes, int rank)
{
  if (!nodes || rank < 0 || rank >= nodes->nranks)
    return -1;
  return nodes->node_of[rank];
}

int hk_nodes_node_of(const hk_nodes_t *nodes, int rank, int *node)
{
  if (!nodes || !node)
    return HK_ERROR(HK_ERR_ARG, "nodes and node must not be NULL");
  if (rank < 0 || rank >= nodes->nranks)
    return HK_ERROR(HK_ERR_ARG, "rank %d is not in 0..%d", rank, nodes->nranks - 1);
  *node = nodes->node_of[rank];
  return HK_SUCCESS;
}
