/* src/mem/alloc.c: allocation with a placement policy on hwloc's memory binding.
 *
 * Every policy is first a map page -> location (plan), the same on any machine, then
 * applied: bound policies bind runs of pages that go to the same NUMA nodes
 * (hwloc_set_area_membind, one call per run) and touch every page; first-touch binds
 * nothing and lets each page be touched by the thread that owns its first byte.
 *
 *   block, 3 locations, A[10][N] distributed on dim 0 (rows 0-3 | 4-6 | 7-9):
 *     byte b -> element b/elem -> row -> location row*3/10; page -> owner of its first byte
 */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "mem/mem_internal.h"

struct hk_mem {
  const hk_locations_t *locs;
  hwloc_topology_t topo;   /* the real machine's (owned by the library) */
  char *ptr;
  size_t size, page, npages;
  int *page_loc;
};

static const char *const policy_names[] = {"first-touch", "one-location", "block",
                                           "interleave", "random", "access"};

const char *hk_mem_policy_name(hk_mem_policy_t policy)
{
  if ((int)policy < 0 || (int)policy >= HK_MEM_POLICY_COUNT)
    return "invalid";
  return policy_names[policy];
}

int hk_mem_policy_parse(const char *name, hk_mem_policy_t *policy)
{
  for (int p = 0; name && policy && p < HK_MEM_POLICY_COUNT; p++)
    if (strcmp(name, policy_names[p]) == 0) {
      *policy = (hk_mem_policy_t)p;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG,
                  "unknown placement policy '%s' (first-touch, one-location, block, interleave, "
                  "random, access)", name ? name : "(null)");
}

