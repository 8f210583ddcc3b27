/* apps/mz/mz_split.c: mesh splitting of the NPB-MZ zones (see mz_split.h). */
#include "mz_split.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mz_split_axis(const mz_zones_t *in)
{
  long long sx = 0, sy = 0;
  for (int i = 0; i < in->nzones; i++) {
    sx += in->zone[i].nx;
    sy += in->zone[i].ny;
  }
  return sy > sx; /* ties: x */
}

long long mz_zones_total_points(const mz_zones_t *z)
{
  long long n = 0;
  for (int i = 0; i < z->nzones; i++)
    n += mz_zone_points(&z->zone[i]);
  return n;
}

long long mz_split_ghosts(const mz_zones_t *in, int k)
{
  int axis = mz_split_axis(in);
  long long g = 0;
  for (int i = 0; i < in->nzones; i++) {
    const mz_zone_t *q = &in->zone[i];
    g += 2LL * (k - 1) * (axis ? q->nx : q->ny) * q->nz;
  }
  return g;
}

int mz_zones_split(const mz_zones_t *in, int k, mz_zones_t *out, char *why, size_t len)
{
  memset(out, 0, sizeof *out);
  if (k < 1) {
    snprintf(why, len, "--split %d must be >= 1", k);
    return -2;
  }
  int axis = mz_split_axis(in);
  for (int i = 0; i < in->nzones; i++) {
    const mz_zone_t *q = &in->zone[i];
    int interior = (axis ? q->ny : q->nx) - 2;
    if (k > interior) {
      snprintf(why, len, "--split %d: more splits than points (zone %d has %d interior points "
               "in %c)", k, i, interior, axis ? 'y' : 'x');
      return -2;
    }
    if (k > 1 && interior / k < MZ_SPLIT_MIN_WIDTH) {
      snprintf(why, len, "--split %d: zone %d (%d interior points in %c) is too small to split "
               "%d ways (sub-zones need >= %d interior points; at most --split %d)", k, i,
               interior, axis ? 'y' : 'x', k, MZ_SPLIT_MIN_WIDTH, interior / MZ_SPLIT_MIN_WIDTH);
      return -2;
    }
  }
  int xz = in->x_zones * (axis ? 1 : k), yz = in->y_zones * (axis ? k : 1);
  out->nzones = xz * yz;
  out->x_zones = xz;
  out->y_zones = yz;
  out->zone = calloc((size_t)out->nzones, sizeof *out->zone);
  if (!out->zone)
    return -1;
  for (int j = 0; j < yz; j++)
    for (int i = 0; i < xz; i++) {
      int pi = axis ? i : i / k, pj = axis ? j / k : j, part = axis ? j % k : i % k;
      const mz_zone_t *p = &in->zone[pi + pj * in->x_zones];
      mz_zone_t *q = &out->zone[i + j * xz];
      int n = (axis ? p->ny : p->nx) - 2;
      int w = (int)((long long)(part + 1) * n / k - (long long)part * n / k) + 2;
      q->nx = axis ? p->nx : w;
      q->ny = axis ? w : p->ny;
      q->nz = p->nz;
      q->ix = i;
      q->jy = j;
      q->nb[MZ_WEST] = (i + xz - 1) % xz + j * xz;
      q->nb[MZ_EAST] = (i + 1) % xz + j * xz;
      q->nb[MZ_SOUTH] = i + ((j + yz - 1) % yz) * xz;
      q->nb[MZ_NORTH] = i + ((j + 1) % yz) * xz;
    }
  return 0;
}
