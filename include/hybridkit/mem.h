/* hybridkit/mem.h: data locality on ccNUMA nodes: locations and page placement (issue 23).
 *
 * Jin et al. (Parallel Computing 37, 2011, section 5) propose OpenMP *locations*: a virtual
 * layer of execution engines with their memory (NLOCS of them, numbered 0..NLOCS-1), a
 * `location(m:n)` clause that maps the threads of a parallel region block-wise onto
 * locations m..n, inheritance of the location by nested regions and child tasks, a
 * `distribute(BLOCK: A) location(0:NLOCS-1)` data layout that keeps global addresses,
 * and `onloc(A[i])` placing a task where its data lives.  This module is that proposal as
 * a runtime API on hwloc (docs/mem.md maps every piece to today's OpenMP):
 *
 *   locations   hk_locations_create: one location per NUMA node (default), per package or
 *               per L3 domain of a machine, or HK_NUM_LOCS of them (objects split in
 *               blocks, or shared when there are fewer objects than locations):
 *
 *                 "pack:2 numa:2 core:4 pu:1", NUMA:   loc 0 | loc 1 | loc 2 | loc 3
 *                                                      PUs 0-3 4-7   8-11    12-15
 *                 same machine, HK_NUM_LOCS=2:         loc 0 (NUMA 0,1) | loc 1 (NUMA 2,3)
 *
 *   threads     thread t of a team of T on the range first..first+n-1 runs on location
 *               first + t*n/T (16 threads on 4 locations: 0-3 on loc 0, 4-7 on loc 1 ...);
 *               a nested region without its own range runs on its parent thread's location.
 *   memory      hk_mem_alloc places the pages of a new allocation by policy and touches
 *               them all (the layout is static, as in the proposal; hk_mem_move migrates):
 *                 first-touch   the threads of a team touch the pages of their BLOCK of
 *                               dimension `dim` (a page goes where its first byte's owner
 *                               runs; nthreads 1 is the classic serial-initialisation pitfall)
 *                 one-location  every page on one location
 *                 block         distribute(BLOCK) of dimension `dim` over the range
 *                 interleave    page i on location first + i % n
 *                 random        every page on a location drawn from `seed` (reproducible)
 *                 access        the caller names the location of each byte range
 *               A page goes, in every policy, to the location that owns its first byte, so
 *               hk_mem_plan computes the page -> location map without binding anything (on
 *               synthetic machines too); hk_mem_where reads back where pages really are.
 */
#ifndef HYBRIDKIT_MEM_H
#define HYBRIDKIT_MEM_H

#include <stddef.h>
#include "hybridkit/export.h"
#include "hybridkit/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- locations */

typedef struct hk_locations hk_locations_t;

typedef enum hk_loc_kind {
  HK_LOC_NUMA = 0,     /* one location per NUMA node (the default) */
  HK_LOC_PACKAGE = 1,  /* per package (socket) */
  HK_LOC_L3 = 2,       /* per L3 cache domain (machines without L3: per package) */
  HK_LOC_KIND_COUNT
} hk_loc_kind_t;

typedef struct hk_locations_desc {
  hk_loc_kind_t kind;  /* HK_DEFAULT: NUMA nodes */
  int nlocs;           /* HK_DEFAULT: $HK_NUM_LOCS when set, else one per object of kind;
                          k locations over N objects: location l holds objects
                          [l*N/k, max((l+1)*N/k, l*N/k+1)) (shared when k > N) */
} hk_locations_desc_t;

/* Locations first .. first+count-1 (Jin's location(m:n) is {m, n-m+1}).  A zero range
 * (count HK_DEFAULT) means first .. the last location; {0, 0}: all of them. */
typedef struct hk_loc_range {
  int first;
  int count;
} hk_loc_range_t;

typedef struct hk_location_info {
  int npus;             /* PUs of the location */
  int nnuma;            /* NUMA nodes whose memory the location's pages go to */
  int numa_first;       /* logical index of its first NUMA node */
  char cpuset[128];     /* PUs, hwloc list syntax, OS indexes ("0-3") */
  char nodeset[64];     /* NUMA nodes, OS indexes ("0" or "0-1") */
} hk_location_info_t;

/* hk_locations_create: the locations of `machine` (NULL: $HK_TOPOLOGY when set, else
 * this machine, as hk_machine_load(NULL)) by desc (NULL: the defaults).  The locations copy
 * what they need: the machine may be destroyed afterwards.  Binding threads and memory
 * needs locations of this machine (synthetic and XML ones compute maps only).
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (bad kind, nlocs < 0, HK_NUM_LOCS not a positive integer),
 * HK_ERR_TOPOLOGY (no objects of that kind), HK_ERR_NOMEM. */
HK_EXPORT int hk_locations_create(const hk_machine_t *machine, const hk_locations_desc_t *desc,
                                  hk_locations_t **locs);

/* hk_locations_destroy: free, set *locs = NULL.  Collective: local.  Threads: any thread.
 * Errors: none (NULL is fine). */
HK_EXPORT void hk_locations_destroy(hk_locations_t **locs);

