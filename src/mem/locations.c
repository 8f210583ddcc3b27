/* src/mem/locations.c: Jin et al.'s OpenMP locations on hwloc: which PUs and NUMA nodes
 * each location has, the block mapping of a team's threads onto a range of locations,
 * the inheritance rule of nested regions, and binding threads to their locations.
 *
 *   16 threads, location(0:3):   t 0-3 -> loc 0 | t 4-7 -> loc 1 | t 8-11 -> 2 | 12-15 -> 3
 *   nested region of thread 5, no location clause:  all its threads on loc 1
 */
#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "mem/mem_internal.h"

static const char *const kind_names[] = {"numa", "package", "l3"};

const char *hk_loc_kind_name(hk_loc_kind_t kind)
{
  if ((int)kind < 0 || (int)kind >= HK_LOC_KIND_COUNT)
    return "invalid";
  return kind_names[kind];
}

int hk_loc_kind_parse(const char *name, hk_loc_kind_t *kind)
{
  for (int k = 0; name && kind && k < HK_LOC_KIND_COUNT; k++)
    if (strcmp(name, kind_names[k]) == 0) {
      *kind = (hk_loc_kind_t)k;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG, "unknown location kind '%s' (numa, package, l3)",
                  name ? name : "(null)");
}

/* $HK_NUM_LOCS: 0 when unset or empty */
int hk__mem_nlocs_env(int *n)
{
  const char *v = getenv("HK_NUM_LOCS");
  int k0 = 0;
  if (!n)
    n = &k0;
  *n = 0;
  if (!v || !*v)
    return HK_SUCCESS;
  char *end = NULL;
  errno = 0;
  long k = strtol(v, &end, 10);
  if (errno || *end || k < 1 || k > 65536)
    return HK_ERROR(HK_ERR_ARG, "HK_NUM_LOCS=%s is not a positive integer (1..65536)", v);
  *n = (int)k;
  return HK_SUCCESS;
}

/* The objects locations are made of: NUMA nodes, packages or L3 caches (falling back to
 * packages, then to the whole machine, when the machine has none). */
static hwloc_obj_type_t object_type(hwloc_topology_t t, hk_loc_kind_t kind)
{
  if (kind == HK_LOC_NUMA)
    return HWLOC_OBJ_NUMANODE;
  if (kind == HK_LOC_L3 && hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE) > 0)
    return HWLOC_OBJ_L3CACHE;
  if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE) > 0)
    return HWLOC_OBJ_PACKAGE;
  return HWLOC_OBJ_MACHINE;
}

void hk_locations_destroy(hk_locations_t **locs)
{
  if (!locs || !*locs)
    return;
  hk_locations_t *l = *locs;
  for (int i = 0; i < l->nlocs; i++) {
    if (l->cpusets)
      hwloc_bitmap_free(l->cpusets[i]);
    if (l->nodesets)
      hwloc_bitmap_free(l->nodesets[i]);
  }
  free(l->cpusets);
  free(l->nodesets);
  free(l->numa_first);
  free(l->nnuma);
  free(l);
  *locs = NULL;
}

