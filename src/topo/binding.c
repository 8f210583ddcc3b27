/* src/topo/binding.c: where threads may run and do run; binding by policy.
 *
 * The report is what a person checks first on a hybrid run: Open MPI binds a
 * rank to one core by default (np <= 2), and then all OpenMP threads of the
 * rank time-slice on that core.  Warnings name such cases. */
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
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

/* The binding report at scale: rank 0 gets every rank's threads in one
 * MPI_Gatherv of ints; the message of a rank is a header {threads, host length
 * in ints}, its host name once, then per thread {thread, cpu, node} and the
 * cpuset's `words` unsigned longs (as ints).  The others keep their own. */
enum { PER_LONG = (int)(sizeof(unsigned long) / sizeof(int)) };

static int pack(const char *host, int nthreads, const int *cpus, hwloc_bitmap_t *sets, int node,
                int words, int **buf, int *len)
{
  int hostints = ((int)strlen(host) + 1 + (int)sizeof(int) - 1) / (int)sizeof(int);
  int per_thread = 3 + words * PER_LONG;
  long long n = 2 + hostints + (long long)nthreads * per_thread;
  if (n > INT32_MAX)
    return HK_ERROR(HK_ERR_RESOURCES, "binding report of %lld ints from one rank", n);
  int err = HK_SUCCESS, *p = NULL;
  HK_ALLOC_TRY(err, p, n);
  p[0] = nthreads;
  p[1] = hostints;
  memcpy(p + 2, host, strlen(host) + 1);
  for (int t = 0; t < nthreads; t++) {
    int *w = p + 2 + hostints + t * per_thread;
    w[0] = t;
    w[1] = cpus[t];
    w[2] = node;
    for (int k = 0; k < words; k++) {
      unsigned long v = hwloc_bitmap_to_ith_ulong(sets[t], (unsigned)k);
      memcpy(w + 3 + k * PER_LONG, &v, sizeof v);
    }
  }
  *buf = p;
  *len = (int)n;
cleanup:
  return err;
}

/* the entries of `nmsg` messages at msg + displs[r] (rank0) or msg (one, of `rank`) */
static int unpack(const int *msg, int nmsg, const int *displs, int rank, int words,
                  hk_binding_t **out)
{
  int err = HK_SUCCESS, nentries = 0, per_thread = 3 + words * PER_LONG;
  hk_binding_t *b = NULL;
  hwloc_bitmap_t one = hwloc_bitmap_alloc();
  for (int r = 0; r < nmsg; r++)
    nentries += msg[displs ? displs[r] : 0];
  HK_ALLOC_TRY(err, b, 1);
  b->nentries = nentries;
  b->set_words = words;
  HK_ALLOC_TRY(err, b->entries, nentries);
  HK_ALLOC_TRY(err, b->sets, (long long)nentries * words);
  if (!one) {
    err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
    goto cleanup;
  }
  for (int r = 0, i = 0; r < nmsg; r++) {
    const int *p = msg + (displs ? displs[r] : 0);
    int n = p[0], hi = p[1];
    for (int t = 0; t < n; t++, i++) {
      const int *w = p + 2 + hi + t * per_thread;
      hk_binding_entry_t *e = &b->entries[i];
      e->rank = displs ? r : rank;
      e->thread = w[0];
      e->cpu = w[1];
      e->node = w[2];
      snprintf(e->host, sizeof e->host, "%s", (const char *)(p + 2));
      hwloc_bitmap_zero(one);
      for (int k = 0; k < words; k++) {
        unsigned long v;
        memcpy(&v, w + 3 + k * PER_LONG, sizeof v);
        hwloc_bitmap_set_ith_ulong(one, (unsigned)k, v);
      }
      hk__binding_store_set(b, i, one);
    }
  }
  *out = b;
  b = NULL;
cleanup:
  hk_binding_destroy(&b);
  hwloc_bitmap_free(one);
  return err;
}

/* sets[t], cpus[t]: the cpuset and the cpu of this rank's OpenMP thread t (each thread
 * asks for its own) */
