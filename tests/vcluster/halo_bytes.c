/* tests/vcluster/halo_bytes.c: halo traffic of a mapping on real (emulated) nodes.
 *
 *   halo_bytes --map sequential|round-robin|node-aware --exchanges N
 *              [--grid NXxNYxNZ] [--procs PXxPYxPZ]
 *
 * A periodic 3D decomposition (default 48x40x32 cells, process grid chosen by
 * hybridkit unless --procs), faces stencil, halo width 1, on the real nodes of
 * MPI_COMM_WORLD (hk_nodes: MPI_COMM_TYPE_SHARED), one pure-mode halo.  Every
 * owned cell holds an encoding of its global index; after the first exchange
 * every face ghost must hold its neighbour's encoding (checked once, any wrong
 * ghost: exit 1), then N-1 more exchanges run (N in all).  Rank 0 prints
 *
 *   predicted_inter_bytes_per_exchange=<hk_cart_surface().inter_bytes> nodes=<n>
 *   (plus intra/self bytes, the process grid and the mapping actually used)
 *
 * so tests/vcluster/run_tests.sh can compare it with the bytes counted on the
 * emulated links (two runs with different N: the per-exchange difference).
 */
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

static long long G[3] = {48, 40, 32};

static double enc(long long g[3])
{
  return 1.0 + (double)(g[0] + G[0] * (g[1] + G[1] * g[2]));
}

static int parse3(const char *s, long long v[3])
{
  char tail;
  return sscanf(s, "%lldx%lldx%lld%c", &v[0], &v[1], &v[2], &tail) == 3 && v[0] > 0 && v[1] > 0 &&
         v[2] > 0;
}

static int usage(const char *msg)
{
  fprintf(stderr, "halo_bytes: %s\nusage: halo_bytes --map P --exchanges N [--grid NXxNYxNZ] "
                  "[--procs PXxPYxPZ]\n", msg);
  return 2;
}