size_t hk_mem_page_size(void)
{
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

/* the validated description: shape, distributed dimension's stride, team */
typedef struct shape {
  int first, n;                 /* the location range */
  unsigned long long elems;     /* elements of the array */
  unsigned long long stride;    /* elements between neighbours along dim */
  unsigned long long extent;    /* dims[dim] */
  size_t elem;
  int nthreads;
} shape_t;

static int check_desc(const hk_locations_t *locs, const hk_mem_desc_t *d, shape_t *s)
{
  int err = HK_SUCCESS;
  if (!d)
    return HK_ERROR(HK_ERR_ARG, "desc is NULL");
  HK_TRY(err, hk__loc_range(locs, &d->range, &s->first, &s->n));
  if (d->size == 0)
    return HK_ERROR(HK_ERR_ARG, "desc.size is 0");
  if ((int)d->policy < 0 || (int)d->policy >= HK_MEM_POLICY_COUNT)
    return HK_ERROR(HK_ERR_ARG, "desc.policy %d is not a placement policy", (int)d->policy);
  s->elem = d->elem_size ? d->elem_size : 1;
  if (d->ndims == 0) {
    s->elems = d->size / s->elem;
    s->stride = 1;
    s->extent = s->elems;
    if (d->dim != 0)
      return HK_ERROR(HK_ERR_ARG, "desc.dim %d of a 1-D array (ndims 0)", d->dim);
  } else {
    if (d->ndims < 0 || d->ndims > HK_MEM_MAX_DIMS || d->dim < 0 || d->dim >= d->ndims)
      return HK_ERROR(HK_ERR_ARG, "desc.ndims %d / desc.dim %d: 1..%d dimensions, dim below ndims",
                      d->ndims, d->dim, HK_MEM_MAX_DIMS);
    unsigned long long total = 1, stride = 1;
    for (int i = 0; i < d->ndims; i++) {
      if (d->dims[i] < 1)
        return HK_ERROR(HK_ERR_ARG, "desc.dims[%d] = %lld < 1", i, d->dims[i]);
      if (__builtin_mul_overflow(total, (unsigned long long)d->dims[i], &total))
        return HK_ERROR(HK_ERR_ARG, "desc.dims overflow");
      if (i > d->dim)
        stride *= (unsigned long long)d->dims[i];
    }
    unsigned long long bytes;
    if (__builtin_mul_overflow(total, (unsigned long long)s->elem, &bytes) || bytes > d->size)
      return HK_ERROR(HK_ERR_ARG, "the array (%llu elements of %zu bytes) is larger than desc.size %zu",
                      total, s->elem, d->size);
    s->elems = total;
    s->stride = stride;
    s->extent = (unsigned long long)d->dims[d->dim];
  }
  if (s->elems == 0)
    return HK_ERROR(HK_ERR_ARG, "desc.size %zu holds no element of %zu bytes", d->size, s->elem);
  s->nthreads = d->nthreads ? d->nthreads : omp_get_max_threads();
  if (s->nthreads < 1)
    return HK_ERROR(HK_ERR_ARG, "desc.nthreads %d < 0", d->nthreads);
  if (d->policy == HK_MEM_ACCESS) {
    if (d->nranges < 0 || (d->nranges > 0 && !d->ranges))
      return HK_ERROR(HK_ERR_ARG, "desc.nranges %d with ranges %s", d->nranges,
                      d->ranges ? "given" : "NULL");
    for (int i = 0; i < d->nranges; i++) {
      const hk_mem_range_t *r = &d->ranges[i];
      if (r->offset > d->size || r->size > d->size - r->offset)
        return HK_ERROR(HK_ERR_ARG, "desc.ranges[%d] (%zu bytes at %zu) outside the %zu bytes", i,
                        r->size, r->offset, d->size);
      if (r->location < 0 || r->location >= locs->nlocs)
        return HK_ERROR(HK_ERR_ARG, "desc.ranges[%d].location %d out of range (%d location(s): 0..%d)",
                        i, r->location, locs->nlocs, locs->nlocs - 1);
    }
  }
cleanup:
  return err;
}

/* the block (of `parts`) that owns byte b along the distributed dimension */
static int block_of(const shape_t *s, size_t b, int parts)
{
  unsigned long long e = b / s->elem;
  if (e >= s->elems)
    e = s->elems - 1;   /* padding after the array goes with its last element */
  unsigned long long c = (e / s->stride) % s->extent;
  return hk__block_owner(c, s->extent, parts);
}

/* splitmix64 (Steele, Lea, Flood 2014): page p's random number from the seed */
static unsigned long long mix(unsigned long long x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* the location of page p (first byte b) */
static int page_location(const hk_mem_desc_t *d, const shape_t *s, size_t p, size_t b)
{
  switch (d->policy) {
  case HK_MEM_FIRST_TOUCH: {
    int t = block_of(s, b, s->nthreads);
    return s->first + hk__block_owner((unsigned long long)t, (unsigned long long)s->nthreads, s->n);
  }
  case HK_MEM_ONE_LOCATION:
    return s->first;
  case HK_MEM_BLOCK:
    return s->first + block_of(s, b, s->n);
  case HK_MEM_INTERLEAVE:
    return s->first + (int)(p % (size_t)s->n);
  case HK_MEM_RANDOM:
    return s->first + (int)(mix(d->seed ^ mix(p)) % (unsigned long long)s->n);
  case HK_MEM_ACCESS: {
    int loc = s->first;
    for (int i = 0; i < d->nranges; i++)
      if (b >= d->ranges[i].offset && b - d->ranges[i].offset < d->ranges[i].size)
        loc = d->ranges[i].location;   /* the last range naming the byte wins */
    return loc;
  }
  default:
    return s->first;
  }
}

static int plan(const hk_locations_t *locs, const hk_mem_desc_t *d, size_t page, int *page_loc,
                size_t npages, shape_t *s)
{
  int err = check_desc(locs, d, s);
  if (err != HK_SUCCESS)
    return err;
  if (page == 0)
    page = hk_mem_page_size();
  if (page & (page - 1))
    return HK_ERROR(HK_ERR_ARG, "page size %zu is not a power of two", page);
  size_t need = d->size / page + (d->size % page != 0);
  if (!page_loc || npages < need)
    return HK_ERROR(HK_ERR_ARG, "page_loc holds %zu pages, %zu bytes in pages of %zu need %zu",
                    page_loc ? npages : 0, d->size, page, need);
  for (size_t p = 0; p < need; p++)
    page_loc[p] = page_location(d, s, p, p * page);
  return HK_SUCCESS;
}

int hk_mem_plan(const hk_locations_t *locs, const hk_mem_desc_t *desc, size_t page_size,
                int *page_loc, size_t npages)
{
  shape_t s;
  return plan(locs, desc, page_size, page_loc, npages, &s);
}

void hk_mem_free(hk_mem_t **mem)
{
  if (!mem || !*mem)
    return;
  hk_mem_t *m = *mem;
  if (m->ptr)
    hwloc_free(m->topo, m->ptr, m->npages * m->page);
  free(m->page_loc);
  free(m);
  *mem = NULL;
}

static int bind_error(const char *what, int e)
{
  return HK_ERROR(e == ENOSYS || e == EXDEV ? HK_ERR_UNSUPPORTED : HK_ERR_BIND,
                  "%s failed: %s", what, strerror(e));
}

/* binds pages [p0, p1) of m to their locations, runs of equal NUMA nodes at once */
static int bind_pages(hk_mem_t *m, size_t p0, size_t p1, int flags)
{
  const hk_locations_t *l = m->locs;
  for (size_t p = p0; p < p1;) {
    size_t q = p + 1;
    hwloc_const_bitmap_t ns = l->nodesets[m->page_loc[p]];
    while (q < p1 && hwloc_bitmap_isequal(l->nodesets[m->page_loc[q]], ns))
      q++;
    if (hwloc_set_area_membind(m->topo, m->ptr + p * m->page, (q - p) * m->page, ns,
                               HWLOC_MEMBIND_BIND, flags | HWLOC_MEMBIND_BYNODESET) != 0)
      return bind_error("hwloc_set_area_membind", errno);
    p = q;
  }
  return HK_SUCCESS;
}

int hk_mem_alloc(const hk_locations_t *locs, const hk_mem_desc_t *desc, hk_mem_t **mem, void **ptr)
{
  int err = HK_SUCCESS;
  hk_mem_t *m = NULL;
  hk_machine_t *real = NULL;
  shape_t s;
  if (!mem || !ptr)
    return HK_ERROR(HK_ERR_ARG, "mem and ptr must not be NULL");
  *mem = NULL;
  *ptr = NULL;
  if (!locs || !desc)
    return HK_ERROR(HK_ERR_ARG, "locs and desc must not be NULL");
  HK_ALLOC_TRY(err, m, 1);
  m->locs = locs;
  m->page = hk_mem_page_size();
  m->size = desc->size;
  m->npages = desc->size / m->page + (desc->size % m->page != 0);
  HK_ALLOC_TRY(err, m->page_loc, m->npages);
  HK_TRY(err, plan(locs, desc, m->page, m->page_loc, m->npages, &s));
  if (!locs->this_system) {
    err = HK_ERROR(HK_ERR_UNSUPPORTED, "these locations describe a synthetic or XML machine: "
                   "placing memory needs this machine's (hk_mem_plan computes the map)");
    goto cleanup;
  }
  if (omp_in_parallel()) {
    err = HK_ERROR(HK_ERR_STATE, "hk_mem_alloc called inside a parallel region");
    goto cleanup;
  }
  HK_TRY(err, hk__real_machine(&real));
  m->topo = real->topo;
  const struct hwloc_topology_support *sup = hwloc_topology_get_support(m->topo);
  if (desc->policy != HK_MEM_FIRST_TOUCH &&
      (!sup->membind->set_area_membind || !sup->membind->bind_membind)) {
    err = HK_ERROR(HK_ERR_UNSUPPORTED, "policy %s: hwloc cannot bind memory areas on this system",
                   hk_mem_policy_name(desc->policy));
    goto cleanup;
  }
  m->ptr = hwloc_alloc(m->topo, m->npages * m->page);
  if (!m->ptr) {
    err = HK_ERROR(HK_ERR_NOMEM, "cannot allocate %zu bytes", m->npages * m->page);
    goto cleanup;
  }
  char *base = m->ptr;
  size_t page = m->page, npages = m->npages;
  if (desc->policy == HK_MEM_FIRST_TOUCH) {
    /* thread t touches the pages whose first byte is in its block; the team obtained
     * (OMP_THREAD_LIMIT or dynamic teams may give fewer than asked) is the one the map
     * must describe */
    int team = s.nthreads;
#pragma omp parallel num_threads(s.nthreads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp single nowait
      team = nt;
      for (size_t p = 0; p < npages; p++)
        if (block_of(&s, p * page, nt) == t)
          ((volatile char *)base)[p * page] = 0;
    }
    if (team != s.nthreads) {
      hk_mem_desc_t got = *desc;
      got.nthreads = team;
      HK_TRY(err, plan(locs, &got, m->page, m->page_loc, m->npages, &s));
    }
  } else {
    HK_TRY(err, bind_pages(m, 0, npages, HWLOC_MEMBIND_STRICT));
    for (size_t p = 0; p < npages; p++)
      ((volatile char *)base)[p * page] = 0;
  }
  *ptr = m->ptr;
  *mem = m;
  m = NULL;
cleanup:
  hk_mem_free(&m);
  return err;
}

int hk_mem_location_of(const hk_mem_t *mem, const void *addr, int *loc)
{
  if (!mem || !addr || !loc)
    return HK_ERROR(HK_ERR_ARG, "mem, addr and loc must not be NULL");
  uintptr_t a = (uintptr_t)addr, b = (uintptr_t)mem->ptr;
  if (a < b || a - b >= mem->size)
    return HK_ERROR(HK_ERR_ARG, "address %p is outside the allocation (%zu bytes at %p)", addr,
                    mem->size, (void *)mem->ptr);
  *loc = mem->page_loc[(a - b) / mem->page];
  return HK_SUCCESS;
}

int hk_mem_move(hk_mem_t *mem, size_t offset, size_t size, int loc)
{
  if (!mem)
    return HK_ERROR(HK_ERR_ARG, "mem is NULL");
  if (offset >= mem->size || size == 0 || size > mem->size - offset)
    return HK_ERROR(HK_ERR_ARG, "bytes [%zu, %zu) are outside the allocation of %zu bytes", offset,
                    offset + size, mem->size);
  if (loc < 0 || loc >= mem->locs->nlocs)
    return HK_ERROR(HK_ERR_ARG, "location %d out of range (%d location(s): 0..%d)", loc,
                    mem->locs->nlocs, mem->locs->nlocs - 1);
  size_t p0 = offset / mem->page, p1 = (offset + size - 1) / mem->page + 1;
  int *old = NULL, err = HK_SUCCESS;
  HK_ALLOC_TRY(err, old, p1 - p0);
  memcpy(old, mem->page_loc + p0, (p1 - p0) * sizeof *old);
  for (size_t p = p0; p < p1; p++)
    mem->page_loc[p] = loc;
  err = bind_pages(mem, p0, p1, HWLOC_MEMBIND_MIGRATE | HWLOC_MEMBIND_STRICT);
  if (err != HK_SUCCESS)   /* the map keeps saying what was asked before */
    memcpy(mem->page_loc + p0, old, (p1 - p0) * sizeof *old);
cleanup:
  free(old);
  return err;
}

/* one page at a time through hwloc (one query each): node of page p into node[p] */
static void where_hwloc(hwloc_topology_t t, hwloc_bitmap_t ns, uintptr_t a0, size_t page,
                        size_t npages, int *node)
{
  for (size_t p = 0; p < npages; p++) {
    node[p] = -1;
    hwloc_bitmap_zero(ns);
    if (hwloc_get_area_memlocation(t, (void *)(a0 + p * page), page, ns,
                                   HWLOC_MEMBIND_BYNODESET) == 0 &&
        hwloc_bitmap_weight(ns) == 1) {
      hwloc_obj_t o = hwloc_get_numanode_obj_by_os_index(t, (unsigned)hwloc_bitmap_first(ns));
      node[p] = o ? (int)o->logical_index : -1;
    }
  }
}

#define WHERE_BATCH 4096

/* move_pages(2) in query mode (nodes NULL), WHERE_BATCH pages per call: status[i] is the
 * Linux node of the page or -errno (-ENOENT: not touched yet, -EFAULT: not mapped), mapped
 * to the logical index of the hwloc NUMA object with that os_index (-1 otherwise).
 * Returns 0, or the errno of a call that failed as a whole (ENOSYS: no such syscall). */
static int where_move_pages(hwloc_topology_t t, uintptr_t a0, size_t page, size_t npages, int *node)
{
#ifdef SYS_move_pages
  void *pages[WHERE_BATCH];
  int status[WHERE_BATCH];
  for (size_t p0 = 0; p0 < npages; p0 += WHERE_BATCH) {
    size_t n = npages - p0 < WHERE_BATCH ? npages - p0 : WHERE_BATCH;
    for (size_t i = 0; i < n; i++) {
      pages[i] = (void *)(a0 + (p0 + i) * page);
      status[i] = -ENOENT;
    }
    if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) != 0)
      return errno ? errno : EINVAL;
    for (size_t i = 0; i < n; i++) {
      hwloc_obj_t o = status[i] >= 0 ? hwloc_get_numanode_obj_by_os_index(t, (unsigned)status[i])
                                     : NULL;
      node[p0 + i] = o ? (int)o->logical_index : -1;
    }
  }
  return 0;