/* hk_locations_count: *nlocs = the number of locations (NLOCS).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_locations_count(const hk_locations_t *locs, int *nlocs);

/* hk_locations_info: what location `loc` is made of, into *info.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (NULL, loc out of range, naming the count). */
HK_EXPORT int hk_locations_info(const hk_locations_t *locs, int loc, hk_location_info_t *info);

/* hk_loc_kind_name: "numa", "package" or "l3" ("invalid" otherwise).
 * Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT const char *hk_loc_kind_name(hk_loc_kind_t kind);
/* hk_loc_kind_parse: the kind named `name` into *kind.  Collective: local.
 * Threads: any thread.  Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_loc_kind_parse(const char *name, hk_loc_kind_t *kind);

/* hk_locations_thread: *loc = the location of thread `thread` of a team of `nthreads` on
 * `range` (NULL: all locations): first + thread*n/nthreads (block mapping).
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (range outside 0..NLOCS-1, thread outside 0..nthreads-1). */
HK_EXPORT int hk_locations_thread(const hk_locations_t *locs, const hk_loc_range_t *range,
                                  int nthreads, int thread, int *loc);

/* hk_locations_threads_on: the threads of a team of `nthreads` on `range` (NULL: all) that
 * run on location `loc`: *first_thread .. *first_thread + *count - 1 (count 0 when none).
 * This is how a program places work on the location that owns its data (onloc): a
 * thread of that range takes it.  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (range or loc out of bounds, NULL outputs). */
HK_EXPORT int hk_locations_threads_on(const hk_locations_t *locs, const hk_loc_range_t *range,
                                      int nthreads, int loc, int *first_thread, int *count);

/* hk_locations_nested: the range of a region (or task) opened by thread `thread` of a team
 * of `nthreads` on `parent`: `clause` when given (its own location clause), else the
 * parent thread's single location (Jin's inheritance rule), into *child.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (a range out of bounds, thread out of range, NULL child). */
HK_EXPORT int hk_locations_nested(const hk_locations_t *locs, const hk_loc_range_t *parent,
                                  int nthreads, int thread, const hk_loc_range_t *clause,
                                  hk_loc_range_t *child);

/* hk_locations_bind: bind the threads of the next parallel regions (omp_get_max_threads()
 * of them) each to the PUs of its location on `range` (NULL: all), inside the PUs this
 * process may use (hwloc's process binding).  Collective: local.
 * Threads: outside parallel regions (opens one).
 * Errors: HK_ERR_ARG (range), HK_ERR_UNSUPPORTED (locations of a synthetic or XML
 * machine), HK_ERR_BIND (a location with no PU this process may use, or the OS refused). */
HK_EXPORT int hk_locations_bind(const hk_locations_t *locs, const hk_loc_range_t *range);

typedef struct hk_loc_thread {
  int thread;     /* omp_get_thread_num() in the region */
  int nthreads;
  int location;   /* where this thread runs */
  hk_loc_range_t range;  /* the region's range */
} hk_loc_thread_t;

/* hk_locations_parallel: Jin's `#pragma omp parallel location(range) num_threads(n)`:
 * open a parallel region of `nthreads` (0: omp_get_max_threads(); the block map follows
 * the team obtained, me->nthreads, when OMP_THREAD_LIMIT or nesting give fewer), bind
 * each thread to its location's PUs (locations of this machine only; the binding is
 * restored after),
 * and call body(arg, &me) in every thread.  Nested calls from inside body with range
 * NULL inherit the calling thread's location (hk_locations_nested).
 * Collective: local.  Threads: any thread (a nested call needs nested parallelism
 * enabled, omp_set_max_active_levels, to get more than one thread).
 * Errors: HK_ERR_ARG (range, nthreads < 0, NULL body), HK_ERR_BIND (binding a thread
 * failed; body is not called then). */
HK_EXPORT int hk_locations_parallel(const hk_locations_t *locs, const hk_loc_range_t *range,
                                    int nthreads, void (*body)(void *arg, const hk_loc_thread_t *me),
                                    void *arg);

/* ------------------------------------------------------------------- memory */

typedef struct hk_mem hk_mem_t;

typedef enum hk_mem_policy {
  HK_MEM_FIRST_TOUCH = 0,
  HK_MEM_ONE_LOCATION = 1,
  HK_MEM_BLOCK = 2,
  HK_MEM_INTERLEAVE = 3,
  HK_MEM_RANDOM = 4,
  HK_MEM_ACCESS = 5,
  HK_MEM_POLICY_COUNT
} hk_mem_policy_t;

/* bytes [offset, offset+size) are used by location `location` (policy access) */
typedef struct hk_mem_range {
  size_t offset;
  size_t size;
  int location;
} hk_mem_range_t;

#define HK_MEM_MAX_DIMS 4

