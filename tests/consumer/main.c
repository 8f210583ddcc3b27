/* tests/consumer/main.c: the smallest hybridkit program: init, nodes, finalize. */
#include <stdio.h>
#include <hybridkit.h>

int main(int argc, char **argv)
{
  int err = hk_init(&argc, &argv, HK_THREAD_FUNNELED);
  hk_nodes_t *nodes = NULL;
  hk_nodes_info_t ni = {0};
  if (err == HK_SUCCESS)
    err = hk_nodes_create(MPI_COMM_WORLD, &nodes);
  if (err == HK_SUCCESS)
    err = hk_nodes_info(nodes, &ni);
  err = hk_agree(MPI_COMM_WORLD, err);
  if (err == HK_SUCCESS && ni.node == 0 && ni.local_rank == 0)
    printf("consumer: hybridkit %s, %d node(s), %d rank(s) on node 0\n", HK_VERSION_STRING,
           ni.nnodes, ni.local_size);
  if (err != HK_SUCCESS)
    fprintf(stderr, "consumer: %s\n", hk_error_message());
  hk_nodes_destroy(&nodes);
  hk_finalize();
  return err == HK_SUCCESS ? 0 : 1;
}