#else
  (void)t, (void)a0, (void)page, (void)npages, (void)node;
  return ENOSYS;
#endif
}

int hk__mem_query_env(int *use_hwloc)
{
  const char *how = getenv("HK_MEM_QUERY");
  if (use_hwloc)
    *use_hwloc = how && !strcmp(how, "hwloc");
  if (how && *how && strcmp(how, "move_pages") != 0 && strcmp(how, "hwloc") != 0)
    return HK_ERROR(HK_ERR_ARG, "HK_MEM_QUERY=%s: move_pages or hwloc", how);
  return HK_SUCCESS;
}

int hk_mem_where(const void *ptr, size_t size, int *page_node, long long *pages_per_node, int nnodes,
                 long long *unknown)
{
  int err = HK_SUCCESS;
  hk_machine_t *real = NULL;
  hwloc_bitmap_t ns = NULL;
  int *node = NULL;
  if (!ptr || size == 0)
    return HK_ERROR(HK_ERR_ARG, "ptr is NULL or size 0");
  HK_TRY(err, hk__real_machine(&real));
  hwloc_topology_t t = real->topo;
  int have = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  if (pages_per_node && nnodes < have) {
    err = HK_ERROR(HK_ERR_ARG, "pages_per_node has %d entries, this machine has %d NUMA nodes",
                   nnodes, have);
    goto cleanup;
  }
  int use_hwloc = 0;
  HK_TRY(err, hk__mem_query_env(&use_hwloc));
  size_t page = hk_mem_page_size();
  uintptr_t a0 = (uintptr_t)ptr & ~(uintptr_t)(page - 1), a1 = (uintptr_t)ptr + size;
  size_t npages = (a1 - a0 + page - 1) / page;
  if (page_node)
    node = page_node;
  else
    HK_ALLOC_TRY(err, node, npages);
  int e = use_hwloc ? ENOSYS : where_move_pages(t, a0, page, npages, node);
  if (e != 0 && e != ENOSYS && e != EPERM) {   /* EPERM: a seccomp filter refusing it */
    err = HK_ERROR(HK_ERR_UNSUPPORTED, "move_pages (query) failed: %s", strerror(e));
    goto cleanup;
  }
  if (e != 0) {   /* the syscall is not there: hwloc, one page at a time */
    if (!hwloc_topology_get_support(t)->membind->get_area_memlocation) {
      err = HK_ERROR(HK_ERR_UNSUPPORTED, "hwloc cannot tell where pages are on this system");
      goto cleanup;
    }
    if (!(ns = hwloc_bitmap_alloc())) {
      err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
      goto cleanup;
    }
    where_hwloc(t, ns, a0, page, npages, node);
  }
  long long miss = 0;
  if (pages_per_node)
    memset(pages_per_node, 0, (size_t)nnodes * sizeof *pages_per_node);
  for (size_t p = 0; p < npages; p++) {
    if (node[p] < 0)
      miss++;
    else if (pages_per_node)
      pages_per_node[node[p]]++;
  }
  if (unknown)
    *unknown = miss;
cleanup:
  if (node != page_node)
    free(node);
  hwloc_bitmap_free(ns);
  return err;
}
