/* tests/unit/test_mz_split.c: hk-mz --split (apps/mz/mz_split.h), no MPI.
 *
 * For SP-MZ and BT-MZ classes S..B and K = 1..8: split 1 is an exact copy; otherwise the
 * sub-zones are laid back onto the aggregate grid point by point and counted: every point of
 * the unsplit zones is covered, the points covered twice (the ghosts at the cuts) match
 * mz_split_ghosts, interior points are never duplicated; neighbours are mutual and faces
 * match; bad K (more splits than points, a zone too small) is refused with a reason. */
#include <stdlib.h>
#include <string.h>
#include "hk_test.h"
#include "mz_split.h"

/* brute force: stamp every sub-zone's points into an x-y map of the aggregate grid built
 * from the unsplit zones (with their boundary layers, each zone its own block), count */
static void brute_force(const mz_zones_t *in, const mz_zones_t *out, int k)
{
  int axis = mz_split_axis(in);
  /* each unsplit zone its own block of nx x ny cells; a sub-zone maps into its parent's */
  long long total_cells = 0;
  for (int i = 0; i < in->nzones; i++)
    total_cells += (long long)in->zone[i].nx * in->zone[i].ny;
  int *hits = calloc((size_t)total_cells, sizeof *hits);
  long long *base = calloc((size_t)(in->nzones > 0 ? in->nzones : 1), sizeof *base), b = 0;
  for (int i = 0; i < in->nzones; i++) {
    base[i] = b;
    b += (long long)in->zone[i].nx * in->zone[i].ny;
  }
  int *offset = calloc((size_t)(in->nzones > 0 ? in->nzones : 1), sizeof *offset); /* next sub-zone's start */
  for (int j = 0; j < out->y_zones; j++)
    for (int i = 0; i < out->x_zones; i++) {
      const mz_zone_t *q = &out->zone[i + j * out->x_zones];
      int pi = axis ? i : i / k, pj = axis ? j / k : j, parent = pi + pj * in->x_zones;
      const mz_zone_t *p = &in->zone[parent];
      CHECK_EQ_INT(q->nz, p->nz);
      CHECK_EQ_INT(axis ? q->nx : q->ny, axis ? p->nx : p->ny);
      for (int y = 0; y < q->ny; y++)
        for (int x = 0; x < q->nx; x++) {
          int px = axis ? x : x + offset[parent], py = axis ? y + offset[parent] : y;
          if (px < p->nx && py < p->ny)
            hits[base[parent] + px + (long long)py * p->nx]++;
          else
            CHECK(!"sub-zone outside its parent");
        }
      offset[parent] += (axis ? q->ny : q->nx) - 2;
    }
  long long dup = 0, missing = 0;
  for (int z = 0; z < in->nzones; z++) {
    const mz_zone_t *p = &in->zone[z];
    for (int y = 0; y < p->ny; y++)
      for (int x = 0; x < p->nx; x++) {
        int h = hits[base[z] + x + (long long)y * p->nx];
        missing += h == 0;
        dup += h > 1 ? (long long)(h - 1) * p->nz : 0;
      }
  }
  CHECK_EQ_INT(missing, 0);
  CHECK_EQ_INT(dup, mz_split_ghosts(in, k));
  CHECK_EQ_INT(mz_zones_total_points(out), mz_zones_total_points(in) + dup);
  /* interior points: the sub-zones' interiors add up to the parents' (a partition) */
  long long ii = 0, io = 0;
  for (int z = 0; z < in->nzones; z++)
    ii += (long long)(in->zone[z].nx - 2) * (in->zone[z].ny - 2);
  for (int z = 0; z < out->nzones; z++)
    io += (long long)(out->zone[z].nx - 2) * (out->zone[z].ny - 2);
  CHECK_EQ_INT(io, ii);
  free(hits);
  free(base);
  free(offset);
}

static void neighbours_match(const mz_zones_t *z)
{
  static const int opp[MZ_NSIDES] = {MZ_EAST, MZ_WEST, MZ_NORTH, MZ_SOUTH};
  for (int i = 0; i < z->nzones; i++)
    for (int s = 0; s < MZ_NSIDES; s++) {
      const mz_zone_t *q = &z->zone[i], *n = &z->zone[q->nb[s]];
      CHECK_EQ_INT(n->nb[opp[s]], i);
      CHECK_EQ_INT(s <= MZ_EAST ? n->ny : n->nx, s <= MZ_EAST ? q->ny : q->nx);
      CHECK_EQ_INT(n->nz, q->nz);
    }
}

static void all_classes(void)
{
  char why[200];
  for (int b = MZ_BENCH_SP; b <= MZ_BENCH_BT; b++)
    for (const char *c = "SWAB"; *c; c++) {
      mz_zones_t in, out;
      CHECK_EQ_INT(mz_zones_setup(mz_class_find((mz_bench_t)b, *c), &in), 0);
      for (int k = 1; k <= 8; k++) {
        int rc = mz_zones_split(&in, k, &out, why, sizeof why);
        if (rc == -2)
          continue; /* too small: checked below */
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(out.nzones, k * in.nzones);
        if (k == 1) {
          CHECK_EQ_INT(out.x_zones, in.x_zones);
          CHECK(memcmp(out.zone, in.zone, (size_t)in.nzones * sizeof *in.zone) == 0);
          CHECK_EQ_INT(mz_split_ghosts(&in, 1), 0);
        }
        brute_force(&in, &out, k);
        neighbours_match(&out);
        mz_zones_free(&out);
      }
      mz_zones_free(&in);
    }
}

static void hand_checked_and_bad(void)
{
  char why[200];
  mz_zones_t in, out;
  /* SP-MZ class S: 4 zones 12x12x6; split 2 in x: 8 zones 7x12x6 (interior 5 each),
   * ghosts 2 * 1 * 12 * 6 = 144 per zone, 576 in all */
  CHECK_EQ_INT(mz_zones_setup(mz_class_find(MZ_BENCH_SP, 'S'), &in), 0);
  CHECK_EQ_INT(mz_zones_split(&in, 2, &out, why, sizeof why), 0);
  CHECK_EQ_INT(out.x_zones, 4);
  CHECK_EQ_INT(out.zone[0].nx, 7);
  CHECK_EQ_INT(out.zone[1].nx, 7);
  CHECK_EQ_INT(out.zone[0].ny, 12);
  CHECK_EQ_INT(mz_split_ghosts(&in, 2), 576);
  mz_zones_free(&out);
  /* interior 10: split 4 leaves widths 2 (too small), split 11 more than the points */
  CHECK_EQ_INT(mz_zones_split(&in, 4, &out, why, sizeof why), -2);
  CHECK(strstr(why, "too small to split 4 ways") != NULL);
  CHECK(strstr(why, "at most --split 3") != NULL);
  CHECK_EQ_INT(mz_zones_split(&in, 11, &out, why, sizeof why), -2);
  CHECK(strstr(why, "more splits than points") != NULL);
  CHECK_EQ_INT(mz_zones_split(&in, 0, &out, why, sizeof why), -2);
  mz_zones_free(&in);
}

int main(void)
{
  hand_checked_and_bad();
  all_classes();
  return hk_test_report("test_mz_split");
}
