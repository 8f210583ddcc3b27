/* tests/mpi/test_binding.c: the binding report and hk_bind_threads on the real
 * machine, under whatever binding the launcher gave (tests launch with
 * --bind-to none, so every rank may use every PU). */
#include <hwloc.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include "hk_test_mpi.h"
#include "hybridkit.h"

/* my threads' entries */
static const hk_binding_entry_t *mine(const hk_binding_t *b, int rank, int *n)
{
  *n = 0;
  const hk_binding_entry_t *first = NULL;
  for (int i = 0; i < b->nentries; i++)
    if (b->entries[i].rank == rank) {
      if (!first)
        first = &b->entries[i];
      (*n)++;
    }
  return first;
}

static int has_warning(const hk_binding_t *b, const char *text)
{
  for (int i = 0; i < b->nwarnings; i++)
    if (strstr(b->warnings[i], text))
      return 1;
  return 0;
}

int main(int argc, char **argv)
{
  hk_init(&argc, &argv, HK_THREAD_FUNNELED);
  int rank, size, nt = omp_get_max_threads(), total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hk_test_rank = rank;
  MPI_Allreduce(&nt, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  hwloc_bitmap_t set = hwloc_bitmap_alloc(), u = hwloc_bitmap_alloc();

  hk_binding_t *b = NULL;
  CHECK_EQ_INT(hk_binding_report(MPI_COMM_WORLD, NULL, &b), HK_SUCCESS);
  /* gathered to rank 0; the others keep their own threads */
  CHECK_EQ_INT(b->nentries, rank == 0 ? total : nt);
  for (int i = 0; i < b->nentries; i++) {
    /* the bitmap and the display string name the same PUs */
    hk_binding_entry_t *bi = &b->entries[i];
    hwloc_bitmap_zero(u);
    for (int w = 0; w < b->set_words; w++)
      hwloc_bitmap_set_ith_ulong(u, (unsigned)w, b->sets[i * b->set_words + w]);
    CHECK(hwloc_bitmap_list_sscanf(set, bi->cpuset) == 0 && hwloc_bitmap_isequal(set, u));
    CHECK(hwloc_bitmap_list_sscanf(set, b->entries[i].cpuset) == 0 && !hwloc_bitmap_iszero(set));
    if (b->entries[i].cpu >= 0)
      CHECK(hwloc_bitmap_isset(set, (unsigned)b->entries[i].cpu));
    CHECK(i == 0 || b->entries[i].rank > b->entries[i - 1].rank ||
          b->entries[i].thread == b->entries[i - 1].thread + 1);
  }
  /* the rank's PUs, for what binding may do inside them */
  int n = 0;
  const hk_binding_entry_t *e = mine(b, rank, &n);
  CHECK_EQ_INT(n, nt);
  hwloc_bitmap_zero(u);
  for (int t = 0; t < n; t++) {
    hwloc_bitmap_list_sscanf(set, e[t].cpuset);
    hwloc_bitmap_or(u, u, set);
  }
  hk_binding_destroy(&b);
  CHECK(b == NULL);

  /* compact: thread t on its own core while there are enough; each set inside the rank's PUs */
  hk_machine_t *m = NULL;
  hk_machine_load(NULL, &m);
  hk_machine_info_t mi;
  hk_machine_info(m, &mi);
  const char *policies[] = {"compact", "scatter", "none"};
  for (int p = 0; p < 3; p++) {
    hk_bind_policy_t pol;
    hk_bind_policy_parse(policies[p], &pol);
    CHECK_EQ_INT(hk_bind_threads(pol), HK_SUCCESS);
    CHECK_EQ_INT(hk_binding_report(MPI_COMM_WORLD, NULL, &b), HK_SUCCESS);
    e = mine(b, rank, &n);
    int cores_in_rank = hwloc_bitmap_weight(u) * mi.cores / mi.pus;
    for (int t = 0; t < n; t++) {
      hwloc_bitmap_list_sscanf(set, e[t].cpuset);
      CHECK(hwloc_bitmap_isincluded(set, u));
      if (pol == HK_BIND_NONE) {
        CHECK(hwloc_bitmap_isequal(set, u));
        /* unbound threads of a rank that may use several cores: rank 0 warns */
        if (rank == 0 && t == 0 && hwloc_bitmap_weight(u) > mi.pus / mi.cores)
          CHECK(has_warning(b, "rank 0 on ") && (has_warning(b, "threads are not pinned") ||
                                                 has_warning(b, "thread is not pinned")));
      } else {
        CHECK(!has_warning(b, "not pinned"));
        CHECK(hwloc_bitmap_weight(set) == mi.pus / mi.cores); /* one core */
        for (int s = 0; s < t && t < cores_in_rank; s++)
          CHECK(strcmp(e[s].cpuset, e[t].cpuset) != 0);
      }
    }
    hk_binding_destroy(&b);
  }

  /* all threads of every rank on one PU: the report must warn */
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(hwloc_bitmap_first(u), &one);
#pragma omp parallel
  sched_setaffinity(0, sizeof one, &one);
  CHECK_EQ_INT(hk_binding_report(MPI_COMM_WORLD, NULL, &b), HK_SUCCESS);
  char want[64];
  /* rank 0 holds the warnings of every rank */
  for (int r = 0; r < size && rank == 0; r++) {
    snprintf(want, sizeof want, "rank %d on ", r);
    if (nt > 1)
      CHECK(has_warning(b, want));
  }
  if (rank == 0 && nt > 1)
    CHECK(has_warning(b, "threads share 1 PU"));
  if (rank == 0 && total > 1)
    CHECK(has_warning(b, "oversubscribed"));
  else
    CHECK_EQ_INT(b->nwarnings, 0);
  hk_binding_destroy(&b);

  hk_machine_destroy(&m);
  hwloc_bitmap_free(set);
  hwloc_bitmap_free(u);
  int rc = hk_test_mpi_report("test_binding");
  hk_finalize();
  return rc;
}
