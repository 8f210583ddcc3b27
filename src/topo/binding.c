/* src/topo/binding.c: where threads may run and do run; binding by policy.
 *
 * The report is what a person checks first on a hybrid run: Open MPI binds a
 * rank to one core by default (np <= 2), and then all OpenMP threads of the
 * rank time-slice on that core.  Warnings name such cases. */
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal/hk_internal.h"

static const char *const hk_policy_names[] = {"none", "compact", "scatter"};

const char *hk_bind_policy_name(hk_bind_policy_t policy)
{
  if ((int)policy < 0 || (int)policy >= HK_BIND_POLICY_COUNT)
    return "invalid";
  return hk_policy_names[policy];
}

int hk_bind_policy_parse(const char *name, hk_bind_policy_t *policy)
{
  for (int p = 0; name && p < HK_BIND_POLICY_COUNT; p++)
    if (strcmp(name, hk_policy_names[p]) == 0) {
      *policy = (hk_bind_policy_t)p;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG, "unknown binding policy '%s' (none, compact, scatter)",
                  name ? name : "(null)");
}

/* Union of the current cpusets of the threads of a parallel region of `nthreads`. */
static int rank_cpuset(hwloc_topology_t topo, int nthreads, hwloc_bitmap_t set)
{
  int failed = 0;
  hwloc_bitmap_zero(set);
#pragma omp parallel num_threads(nthreads) reduction(+ : failed)
  {
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (!mine || hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_THREAD) != 0) {
      failed++;
    } else {
#pragma omp critical(hk_rank_cpuset)
      hwloc_bitmap_or(set, set, mine);
    }
    hwloc_bitmap_free(mine);
  }
  if (failed)
    return HK_ERROR(HK_ERR_BIND, "hwloc_get_cpubind failed in %d thread(s)", failed);
  return HK_SUCCESS;
}

/* The PUs this rank was given (by the launcher), taken the first time
 * hk_bind_threads runs, before it narrows any thread. */
static hwloc_bitmap_t hk_rank_set;

void hk__rank_set_free(void)
{
  hwloc_bitmap_free(hk_rank_set);
  hk_rank_set = NULL;
}

int hk_bind_threads(hk_bind_policy_t policy)
{
  int err = HK_SUCCESS, wrapped = 0, failed = 0;
  hk_machine_t *m = NULL;
  hwloc_bitmap_t set = hwloc_bitmap_alloc(), *sets = NULL;
  int nthreads = omp_get_max_threads();
  if ((int)policy < 0 || (int)policy >= HK_BIND_POLICY_COUNT) {
    err = HK_ERROR(HK_ERR_ARG, "invalid binding policy %d", (int)policy);
    goto cleanup;
  }
  if (omp_in_parallel()) {
    err = HK_ERROR(HK_ERR_STATE, "hk_bind_threads called inside a parallel region");
    goto cleanup;
  }
  HK_TRY(err, hk__real_machine(&m));
  if (!hk_rank_set) {
    HK_TRY(err, rank_cpuset(m->topo, nthreads, set));
    if (!(hk_rank_set = hwloc_bitmap_dup(set))) {
      err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
      goto cleanup;
    }
  }
  hwloc_bitmap_copy(set, hk_rank_set);
  HK_TRY(err, hk__place_threads(m->topo, set, policy, nthreads, &sets, &wrapped));
#pragma omp parallel num_threads(nthreads) reduction(+ : failed)
  {
    if (hwloc_set_cpubind(m->topo, sets[omp_get_thread_num()], HWLOC_CPUBIND_THREAD) != 0)
      failed++;
  }
  if (failed) {
    char s[128];
    hwloc_bitmap_list_snprintf(s, sizeof s, set);
    err = HK_ERROR(HK_ERR_BIND, "binding %d of %d threads inside PUs %s by '%s' failed", failed,
                   nthreads, s, hk_bind_policy_name(policy));
  }
cleanup:
  if (sets)
    for (int t = 0; t < nthreads; t++)
      hwloc_bitmap_free(sets[t]);
  free(sets);
  hwloc_bitmap_free(set);
  return err;
}

int hk__binding_add_warning(hk_binding_t *b, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int err = hk__strlist_vadd(&b->warnings, &b->nwarnings, fmt, ap);
  va_end(ap);
  return err;
}