int main(int argc, char **argv)
{
  hk_cart_map_t map = HK_CART_MAP_SEQUENTIAL;
  long long nex = -1, P[3] = {0, 0, 0};
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc)
      return usage("option needs a value");
    if (!strcmp(argv[i], "--map")) {
      if (hk_cart_map_parse(argv[i + 1], &map) != HK_SUCCESS)
        return usage("unknown mapping");
    } else if (!strcmp(argv[i], "--exchanges")) {
      char *end;
      nex = strtoll(argv[i + 1], &end, 10);
      if (*end || nex < 1)
        return usage("--exchanges needs a positive integer");
    } else if (!strcmp(argv[i], "--grid")) {
      if (!parse3(argv[i + 1], G))
        return usage("--grid: expected NXxNYxNZ");
    } else if (!strcmp(argv[i], "--procs")) {
      if (!parse3(argv[i + 1], P))
        return usage("--procs: expected PXxPYxPZ");
    } else {
      return usage("unknown option");
    }
  }
  if (nex < 1)
    return usage("--exchanges N is required");
  if (hk_init(&argc, &argv, HK_THREAD_SINGLE) != HK_SUCCESS) {
    fprintf(stderr, "halo_bytes: %s\n", hk_error_message());
    hk_finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &hk_test_rank);
  hk_nodes_t *nodes = NULL;
  int err = hk_nodes_create(MPI_COMM_WORLD, &nodes);
  if (err != HK_SUCCESS) {
    if (hk_test_rank == 0)
      fprintf(stderr, "halo_bytes: hk_nodes_create: %s\n", hk_error_message());
    hk_finalize();
    return 1;
  }
  hk_nodes_info_t ni;
  hk_nodes_info(nodes, &ni);
  hk_cart_desc_t cd = {.dims = 3, .map = map, .halo_width = 1, .stencil = HK_STENCIL_FACES};
  for (int d = 0; d < 3; d++) {
    cd.global[d] = G[d];
    cd.periodic[d] = 1;
    cd.procs[d] = (int)P[d];
  }
  hk_cart_t *cart = NULL;
  err = hk_cart_create(MPI_COMM_WORLD, nodes, &cd, &cart);
  if (err != HK_SUCCESS) {
    if (hk_test_rank == 0)
      fprintf(stderr, "halo_bytes: hk_cart_create: %s\n", hk_error_message());
    hk_nodes_destroy(&nodes);
    hk_finalize();
    return 1;
  }
  hk_cart_info_t ci;
  hk_cart_info(cart, &ci);
  hk_halo_t *h = NULL;
  hk_halo_desc_t hd = {.cart = cart, .width = 1, .stencil = HK_STENCIL_FACES, .mode = HK_MODE_PURE};
  err = hk_halo_create(&hd, &h);
  CHECK_EQ_INT(err, HK_SUCCESS);
  if (err == HK_SUCCESS) {
    hk_field_layout_t L;
    hk_halo_layout(h, &L);
    double *f = NULL;
    CHECK_EQ_INT(hk_halo_field_alloc(h, &f), HK_SUCCESS);
    for (size_t x = 0; x < L.count; x++)
      f[x] = -1.0;
    for (int k = 0; k < L.n[2]; k++)
      for (int j = 0; j < L.n[1]; j++)
        for (int i = 0; i < L.n[0]; i++) {
          long long g[3] = {ci.lo[0] + i, ci.lo[1] + j, ci.lo[2] + k};
          f[L.offset + i + j * L.sy + k * L.sz] = enc(g);
        }
    CHECK_EQ_INT(hk_halo_exchange(h, f), HK_SUCCESS);
    /* face ghosts (one layer, periodic: every face has a neighbour) */
    int bad = 0;
    for (int k = -1; k <= L.n[2]; k++)
      for (int j = -1; j <= L.n[1]; j++)
        for (int i = -1; i <= L.n[0]; i++) {
          int l[3] = {i, j, k}, out = 0;
          for (int d = 0; d < 3; d++)
            out += l[d] < 0 || l[d] >= L.n[d];
          if (out != 1)
            continue;
          long long g[3];
          for (int d = 0; d < 3; d++)
            g[d] = ((ci.lo[d] + l[d]) % G[d] + G[d]) % G[d];
          double want = enc(g), got = f[L.offset + i + j * L.sy + k * L.sz];
          if (got != want && bad++ < 3)
            fprintf(stderr, "rank %d: ghost (%d,%d,%d) holds %.1f, expected %.1f\n", ci.rank, i, j,
                    k, got, want);
        }
    CHECK_EQ_INT(bad, 0);
    for (long long e = 1; e < nex; e++)
      if (hk_halo_exchange(h, f) != HK_SUCCESS) {
        CHECK(0);
        break;
      }
    hk_halo_stats_t st;
    hk_halo_stats(h, &st);
    CHECK_EQ_INT(st.exchanges, nex);
    long long mine = st.bytes_inter, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    hk_cart_surface_t s;
    CHECK_EQ_INT(hk_cart_surface(&cd, hk_cart_layout(cart), &s), HK_SUCCESS);
    CHECK_EQ_INT(sum, s.inter_bytes);
    if (hk_test_rank == 0) {
      printf("predicted_inter_bytes_per_exchange=%lld nodes=%d\n", s.inter_bytes, ni.nnodes);
      printf("intra_bytes_per_exchange=%lld self_bytes_per_exchange=%lld inter_msgs=%lld "
             "procs=%dx%dx%d map=%s map_used=%s exchanges=%lld%s%s\n",
             s.intra_bytes, s.self_bytes, s.inter_msgs, ci.procs[0], ci.procs[1], ci.procs[2],
             hk_cart_map_name(map), hk_cart_map_name(ci.map_used), nex,
             ci.note && *ci.note ? " note=" : "", ci.note ? ci.note : "");
      fflush(stdout);
    }
    hk_halo_field_free(&f);
    hk_halo_destroy(&h);
  }
  hk_cart_destroy(&cart);
  hk_nodes_destroy(&nodes);
  int rc = hk_test_mpi_report("halo_bytes");
  hk_finalize();
  return rc;
}