typedef struct hk_mem_desc {
  size_t size;               /* bytes, > 0 */
  hk_mem_policy_t policy;    /* HK_DEFAULT: first-touch */
  hk_loc_range_t range;      /* locations used (HK_DEFAULT: all); one-location: range.first */
  /* the array's shape for first-touch and block (HK_DEFAULT: a 1-D array of bytes):
   * row-major, dims[0] slowest; dims[0]*...*dims[ndims-1]*elem_size <= size */
  int ndims;
  long long dims[HK_MEM_MAX_DIMS];
  size_t elem_size;
  int dim;                   /* the distributed dimension (distribute(BLOCK,*) is dim 0) */
  int nthreads;              /* first-touch: the team that touches (HK_DEFAULT:
                                omp_get_max_threads()); thread t on hk_locations_thread.
                                hk_mem_alloc: when the team obtained is smaller
                                (OMP_THREAD_LIMIT, dynamic teams), the map follows it */
  unsigned long long seed;   /* random */
  const hk_mem_range_t *ranges;  /* access: bytes not covered go to range.first */
  int nranges;
} hk_mem_desc_t;

/* hk_mem_policy_name: "first-touch", "one-location", "block", "interleave", "random",
 * "access" ("invalid" otherwise).  Collective: local.  Threads: any thread.  Errors: none. */
HK_EXPORT const char *hk_mem_policy_name(hk_mem_policy_t policy);
/* hk_mem_policy_parse: the policy named `name` into *policy.  Collective: local.
 * Threads: any thread.  Errors: HK_ERR_ARG naming the known names. */
HK_EXPORT int hk_mem_policy_parse(const char *name, hk_mem_policy_t *policy);

/* hk_mem_plan: the page -> location map of desc on locs for pages of `page_size` bytes
 * (a power of two; 0: the system's page size): page_loc[p] for p < npages =
 * ceil(desc->size / page_size).  Binds nothing; any machine.
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (desc invalid: the message names the field; npages too small). */
HK_EXPORT int hk_mem_plan(const hk_locations_t *locs, const hk_mem_desc_t *desc, size_t page_size,
                          int *page_loc, size_t npages);

/* hk_mem_alloc: desc->size bytes (page-aligned, zero-filled) placed by desc on locs,
 * into *ptr; *mem keeps the map (hk_mem_location_of) until hk_mem_free.  locs must
 * outlive *mem.  First-touch binds no memory: the pages go where the touching threads
 * run (hk_locations_bind puts them on their locations first).
 * Collective: local.  Threads: outside parallel regions (first-touch opens one).
 * Errors: HK_ERR_ARG (as hk_mem_plan), HK_ERR_UNSUPPORTED (locations of a synthetic or
 * XML machine, or hwloc cannot bind memory here), HK_ERR_BIND (the OS refused a binding),
 * HK_ERR_NOMEM. */
HK_EXPORT int hk_mem_alloc(const hk_locations_t *locs, const hk_mem_desc_t *desc, hk_mem_t **mem,
                           void **ptr);

/* hk_mem_free: free the memory and the map; *mem = NULL.  Collective: local.
 * Threads: any thread.  Errors: none (NULL is fine). */
HK_EXPORT void hk_mem_free(hk_mem_t **mem);

/* hk_mem_location_of: *loc = the location the allocation placed the page of `addr` on
 * (Jin's onloc(A[i])).  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (addr outside the allocation, NULL arguments). */
HK_EXPORT int hk_mem_location_of(const hk_mem_t *mem, const void *addr, int *loc);

/* hk_mem_move: migrate the pages holding bytes [offset, offset+size) of the allocation
 * to location `loc` and record it in the map.  Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (range outside the allocation, loc out of range), HK_ERR_BIND (the
 * OS refused the migration). */
HK_EXPORT int hk_mem_move(hk_mem_t *mem, size_t offset, size_t size, int loc);

/* hk_mem_where: where the pages of [ptr, ptr+size) of this process really are, by
 * logical NUMA node of this machine: page_node[p] (may be NULL; -1 for a page not
 * yet touched or unknown) for the ceil(size/page) pages from ptr's page on, and
 * pages_per_node[0..nnodes-1] (may be NULL) counts them; *unknown (may be NULL) the rest.
 * Asks the kernel with move_pages(2) in query mode, 4096 pages a call; where that syscall
 * is missing (ENOSYS, or EPERM from a seccomp filter), or $HK_MEM_QUERY=hwloc, one hwloc
 * query per page (slow for large arrays).
 * Collective: local.  Threads: any thread.
 * Errors: HK_ERR_ARG (NULL ptr, nnodes smaller than the machine's NUMA nodes when
 * pages_per_node is given, HK_MEM_QUERY neither move_pages nor hwloc),
 * HK_ERR_UNSUPPORTED (the query failed otherwise, or hwloc cannot query pages here),
 * HK_ERR_TOPOLOGY. */
HK_EXPORT int hk_mem_where(const void *ptr, size_t size, int *page_node, long long *pages_per_node,
                           int nnodes, long long *unknown);

/* hk_mem_page_size: the system's page size in bytes.  Collective: local.
 * Threads: any thread.  Errors: none. */
HK_EXPORT size_t hk_mem_page_size(void);

#ifdef __cplusplus
}
#endif
#endif