/* Warn when threads of one rank share PUs, or a host runs more threads than it has PUs. */
int hk__binding_warnings(hk_binding_t *b)
{
  int err = HK_SUCCESS;
  hwloc_bitmap_t u = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
  char list[128];
  for (int i = 0; i < b->nentries;) {
    int j = i;
    hwloc_bitmap_zero(u);
    for (; j < b->nentries && b->entries[j].rank == b->entries[i].rank; j++) {
      hwloc_bitmap_list_sscanf(one, b->entries[j].cpuset);
      hwloc_bitmap_or(u, u, one);
    }
    int nthreads = j - i, npus = hwloc_bitmap_weight(u);
    if (npus < nthreads) {
      hwloc_bitmap_list_snprintf(list, sizeof list, u);
      HK_TRY(err, hk__binding_add_warning(
                      b,
                      "rank %d on %s: %d threads share %d PU%s (%s) and time-slice; give each "
                      "thread its own core (mpirun --map-by slot:PE=%d --bind-to core, "
                      "OMP_PLACES=cores OMP_PROC_BIND=close)",
                      b->entries[i].rank, b->entries[i].host, nthreads, npus, npus == 1 ? "" : "s",
                      list, nthreads));
    }
    i = j;
  }
  /* per host: threads vs PUs available to them */
  for (int i = 0; i < b->nentries; i++) {
    int first = 1;
    for (int k = 0; k < i; k++)
      if (strcmp(b->entries[k].host, b->entries[i].host) == 0) {
        first = 0;
        break;
      }
    if (!first)
      continue;
    int nthreads = 0;
    hwloc_bitmap_zero(u);
    for (int k = i; k < b->nentries; k++)
      if (strcmp(b->entries[k].host, b->entries[i].host) == 0) {
        hwloc_bitmap_list_sscanf(one, b->entries[k].cpuset);
        hwloc_bitmap_or(u, u, one);
        nthreads++;
      }
    int npus = hwloc_bitmap_weight(u);
    if (npus < nthreads) {
      hwloc_bitmap_list_snprintf(list, sizeof list, u);
      HK_TRY(err, hk__binding_add_warning(b, "host %s: %d threads on %d PU%s (%s): oversubscribed",
                                          b->entries[i].host, nthreads, npus, npus == 1 ? "" : "s",
                                          list));
    }
  }
cleanup:
  hwloc_bitmap_free(u);
  hwloc_bitmap_free(one);
  return err;
}

int hk_binding_report(MPI_Comm comm, const hk_nodes_t *nodes, hk_binding_t **binding)
{
  int err = HK_SUCCESS, local = HK_SUCCESS, rank = 0, size = 1, failed = 0;
  hk_machine_t *m = NULL;
  hk_binding_entry_t *mine = NULL;
  int *counts = NULL, *displs = NULL;
  hk_binding_t *b = NULL;
  char host[MPI_MAX_PROCESSOR_NAME];
  int hostlen = 0;
  int nthreads = omp_get_max_threads();
  if (!binding)
    return HK_ERROR(HK_ERR_ARG, "binding is NULL");
  *binding = NULL;
  HK_MPI_TRY(err, MPI_Comm_rank(comm, &rank));
  HK_MPI_TRY(err, MPI_Comm_size(comm, &size));
  HK_MPI_TRY(err, MPI_Get_processor_name(host, &hostlen));
  HK_ALLOC_TRY(err, mine, nthreads);
  local = hk__real_machine(&m);
  if (local == HK_SUCCESS) {
#pragma omp parallel num_threads(nthreads) reduction(+ : failed)
    {
      int t = omp_get_thread_num();
      hwloc_bitmap_t s = hwloc_bitmap_alloc();
      mine[t].rank = rank;
      mine[t].thread = t;
      mine[t].node = nodes ? hk__nodes_node_of(nodes, rank) : 0;
      snprintf(mine[t].host, sizeof mine[t].host, "%s", host);
      if (s && hwloc_get_cpubind(m->topo, s, HWLOC_CPUBIND_THREAD) == 0)
        hwloc_bitmap_list_snprintf(mine[t].cpuset, sizeof mine[t].cpuset, s);
      else
        failed++;
      mine[t].cpu = sched_getcpu();
      hwloc_bitmap_free(s);
    }
    if (failed)
      local = HK_ERROR(HK_ERR_BIND, "hwloc_get_cpubind failed in %d thread(s)", failed);
  }
  HK_TRY(err, hk_agree(comm, local));

  HK_ALLOC_TRY(err, counts, size);
  HK_ALLOC_TRY(err, displs, size);
  int nbytes = nthreads * (int)sizeof(hk_binding_entry_t);
  HK_MPI_TRY(err, MPI_Allgather(&nbytes, 1, MPI_INT, counts, 1, MPI_INT, comm));
  long long total = 0;
  for (int r = 0; r < size; r++) {
    displs[r] = (int)total;
    total += counts[r];
  }
  HK_ALLOC_TRY(err, b, 1);
  b->nentries = (int)(total / (long long)sizeof(hk_binding_entry_t));
  HK_ALLOC_TRY(err, b->entries, b->nentries);
  HK_MPI_TRY(err, MPI_Allgatherv(mine, nbytes, MPI_BYTE, b->entries, counts, displs, MPI_BYTE, comm));
  HK_TRY(err, hk__binding_warnings(b));
  *binding = b;
  b = NULL;
cleanup:
  hk_binding_destroy(&b);
  free(mine);
  free(counts);
  free(displs);
  return err;
}

int hk_binding_print(const hk_binding_t *b, FILE *out)
{
  if (!b || !out)
    return HK_ERROR(HK_ERR_ARG, "binding and out must not be NULL");
  fprintf(out, "# %6s %6s %4s  %-20s %-16s %4s\n", "rank", "thread", "node", "host", "cpuset(PUs)",
          "cpu");
  for (int i = 0; i < b->nentries; i++) {
    const hk_binding_entry_t *e = &b->entries[i];
    fprintf(out, "  %6d %6d %4d  %-20s %-16s %4d\n", e->rank, e->thread, e->node, e->host,
            e->cpuset, e->cpu);
  }
  return HK_SUCCESS;
}

void hk_binding_destroy(hk_binding_t **binding)
{
  if (!binding || !*binding)
    return;
  for (int i = 0; i < (*binding)->nwarnings; i++)
    free((*binding)->warnings[i]);
  free((*binding)->warnings);
  free((*binding)->entries);
  free(*binding);
  *binding = NULL;
}
