/* Unit test of apps/common/hk_progress.h: a wavefront over a team, checked against the same
 * recurrence computed serially.
 *
 * a[k][j] = a[k-1][j] + 2 a[k][j-1] + 1 (mod 2^20), rows j split into blocks, one per thread;
 * thread t needs row jlo-1 of plane k from thread t-1 (the LU-MZ lower sweep's dependency).
 * The leading thread sleeps before every plane, so a follower that did not wait would read
 * a row that is not yet written (0) and the result would differ.  The second pass runs the
 * reverse wavefront (thread t waits for t+1, as the upper sweep), the third a leader bounded
 * to 2 planes ahead of its follower (hk_progress_wait_within) into a ring of 3 planes; then
 * pipelines of stages with a minimal and a maximal distance (hk_progress_wait_stage).
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hk_progress.h"

enum { NK = 40, NJ = 24, NT = 4, MOD = 1 << 20 };
static long a[NK][NJ], ref[NK][NJ];

static long f(long up, long left) { return (up + 2 * left + 1) % MOD; }

static int forward(hk_progress_t *p)
{
  memset(a, 0, sizeof a);
#pragma omp parallel num_threads(NT)
  {
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    int jlo = t * NJ / nt, jhi = (t + 1) * NJ / nt;
    hk_progress_reset_mine(p, t);
#pragma omp barrier
    for (int k = 1; k < NK; k++) {
      if (t > 0)
        hk_progress_wait(p, t - 1, k);
      else
        usleep(200);
      for (int j = jlo; j < jhi; j++)
        a[k][j] = f(a[k - 1][j], j ? a[k][j - 1] : 0);
      hk_progress_post(p, t, k);
    }
  }
  for (int k = 1; k < NK; k++)
    for (int j = 0; j < NJ; j++)
      ref[k][j] = f(ref[k - 1][j], j ? ref[k][j - 1] : 0);
  return memcmp(a, ref, sizeof a) != 0;
}

static int backward(hk_progress_t *p)
{
  memset(a, 0, sizeof a);
  memset(ref, 0, sizeof ref);
#pragma omp parallel num_threads(NT)
  {
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    int jlo = t * NJ / nt, jhi = (t + 1) * NJ / nt;
    hk_progress_reset_mine(p, t);
#pragma omp barrier
    for (int s = 1; s < NK; s++) {
      int k = NK - 1 - s;
      if (t < nt - 1)
        hk_progress_wait(p, t + 1, s);
      else
        usleep(200);
      for (int j = jhi - 1; j >= jlo; j--)
        a[k][j] = f(a[k + 1][j], j < NJ - 1 ? a[k][j + 1] : 0);
      hk_progress_post(p, t, s);
    }
  }
  for (int k = NK - 2; k >= 0; k--)
    for (int j = NJ - 1; j >= 0; j--)
      ref[k][j] = f(ref[k + 1][j], j < NJ - 1 ? ref[k][j + 1] : 0);
  return memcmp(a, ref, sizeof a) != 0;
}

/* two threads: the leader writes plane k into ring slot k % 3, the follower (slow) reads it;
 * the leader may be at most 2 planes ahead, else it overwrites a plane not yet read */
static int bounded(hk_progress_t *p)
{
  long ring[3], seen[NK] = {0}, bad = 0;
#pragma omp parallel num_threads(2)
  {
    int t = omp_get_thread_num();
    hk_progress_reset_mine(p, t);
#pragma omp barrier
    for (int k = 1; k < NK; k++) {
      if (omp_get_num_threads() < 2)
        break;
      if (t == 0) {
        hk_progress_wait_within(p, 1, k, 3); /* follower has read plane k-3: slot free */
        ring[k % 3] = 1000 + k;
        hk_progress_post(p, 0, k);
      } else {
        hk_progress_wait(p, 0, k);
        usleep(200);
        seen[k] = ring[k % 3];
        hk_progress_post(p, 1, k);
      }
    }
  }
  for (int k = 1; k < NK; k++)
    bad += seen[k] != 1000 + k;
  return bad != 0;
}

/* a pipeline of NT stages over NK items (hk_progress_wait_stage): stage s computes
 * c[s+1][k] = 2 c[s][k] + c[s][k+1], so it needs its predecessor's item k + 1 (dl >= 2).
 * On entry to item k every stage also reads the counters: the predecessor must have
 * finished min(k + dl, NK) items, the successor at least k - du (a wait that returned too
 * early shows there, or in the values).  Stage `slow` sleeps before every item. */
enum { PK = 48 };
static long c[NT + 1][PK], cref[NT + 1][PK];

static int pipeline(hk_progress_t *p, long dl, long du, int slow)
{
  int bad = 0;
  memset(c, 0, sizeof c);
  for (int k = 0; k < PK; k++)
    c[0][k] = cref[0][k] = k + 1;
#pragma omp parallel num_threads(NT) reduction(+ : bad)
  {
    int s = omp_get_thread_num(), ns = omp_get_num_threads();
    hk_progress_reset_mine(p, s);
#pragma omp barrier
    for (long k = 0; k < PK; k++) {
      hk_progress_wait_stage(p, s > 0 ? s - 1 : -1, s < ns - 1 ? s + 1 : -1, k, dl, du, PK);
      long need = k + dl < PK ? k + dl : PK;
      if (s > 0 && atomic_load(&p->slot[s - 1].value) < need)
        bad++;
      if (s < ns - 1 && atomic_load(&p->slot[s + 1].value) < k - du)
        bad++;
      if (s == slow)
        usleep(100);
      c[s + 1][k] = (2 * c[s][k] + c[s][k + 1 < PK ? k + 1 : k]) % MOD;
      hk_progress_post(p, s, k + 1);
    }
  }
  for (int s = 0; s < NT; s++)
    for (int k = 0; k < PK; k++)
      cref[s + 1][k] = (2 * cref[s][k] + cref[s][k + 1 < PK ? k + 1 : k]) % MOD;
  return bad != 0 || memcmp(c, cref, sizeof c) != 0;
}

int main(void)
{
  hk_progress_t p;
  if (hk_progress_init(&p, NT) != 0)
    return 1;
  int fail = 0;
  if (forward(&p)) {
    printf("FAIL: forward wavefront differs from the serial recurrence\n");
    fail = 1;
  }
  if (backward(&p)) {
    printf("FAIL: backward wavefront differs from the serial recurrence\n");
    fail = 1;
  }
  if (bounded(&p)) {
    printf("FAIL: bounded-distance leader overwrote a plane not yet read\n");
    fail = 1;
  }
  /* the tightest (du = dl - 1) to the loosest, a slow first, middle or last stage */
  const long loose[][2] = {{2, 1}, {2, 2}, {3, 2}, {2, 8}, {5, 5}, {2, PK}};
  for (size_t i = 0; i < sizeof loose / sizeof *loose; i++)
    for (int slow = 0; slow < NT; slow++)
      if (pipeline(&p, loose[i][0], loose[i][1], slow)) {
        printf("FAIL: pipeline dl %ld du %ld (stage %d slow): a distance or a value is wrong\n",
               loose[i][0], loose[i][1], slow);
        fail = 1;
      }
  hk_progress_free(&p);
  if (!fail)
    printf("ok: progress counters (forward, backward, bounded distance, pipeline stages)\n");
  return fail;
}