int hk_locations_create(const hk_machine_t *machine, const hk_locations_desc_t *desc,
                        hk_locations_t **locs)
{
  int err = HK_SUCCESS, nlocs = 0;
  hk_machine_t *own = NULL;
  hk_locations_t *l = NULL;
  hk_locations_desc_t d = desc ? *desc : (hk_locations_desc_t){0};
  if (!locs)
    return HK_ERROR(HK_ERR_ARG, "locs is NULL");
  *locs = NULL;
  if ((int)d.kind < 0 || (int)d.kind >= HK_LOC_KIND_COUNT || d.nlocs < 0) {
    err = HK_ERROR(HK_ERR_ARG, "invalid locations: kind %d, nlocs %d", (int)d.kind, d.nlocs);
    goto cleanup;
  }
  if (!machine) {
    HK_TRY(err, hk_machine_load(NULL, &own));
    machine = own;
  }
  hwloc_topology_t t = machine->topo;
  hwloc_obj_type_t type = object_type(t, d.kind);
  int nobj = hwloc_get_nbobjs_by_type(t, type);
  if (nobj < 1) {
    err = HK_ERROR(HK_ERR_TOPOLOGY, "machine %s has no %s objects for locations", machine->source,
                   hk_loc_kind_name(d.kind));
    goto cleanup;
  }
  nlocs = d.nlocs;
  if (!nlocs)
    HK_TRY(err, hk__mem_nlocs_env(&nlocs));
  if (!nlocs)
    nlocs = nobj;
  HK_ALLOC_TRY(err, l, 1);
  l->nlocs = nlocs;
  l->kind = d.kind;
  l->this_system = machine->this_system;
  HK_ALLOC_TRY(err, l->cpusets, nlocs);
  HK_ALLOC_TRY(err, l->nodesets, nlocs);
  HK_ALLOC_TRY(err, l->numa_first, nlocs);
  HK_ALLOC_TRY(err, l->nnuma, nlocs);
  for (int i = 0; i < nlocs; i++) {
    l->cpusets[i] = hwloc_bitmap_alloc();
    l->nodesets[i] = hwloc_bitmap_alloc();
    if (!l->cpusets[i] || !l->nodesets[i]) {
      err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
      goto cleanup;
    }
    /* objects [i*N/k, (i+1)*N/k), at least one */
    int lo = (int)((long long)i * nobj / nlocs), hi = (int)((long long)(i + 1) * nobj / nlocs);
    if (hi <= lo)
      hi = lo + 1;
    for (int o = lo; o < hi; o++) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(t, type, (unsigned)o);
      hwloc_bitmap_or(l->cpusets[i], l->cpusets[i], obj->cpuset);
      hwloc_bitmap_or(l->nodesets[i], l->nodesets[i], obj->nodeset);
    }
    l->numa_first[i] = -1;
    for (hwloc_obj_t n = NULL; (n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n));)
      if (hwloc_bitmap_isset(l->nodesets[i], n->os_index)) {
        if (l->numa_first[i] < 0)
          l->numa_first[i] = (int)n->logical_index;
        l->nnuma[i]++;
      }
  }
  *locs = l;
  l = NULL;
cleanup:
  hk_locations_destroy(&l);
  hk_machine_destroy(&own);
  return err;
}

int hk_locations_count(const hk_locations_t *locs, int *nlocs)
{
  if (!locs || !nlocs)
    return HK_ERROR(HK_ERR_ARG, "locs and nlocs must not be NULL");
  *nlocs = locs->nlocs;
  return HK_SUCCESS;
}

int hk_locations_info(const hk_locations_t *locs, int loc, hk_location_info_t *info)
{
  if (!locs || !info)
    return HK_ERROR(HK_ERR_ARG, "locs and info must not be NULL");
  if (loc < 0 || loc >= locs->nlocs)
    return HK_ERROR(HK_ERR_ARG, "location %d out of range (%d location(s): 0..%d)", loc,
                    locs->nlocs, locs->nlocs - 1);
  memset(info, 0, sizeof *info);
  info->npus = hwloc_bitmap_weight(locs->cpusets[loc]);
  info->nnuma = locs->nnuma[loc];
  info->numa_first = locs->numa_first[loc];
  hwloc_bitmap_list_snprintf(info->cpuset, sizeof info->cpuset, locs->cpusets[loc]);
  hwloc_bitmap_list_snprintf(info->nodeset, sizeof info->nodeset, locs->nodesets[loc]);
  return HK_SUCCESS;
}

int hk__loc_range(const hk_locations_t *locs, const hk_loc_range_t *r, int *first, int *n)
{
  if (!locs)
    return HK_ERROR(HK_ERR_ARG, "locs is NULL");
  hk_loc_range_t rr = r ? *r : (hk_loc_range_t){0};
  int count = rr.count ? rr.count : locs->nlocs - rr.first;
  if (rr.first < 0 || rr.first >= locs->nlocs || count < 1 || rr.count < 0 ||
      count > locs->nlocs - rr.first)
    return HK_ERROR(HK_ERR_ARG,
                    "locations %d..%d out of range (%d location(s): 0..%d)", rr.first,
                    rr.first + (rr.count > 0 ? rr.count : 1) - 1, locs->nlocs, locs->nlocs - 1);
  *first = rr.first;
  *n = count;
  return HK_SUCCESS;
}

int hk_locations_thread(const hk_locations_t *locs, const hk_loc_range_t *range, int nthreads,
                        int thread, int *loc)
{
  int first = 0, n = 0;
  int err = hk__loc_range(locs, range, &first, &n);
  if (err != HK_SUCCESS)
    return err;
  if (!loc || nthreads < 1 || thread < 0 || thread >= nthreads)
    return HK_ERROR(HK_ERR_ARG, "thread %d of a team of %d (or loc NULL)", thread, nthreads);
  *loc = first + hk__block_owner((unsigned long long)thread, (unsigned long long)nthreads, n);
  return HK_SUCCESS;
}

