/* src/mem/mem_internal.h: what locations.c and alloc.c share (never installed). */
#ifndef HK_MEM_INTERNAL_H
#define HK_MEM_INTERNAL_H

#include "internal/hk_internal.h"

struct hk_locations {
  int nlocs;
  int this_system;           /* built from the machine we run on: binding possible */
  hk_loc_kind_t kind;
  hwloc_bitmap_t *cpusets;   /* per location, OS PU indexes */
  hwloc_bitmap_t *nodesets;  /* per location, OS NUMA node indexes */
  int *numa_first;           /* logical index of the first NUMA node of each location */
  int *nnuma;
};

/* The range r (NULL: all) resolved against locs: *first, *n locations; HK_ERR_ARG with
 * the bounds named when outside 0..nlocs-1. */
int hk__loc_range(const hk_locations_t *locs, const hk_loc_range_t *r, int *first, int *n);

/* The part of `parts` that owns item i of `items` in a block distribution: i*parts/items
 * (parts of sizes differing by at most one; 16 threads on 4 parts: 0-3 on part 0). */
static inline int hk__block_owner(unsigned long long i, unsigned long long items, int parts)
{
  return (int)((unsigned __int128)i * (unsigned)parts / items);
}

#endif
