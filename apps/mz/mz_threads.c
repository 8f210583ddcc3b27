/* apps/mz/mz_threads.c: threads per process for hk-mz: the reference's thread re-balancing
 * (NPB3.4-MZ BT-MZ setup_mpi.f: points per thread made even, over all processes or within
 * each processor group) and its load file (load<bench>.data: threads and group per process).
 * Pure functions (no MPI, no OpenMP), declared in mz_problem.h; our own code, the rules from
 * reading the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mz_problem.h"

int mz_rebalance_threads(int nprocs, const long long *load, int *threads)
{
  if (nprocs < 1)
    return -1;
  double total = 0.0;
  long long nthreads = 0, given = 0;
  for (int p = 0; p < nprocs; p++) {
    total += (double)load[p];
    nthreads += threads[p];
  }
  double per_thread = total / (double)nthreads;
  for (int p = 0; p < nprocs; p++) {
    int n = per_thread > 0.0 ? (int)((double)load[p] / per_thread) : 1;
    threads[p] = n < 1 ? 1 : n;
    given += threads[p];
  }
  /* leftovers (+) to the most loaded thread; a surplus (-) taken where it hurts least */
  for (; given < nthreads; given++) {
    int best = 0;
    for (int p = 1; p < nprocs; p++)
      if ((double)load[p] / threads[p] > (double)load[best] / threads[best])
        best = p;
    threads[best]++;
  }
  for (; given > nthreads; given--) {
    int best = -1;
    for (int p = 0; p < nprocs; p++)
      if (threads[p] > 1 && (best < 0 || (double)load[p] / (threads[p] - 1) <
                                             (double)load[best] / (threads[best] - 1)))
        best = p;
    if (best < 0)
      break;
    threads[best]--;
  }
  return 0;
}

int mz_rebalance_threads_groups(int nprocs, const long long *load, int *threads,
                                const int *group)
{
  if (nprocs < 1)
    return -1;
  if (!group)
    return mz_rebalance_threads(nprocs, load, threads);
  int *member = malloc((size_t)nprocs * sizeof *member), *t = malloc((size_t)nprocs * sizeof *t);
  long long *l = malloc((size_t)nprocs * sizeof *l);
  char *done = calloc((size_t)nprocs, 1);
  int rc = member && t && l && done ? 0 : -1;
  for (int p0 = 0; rc == 0 && p0 < nprocs; p0++) {
    if (done[p0])
      continue;
    int n = 0;
    for (int p = p0; p < nprocs; p++)
      if (!done[p] && group[p] == group[p0]) {
        done[p] = 1;
        member[n] = p;
        l[n] = load[p];
        t[n++] = threads[p];
      }
    mz_rebalance_threads(n, l, t);
    for (int i = 0; i < n; i++)
      threads[member[i]] = t[i];
  }
  free(member);
  free(t);
  free(l);
  free(done);
  return rc;
}

/* one line of a load file: "p1[:p2] threads group" (up to '!'); 1 parsed, 0 skipped, -1 bad */
static int load_line(const char *line, int *p1, int *p2, int *threads, int *group)
{
  char buf[256];
  size_t n = strcspn(line, "!\n");
  if (line[0] == ' ' || line[0] == '#' || line[0] == '\t' || n == 0)
    return 0;
  if (n >= sizeof buf)
    return -1;
  memcpy(buf, line, n);
  buf[n] = 0;
  char tail;
  if (sscanf(buf, "%d:%d %d %d %c", p1, p2, threads, group, &tail) == 4)
    return 1;
  if (sscanf(buf, "%d %d %d %c", p1, threads, group, &tail) == 3 && !strchr(buf, ':')) {
    *p2 = *p1;
    return 1;
  }
  return -1;
}

int mz_load_file_parse(const char *text, int nprocs, int *threads, int *group, char *err,
                       int errlen)
{
  int *seen = calloc((size_t)(nprocs > 0 ? nprocs : 1), sizeof *seen), lineno = 0;
  if (!seen) {
    snprintf(err, (size_t)errlen, "out of memory");
    return -1;
  }
  for (const char *line = text; line && *line; line = strchr(line, '\n'), line += line != NULL) {
    int p1, p2, t, g, rc = load_line(line, &p1, &p2, &t, &g);
    lineno++;
    if (rc < 0) {
      snprintf(err, (size_t)errlen, "line %d: not \"p1[:p2] threads group\"", lineno);
      free(seen);
      return -1;
    }
    if (rc == 0)
      continue;
    if (p2 < p1) {
      int x = p1;
      p1 = p2;
      p2 = x;
    }
    for (int p = p1 < 0 ? 0 : p1; p <= p2 && p < nprocs; p++) {
      threads[p] = t < 1 ? 1 : t;
      group[p] = g;
      seen[p] = 1;
    }
  }
  for (int p = 0; p < nprocs; p++)
    if (!seen[p]) {
      snprintf(err, (size_t)errlen, "no entry for process %d", p);
      free(seen);
      return -1;
    }
  free(seen);
  return 0;
}