int hk_locations_threads_on(const hk_locations_t *locs, const hk_loc_range_t *range, int nthreads,
                            int loc, int *first_thread, int *count)
{
  int first = 0, n = 0;
  int err = hk__loc_range(locs, range, &first, &n);
  if (err != HK_SUCCESS)
    return err;
  if (!first_thread || !count || nthreads < 1)
    return HK_ERROR(HK_ERR_ARG, "team of %d threads (or NULL outputs)", nthreads);
  if (loc < first || loc >= first + n)
    return HK_ERROR(HK_ERR_ARG, "location %d is not in the range %d..%d", loc, first, first + n - 1);
  /* threads t with t*n/T == loc-first: t from ceil(l*T/n) to ceil((l+1)*T/n) - 1 */
  long long l = loc - first, lo = (l * nthreads + n - 1) / n, hi = ((l + 1) * nthreads + n - 1) / n;
  *first_thread = (int)lo;
  *count = (int)(hi - lo);
  return HK_SUCCESS;
}

int hk_locations_nested(const hk_locations_t *locs, const hk_loc_range_t *parent, int nthreads,
                        int thread, const hk_loc_range_t *clause, hk_loc_range_t *child)
{
  int first = 0, n = 0, loc = 0;
  if (!child)
    return HK_ERROR(HK_ERR_ARG, "child is NULL");
  int err = HK_SUCCESS;
  HK_TRY(err, hk_locations_thread(locs, parent, nthreads, thread, &loc));
  if (clause)
    HK_TRY(err, hk__loc_range(locs, clause, &first, &n));
  *child = clause ? (hk_loc_range_t){first, n} : (hk_loc_range_t){loc, 1};
cleanup:
  return err;
}

/* The PUs this process may use now (the union of its threads' bindings). */
static int process_set(hwloc_topology_t t, hwloc_bitmap_t set)
{
  if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) != 0 || hwloc_bitmap_iszero(set))
    hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(t));
  return HK_SUCCESS;
}

/* sets[l] = the PUs of location first+l inside the process's, for l < n; HK_ERR_BIND naming
 * the first location that a team of `nthreads` uses and that has no such PU. */
/* HK_ERR_BIND naming the first location (of n from first) whose usable PUs (sets[l]) are
 * none although a thread of nthreads is placed there; proc: what the process may use */
static int every_thread_has_pu(const hk_locations_t *locs, const hwloc_bitmap_t *sets, int first,
                               int n, int nthreads, hwloc_const_bitmap_t proc)
{
  for (int i = 0; i < nthreads; i++) {
    int l = hk__block_owner((unsigned long long)i, (unsigned long long)nthreads, n);
    if (hwloc_bitmap_iszero(sets[l])) {
      char a[128], b[128];
      hwloc_bitmap_list_snprintf(a, sizeof a, locs->cpusets[first + l]);
      hwloc_bitmap_list_snprintf(b, sizeof b, proc);
      return HK_ERROR(HK_ERR_BIND, "location %d (PUs %s) has no PU this process may use (%s)",
                      first + l, a, b);
    }
  }
  return HK_SUCCESS;
}

static int loc_sets(const hk_locations_t *locs, hwloc_topology_t t, int first, int n, int nthreads,
                    hwloc_bitmap_t *sets)
{
  int err = HK_SUCCESS;
  hwloc_bitmap_t proc = hwloc_bitmap_alloc();
  if (!proc)
    return HK_ERROR(HK_ERR_NOMEM, "out of memory");
  process_set(t, proc);
  for (int l = 0; l < n; l++) {
    if (!(sets[l] = hwloc_bitmap_alloc())) {
      err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
      break;
    }
    hwloc_bitmap_and(sets[l], locs->cpusets[first + l], proc);
  }
  HK_LOCAL(err, every_thread_has_pu(locs, sets, first, n, nthreads, proc));
  hwloc_bitmap_free(proc);
  return err;
}

static void free_sets(hwloc_bitmap_t *sets, int n)
{
  for (int i = 0; sets && i < n; i++)
    hwloc_bitmap_free(sets[i]);
  free(sets);
}

