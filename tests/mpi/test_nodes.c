/* tests/mpi/test_nodes.c: node grouping, real (MPI_COMM_TYPE_SHARED: one node
 * on this machine) or virtual (HK_NODE_SIZE=k, HK_NODE_UNEVEN=1).  The
 * expectation is computed from the environment, so the same binary runs
 * under every rank count and grouping, including the ones that must fail. */
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

int main(int argc, char **argv)
{
  hk_init(&argc, &argv, HK_THREAD_MASTERONLY);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  const char *ks = getenv("HK_NODE_SIZE"), *un = getenv("HK_NODE_UNEVEN");
  int k = ks ? atoi(ks) : 0, uneven = un && !strcmp(un, "1");
  hk_nodes_t *nodes = NULL;
  int err = hk_nodes_create(MPI_COMM_WORLD, &nodes);
  if (k > 0 && size % k != 0 && !uneven) {
    CHECK_EQ_INT(err, HK_ERR_NODES);
    char want[96];
    snprintf(want, sizeof want, "HK_NODE_SIZE=%d does not divide the %d ranks", k, size);
    CHECK_CONTAINS(hk_error_message(), want);
    CHECK(nodes == NULL);
  } else {
    CHECK_EQ_INT(err, HK_SUCCESS);
    hk_nodes_info_t ni;
    CHECK_EQ_INT(hk_nodes_info(nodes, &ni), HK_SUCCESS);
    if (k > 0) {
      CHECK_EQ_INT(ni.is_virtual, 1);
      CHECK_EQ_INT(ni.node, rank / k);
      CHECK_EQ_INT(ni.local_rank, rank % k);
      CHECK_EQ_INT(ni.nnodes, (size + k - 1) / k);
      int last = size - (ni.nnodes - 1) * k;
      CHECK_EQ_INT(ni.local_size, ni.node == ni.nnodes - 1 ? last : k);
      CHECK_EQ_INT(ni.max_local_size, k < size ? k : size);
      for (int r = 0; r < size; r++) {
        int node = -1;
        CHECK_EQ_INT(hk_nodes_node_of(nodes, r, &node), HK_SUCCESS);
        CHECK_EQ_INT(node, r / k);
      }
    } else {
      /* one real machine: one node */
      CHECK_EQ_INT(ni.is_virtual, 0);
      CHECK_EQ_INT(ni.nnodes, 1);
      CHECK_EQ_INT(ni.node, 0);
      CHECK_EQ_INT(ni.local_rank, rank);
      CHECK_EQ_INT(ni.local_size, size);
    }
    int node = 0;
    CHECK_EQ_INT(hk_nodes_node_of(nodes, -1, &node), HK_ERR_ARG);
    CHECK_EQ_INT(hk_nodes_node_of(nodes, size, &node), HK_ERR_ARG);
    int lsize = 0;
    MPI_Comm_size(hk_nodes_comm(nodes), &lsize);
    CHECK_EQ_INT(lsize, ni.local_size);
    CHECK_EQ_INT(hk_nodes_destroy(&nodes), HK_SUCCESS);
    CHECK(nodes == NULL);
  }
  int rc = hk_test_mpi_report("test_nodes");
  hk_finalize();
  return rc;
}