static int thread_sets(int nthreads, hwloc_bitmap_t *sets, int *cpus)
{
  int err = HK_SUCCESS, failed = 0;
  hk_machine_t *m = NULL;
  HK_TRY(err, hk__real_machine(&m));
#pragma omp parallel num_threads(nthreads) reduction(+ : failed)
  {
    int t = omp_get_thread_num();
    sets[t] = hwloc_bitmap_alloc();
    if (!sets[t] || hwloc_get_cpubind(m->topo, sets[t], HWLOC_CPUBIND_THREAD) != 0)
      failed++;
    cpus[t] = sched_getcpu();
  }
  if (failed)
    err = HK_ERROR(HK_ERR_BIND, "hwloc_get_cpubind failed in %d thread(s)", failed);
cleanup:
  return err;
}

/* displs[r] of the gathered messages of counts[r] ints (rank 0; *total 0 elsewhere) */
static int gather_layout(const int *counts, int *displs, int size, int rank, long long *total)
{
  *total = 0;
  for (int r = 0; rank == 0 && r < size; r++) {
    displs[r] = (int)*total;
    *total += counts[r];
  }
  if (*total > INT32_MAX)
    return HK_ERROR(HK_ERR_RESOURCES, "binding report of %lld ints", *total);
  return HK_SUCCESS;
}

/* the warnings the entries deserve on this machine (rank 0's report) */
static int warnings(hk_binding_t *b)
{
  hk_machine_t *m = NULL;
  int err = hk__real_machine(&m);
  return err != HK_SUCCESS ? err : hk__binding_warnings(b, m->topo);
}

/* Every local failure is agreed before the next collective, so no rank waits
 * in a gather another rank left. */
int hk_binding_report(MPI_Comm comm, const hk_nodes_t *nodes, hk_binding_t **binding)
{
  int err = HK_SUCCESS, rank = 0, size = 1, words = 1, len = 0;
  hwloc_bitmap_t *sets = NULL;
  int *buf = NULL, *counts = NULL, *displs = NULL, *all = NULL, *cpus = NULL;
  hk_binding_t *b = NULL;
  char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
  int hostlen = 0;
  int nthreads = omp_get_max_threads();
  long long total = 0;
  if (!binding)
    return HK_ERROR(HK_ERR_ARG, "binding is NULL");
  *binding = NULL;
  HK_MPI_TRY(err, MPI_Comm_rank(comm, &rank));
  HK_MPI_TRY(err, MPI_Comm_size(comm, &size));
  HK_MPI_TRY(err, MPI_Get_processor_name(host, &hostlen));
  host[sizeof ((hk_binding_entry_t *)0)->host - 1] = '\0'; /* as the entries keep it */
  HK_ALLOC_LOCAL(err, sets, nthreads);
  HK_ALLOC_LOCAL(err, cpus, nthreads);
  HK_LOCAL(err, thread_sets(nthreads, sets, cpus));
  HK_AGREE(err, comm);
  for (int t = 0; t < nthreads; t++)
    if (hk__set_words(sets[t]) > words)
      words = hk__set_words(sets[t]);
  HK_MPI_TRY(err, MPI_Allreduce(MPI_IN_PLACE, &words, 1, MPI_INT, MPI_MAX, comm));
  HK_LOCAL(err, pack(host, nthreads, cpus, sets, nodes ? hk__nodes_node_of(nodes, rank) : 0, words,
                     &buf, &len));
  if (rank == 0) {
    HK_ALLOC_LOCAL(err, counts, size);
    HK_ALLOC_LOCAL(err, displs, size);
  }
  HK_AGREE(err, comm);
  HK_MPI_TRY(err, MPI_Gather(&len, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  HK_LOCAL(err, gather_layout(counts, displs, size, rank, &total));
  if (rank == 0)
    HK_ALLOC_LOCAL(err, all, total);
  HK_AGREE(err, comm);
  HK_MPI_TRY(err, MPI_Gatherv(buf, len, MPI_INT, all, counts, displs, MPI_INT, 0, comm));
  HK_LOCAL(err, rank == 0 ? unpack(all, size, displs, 0, words, &b)
                          : unpack(buf, 1, NULL, rank, words, &b));
  if (rank == 0)
    HK_LOCAL(err, warnings(b));
  HK_AGREE(err, comm);
  *binding = b;
  b = NULL;
cleanup:
  hk_binding_destroy(&b);
  for (int t = 0; sets && t < nthreads; t++)
    hwloc_bitmap_free(sets[t]);
  free(sets);
  free(cpus);
  free(buf);
  free(all);
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
  free((*binding)->sets);
  free(*binding);
  *binding = NULL;
}