int hk_locations_bind(const hk_locations_t *locs, const hk_loc_range_t *range)
{
  int err = HK_SUCCESS, first = 0, n = 0, failed = 0;
  int nthreads = omp_get_max_threads();
  hk_machine_t *m = NULL;
  hwloc_bitmap_t *sets = NULL;
  HK_TRY(err, hk__loc_range(locs, range, &first, &n));
  if (!locs->this_system) {
    err = HK_ERROR(HK_ERR_UNSUPPORTED,
                   "these locations describe a synthetic or XML machine: binding needs this machine's");
    goto cleanup;
  }
  if (omp_in_parallel()) {
    err = HK_ERROR(HK_ERR_STATE, "hk_locations_bind called inside a parallel region");
    goto cleanup;
  }
  HK_TRY(err, hk__real_machine(&m));
  HK_ALLOC_TRY(err, sets, n);
  HK_TRY(err, loc_sets(locs, m->topo, first, n, nthreads, sets));
#pragma omp parallel num_threads(nthreads) reduction(+ : failed)
  {
    int l = hk__block_owner((unsigned long long)omp_get_thread_num(),
                            (unsigned long long)omp_get_num_threads(), n);
    if (hwloc_set_cpubind(m->topo, sets[l], HWLOC_CPUBIND_THREAD) != 0)
      failed++;
  }
  if (failed)
    err = HK_ERROR(HK_ERR_BIND, "binding %d of %d threads to locations %d..%d failed", failed,
                   nthreads, first, first + n - 1);
cleanup:
  free_sets(sets, n);
  return err;
}

/* The location of the calling thread inside hk_locations_parallel (-1 outside): a nested
 * call without a range inherits it. */
static _Thread_local int hk_current_loc = -1;

int hk_locations_parallel(const hk_locations_t *locs, const hk_loc_range_t *range, int nthreads,
                          void (*body)(void *arg, const hk_loc_thread_t *me), void *arg)
{
  int err = HK_SUCCESS, first = 0, n = 0, failed = 0, team = 0;
  hk_machine_t *m = NULL;
  hwloc_bitmap_t *sets = NULL;
  hk_loc_range_t r = range ? *range : (hk_loc_range_t){0};
  if (!range && hk_current_loc >= 0)
    r = (hk_loc_range_t){hk_current_loc, 1};
  HK_TRY(err, hk__loc_range(locs, &r, &first, &n));
  if (!body || nthreads < 0) {
    err = HK_ERROR(HK_ERR_ARG, "body is NULL or nthreads %d < 0", nthreads);
    goto cleanup;
  }
  if (!nthreads)
    nthreads = omp_get_max_threads();
  if (locs->this_system) {
    HK_TRY(err, hk__real_machine(&m));
    HK_ALLOC_TRY(err, sets, n);
    HK_TRY(err, loc_sets(locs, m->topo, first, n, nthreads, sets));
  }
#pragma omp parallel num_threads(nthreads)
  {
    hk_loc_thread_t me = {.thread = omp_get_thread_num(), .nthreads = omp_get_num_threads(),
                          .range = {first, n}};
    /* the team obtained, which OMP_THREAD_LIMIT, nesting or dynamic teams may make
     * smaller than nthreads: the block map follows it */
    me.location = first + hk__block_owner((unsigned long long)me.thread,
                                          (unsigned long long)me.nthreads, n);
#pragma omp single nowait
    team = me.nthreads;
    hwloc_bitmap_t old = sets ? hwloc_bitmap_alloc() : NULL;
    hwloc_const_bitmap_t want = sets ? sets[me.location - first] : NULL;
    int bound = want && old && !hwloc_bitmap_iszero(want) &&
                hwloc_get_cpubind(m->topo, old, HWLOC_CPUBIND_THREAD) == 0 &&
                hwloc_set_cpubind(m->topo, want, HWLOC_CPUBIND_THREAD) == 0;
    if (sets && !bound) {
#pragma omp atomic
      failed++;
    }
#pragma omp barrier
    int any_failed;
#pragma omp atomic read
    any_failed = failed;
    if (!any_failed) {
      int saved = hk_current_loc;
      hk_current_loc = me.location;
      body(arg, &me);
      hk_current_loc = saved;
    }
    if (bound)
      hwloc_set_cpubind(m->topo, old, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(old);
  }
  if (failed)
    err = HK_ERROR(HK_ERR_BIND, "binding %d of %d threads (%d asked) to locations %d..%d failed "
                   "(body not run)", failed, team, nthreads, first, first + n - 1);
cleanup:
  free_sets(sets, n);
  return err;
}
