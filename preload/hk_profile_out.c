/* preload/hk_profile_out.c: what libhybridkit-profile.so does at MPI_Finalize.
 *
 *   every rank, before PMPI_Finalize (collective over MPI_COMM_WORLD, PMPI only):
 *     its threads' tables merged per (function, return address); each address made
 *     position-independent with dladdr (module + offset: ranks load at different
 *     addresses); its totals (wall, MPI time, sleeping threads, CPU time of every
 *     task from /proc/self/task/N/schedstat, VmHWM from /proc/self/status)
 *     -> gathered to rank 0, histograms summed
 *   rank 0, after PMPI_Finalize (so that running addr2line forks no MPI process):
 *     sites merged over ranks per (function, module, offset), symbolised (dladdr's
 *     symbol; file:line from addr2line when the module has debug info), records of
 *     kinds profile, profile.site, profile.size (hk_profile_records.c) appended
 *     to $HK_PROFILE_OUTPUT (argv:FLAG: to the program's argument after FLAG, e.g.
 *     argv:--output, for `hybridkit sweep`, which passes --output FILE), and the
 *     summary on stderr (HK_PROFILE_QUIET=1: none; HK_PROFILE_NO_ADDR2LINE=1: no
 *     addr2line; a value of either that is no boolean: one warning line).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hk_profile_out.h"
#include "hybridkit/error.h"
#include "hk_tool.h"
#include "../src/internal/hk_env_word.h"

prof_out_t hk__prof_out;
#define g hk__prof_out

/* ------------------------------------------------------------ this rank */

static long long status_kib(const char *key)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == ':')
      v = atoll(line + n + 1);
  if (f)
    fclose(f);
  return v;
}

/* the affinity mask in hwloc list syntax: 0-3,8 */
static void cpuset_list(char *out, size_t n)
{
  cpu_set_t set;
  size_t used = 0;
  out[0] = '\0';
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &set))
      continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
      last++;
    int w = last > c ? snprintf(out + used, n - used, "%s%d-%d", used ? "," : "", c, last)
                     : snprintf(out + used, n - used, "%s%d", used ? "," : "", c);
    if (w < 0 || (size_t)w >= n - used)
      break;
    used += (size_t)w;
    c = last;
  }
}

static int merge_local(out_site_t **out)
{
  int n = 0, cap = 64;
  out_site_t *s = calloc((size_t)cap, sizeof *s);
  for (prof_thread_t *t = hk__prof.threads; t && s; t = t->next)
    for (int i = 0; i < PROF_NSITES && s; i++) {
      const prof_site_t *c = &t->site[i];
      if (!c->ret)
        continue;
      int k = 0;
      while (k < n && !(s[k].c.ret == c->ret && s[k].call == c->call))
        k++;
      if (k == n) {
        if (n == cap) {
          out_site_t *bigger = realloc(s, 2 * (size_t)cap * sizeof *s);
          if (!bigger)
            break;
          s = bigger;
          memset(s + cap, 0, (size_t)cap * sizeof *s);
          cap *= 2;
        }
        s[n].call = c->call;
        s[n].c.shape = c->shape;
        s[n].rank = hk__prof.rank;
        s[n].c.ret = c->ret;
        n++;
      }
      prof_site_t *m = &s[k].c;
      m->calls += c->calls;
      m->calls_parallel += c->calls_parallel;
      m->calls_off_main += c->calls_off_main;
      m->bytes += c->bytes;
      m->calls_intra += c->calls_intra;
      m->calls_inter += c->calls_inter;
      m->bytes_intra += c->bytes_intra;
      m->bytes_inter += c->bytes_inter;
      m->time += c->time;
      m->time_outside += c->time_outside;
      m->threads |= c->threads;
    }
  for (int k = 0; k < n; k++) {
    hk_tool_loc_t loc;
    hk__tool_locate(s[k].c.ret, &loc);
    snprintf(s[k].module, MODLEN, "%s", loc.module);
    snprintf(s[k].func, FUNCLEN, "%s", loc.func);
    s[k].offset = loc.offset;
    s[k].func_offset = loc.func_offset;
    s[k].base = loc.base;
    s[k].c.ret = NULL;
  }
  *out = s;
  return s ? n : 0;
}

void hk__prof_gather(void)
{
  const int root = 0, me = hk__prof.rank, size = hk__prof.size;
  out_rank_t r = {0};
  r.wall = hk__prof_now() - hk__prof.t_init;
  long long hist[PROF_NCLS][PROF_NBIN][2] = {{{0}}};
  for (prof_thread_t *t = hk__prof.threads; t; t = t->next) {
    r.mpi += t->mpi;
    r.mpi_outside += t->mpi_outside;
    r.mpi_parallel += t->mpi_parallel;
    r.sleeping += t->sleeping;
    r.dropped += t->dropped;
    for (int c = 0; c < PROF_NCLS; c++)
      for (int b = 0; b < PROF_NBIN; b++)
        for (int k = 0; k < 2; k++)
          hist[c][b][k] += t->hist[c][b][k];
  }
  r.cpu = hk__prof_task_cpu(&r.tasks, &r.busy_tasks, r.wall) - hk__prof.cpu_init;
  r.cpu = r.cpu > 0 ? r.cpu : 0.0;
  r.vmhwm_kib = status_kib("VmHWM");
  r.node = hk__prof.node;
  r.max_threads = omp_get_max_threads();
  r.cpu_now = sched_getcpu();
  gethostname(r.host, sizeof r.host - 1);
  cpuset_list(r.cpuset, sizeof r.cpuset);

  out_site_t *mine = NULL;
  int n = merge_local(&mine);
  int len = 0;
  PMPI_Get_library_version(g.lib, &len);
  g.lib[strcspn(g.lib, "\n")] = '\0';

  int *counts = NULL, *displs = NULL;
  if (me == root) {
    g.ranks = calloc((size_t)size, sizeof *g.ranks);
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size, sizeof *displs);
  }
  PMPI_Gather(&r, (int)sizeof r, MPI_BYTE, g.ranks, (int)sizeof r, MPI_BYTE, root,
              MPI_COMM_WORLD);
  PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, root, MPI_COMM_WORLD);
  long long total = 0;
  if (me == root && counts && displs) {
    for (int i = 0; i < size; i++) {
      displs[i] = (int)(total * (long long)sizeof(out_site_t));
      total += counts[i];
      counts[i] *= (int)sizeof(out_site_t);
    }
    g.sites = calloc((size_t)total + 1, sizeof *g.sites);
    g.nsites = g.sites ? (int)total : 0;
  }
  PMPI_Gatherv(mine, n * (int)sizeof(out_site_t), MPI_BYTE, g.sites, counts, displs, MPI_BYTE,
               root, MPI_COMM_WORLD);
  PMPI_Reduce(hist, g.hist, PROF_NCLS * PROF_NBIN * 2, MPI_LONG_LONG, MPI_SUM, root,
              MPI_COMM_WORLD);
  free(mine);
  free(counts);
  free(displs);
  if (me == root && !(g.ranks && g.sites)) {
    free(g.ranks);
    free(g.sites);
    g.ranks = NULL;
    g.sites = NULL;
  }
}

/* ------------------------------------------------------------ rank 0 */


static int by_time(const void *a, const void *b)
{
  double x = ((const site_sum_t *)a)->c.time, y = ((const site_sum_t *)b)->c.time;
  return (x < y) - (x > y);
}

/* "file:line (function)" of the call before the return address, when addr2line and
 * debug info are there (hk_tool.c); unchanged otherwise */
static void addr2line(site_sum_t *s)
{
  hk_tool_loc_t loc = {.offset = s->offset, .base = s->base};
  hk_tool_src_t src;
  snprintf(loc.module, sizeof loc.module, "%s", s->module);
  if (hk__tool_addr2line(&loc, &src))
    snprintf(s->where, sizeof s->where, "%s", src.where);
}

void hk__prof_site_name(const site_sum_t *s, char *out, size_t n)
{
  const char *mod = strrchr(s->module, '/');
  mod = mod ? mod + 1 : s->module;
  if (s->where[0])
    snprintf(out, n, "%s", s->where);
  else if (s->func[0])
    snprintf(out, n, "%s+0x%llx (%s)", s->func, s->func_offset, mod);
  else
    snprintf(out, n, "%s+0x%llx", mod, s->offset);
}

static int merge_sites(site_sum_t **out)
{
  site_sum_t *m = calloc((size_t)g.nsites + 1, sizeof *m);
  int n = 0;
  for (int i = 0; m && i < g.nsites; i++) {
    const out_site_t *s = &g.sites[i];
    int k = 0;
    while (k < n && !(m[k].call == s->call && m[k].offset == s->offset &&
                      !strcmp(m[k].module, s->module)))
      k++;
    if (k == n) {
      m[n] = (site_sum_t){.call = s->call, .module = s->module, .func = s->func,
                          .offset = s->offset, .func_offset = s->func_offset, .base = s->base,
                          .tmin = s->c.time, .tmax = s->c.time, .c.shape = s->c.shape};
      n++;
    }
    site_sum_t *t = &m[k];
    t->ranks++;
    t->tmin = fmin(t->tmin, s->c.time);
    t->tmax = fmax(t->tmax, s->c.time);
    t->c.calls += s->c.calls;
    t->c.calls_parallel += s->c.calls_parallel;
    t->c.calls_off_main += s->c.calls_off_main;
    t->c.bytes += s->c.bytes;
    t->c.calls_intra += s->c.calls_intra;
    t->c.calls_inter += s->c.calls_inter;
    t->c.bytes_intra += s->c.bytes_intra;
    t->c.bytes_inter += s->c.bytes_inter;
    t->c.time += s->c.time;
    t->c.time_outside += s->c.time_outside;
    t->c.threads |= s->c.threads;
  }
  for (int k = 0; k < n; k++)
    if (m[k].ranks < hk__prof.size)
      m[k].tmin = 0.0; /* the ranks that never made the call spent 0 s there */
  if (m)
    qsort(m, (size_t)n, sizeof *m, by_time);
  *out = m;
  return n;
}


static totals_t sum_sites(const site_sum_t *s, int n)
{
  totals_t t = {0};
  for (int k = 0; k < n; k++) {
    int sh = s[k].c.shape;
    int coll = sh == S_SEND || sh == S_RECV ? 0 : sh == S_COLL || sh == S_ALLRED ? 1 : -1;
    t.calls += s[k].c.calls;
    t.parallel += s[k].c.calls_parallel;
    t.off_main += s[k].c.calls_off_main;
    if (coll == 0) {
      t.p2p_intra += s[k].c.calls_intra;
      t.p2p_inter += s[k].c.calls_inter;
      t.p2p_bytes_intra += s[k].c.bytes_intra;
      t.p2p_bytes_inter += s[k].c.bytes_inter;
    } else if (coll == 1) {
      t.coll_intra += s[k].c.calls_intra;
      t.coll_inter += s[k].c.calls_inter;
    }
  }
  for (int b = 0; b < PROF_NBIN; b++) {
    t.allreduce_calls += g.hist[CLS_ALLREDUCE][b][0];
    if (g.hist[CLS_ALLREDUCE][b][0])
      t.allreduce_bytes_max = b ? 1LL << (b - 1) : 0; /* the bin's lower end */
  }
  return t;
}


static void human(char *out, size_t n, double bytes)
{
  const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (bytes >= 1024 && i < 4) {
    bytes /= 1024;
    i++;
  }
  snprintf(out, n, i ? "%.1f %s" : "%.0f %s", bytes, u[i]);
}


/* the summary, written with one write(): the launcher merges stderr streams */
static void summary(const site_sum_t *s, int n, const totals_t *t)
{
  hk_tool_text_t tx = {.cap = 16384 + 200 * (size_t)(n < 25 ? n : 25)};
  tx.buf = malloc(tx.cap);
  if (!tx.buf)
    return;
#define ADD(...) hk__tool_add(&tx, __VA_ARGS__)
  double mn, avg, mx, mpi_total = 0.0;
  for (int k = 0; k < n; k++)
    mpi_total += s[k].c.time;
  ADD("hybridkit-profile: %s\n", g.command);
  ADD("hybridkit-profile: %d rank(s) x %d thread(s) on %d node(s)%s, %s (asked %s)\n",
      hk__prof.size, hk__prof_max_threads(), hk__prof.nnodes, hk__prof.virtual_nodes ? " (virtual)" : "",
      hk__mpi_level_long(hk__prof.required < hk__prof.provided ? hk__prof.required
                                                                : hk__prof.provided),
      hk__mpi_level_short(hk__prof.required));
  ADD("  per rank                            min         avg         max\n");
#define ROW(label, expr, fmt)                                                                  \
  do {                                                                                         \
    RANK_STATS(expr, mn, avg, mx);                                                             \
    ADD("  %-28s " fmt " " fmt " " fmt "\n", label, mn, avg, mx);                              \
  } while (0)
  ROW("wall time (s)", R->wall, "%11.4f");
  ROW("MPI time (s)", R->mpi, "%11.4f");
  ROW("  outside parallel (s)", R->mpi_outside, "%11.4f");
  ROW("  inside parallel (s)", R->mpi_parallel, "%11.4f");
  ROW("f_comm (outside / wall)", R->wall > 0 ? R->mpi_outside / R->wall : 0.0, "%11.4f");
  ROW("sleeping threads (thread-s)", R->sleeping, "%11.4f");
  ROW("busy threads (CPU / wall)", R->wall > 0 ? R->cpu / R->wall : 0.0, "%11.2f");
  ROW("VmHWM (MiB)", (double)R->vmhwm_kib / 1024.0, "%11.1f");
#undef ROW
  char a[32], b[32];
  human(a, sizeof a, (double)t->p2p_bytes_intra);
  human(b, sizeof b, (double)t->p2p_bytes_inter);
  ADD("  %lld call(s), %lld inside parallel regions, %lld off the main thread; point-to-point "
      "%lld intra-node (%s), %lld inter-node (%s)\n",
      t->calls, t->parallel, t->off_main, t->p2p_intra, a, t->p2p_inter, b);
  ADD("  %-20s %9s %11s %6s %10s %7s %7s %6s  %s\n", "function", "calls", "time(s)", "%MPI",
      "bytes", "intra", "inter", "par", "site");
  for (int k = 0; k < n && k < 25; k++) {
    char site[300], by[32];
    hk__prof_site_name(&s[k], site, sizeof site);
    human(by, sizeof by, (double)s[k].c.bytes);
    ADD("  %-20s %9lld %11.4f %6.1f %10s %7lld %7lld %6lld  %s\n", hk__prof_call_names[s[k].call],
        s[k].c.calls, s[k].c.time, mpi_total > 0 ? 100.0 * s[k].c.time / mpi_total : 0.0, by,
        s[k].c.calls_intra, s[k].c.calls_inter, s[k].c.calls_parallel, site);
  }
  if (n > 25)
    ADD("  ... %d more site(s) in the records\n", n - 25);
  ADD("  message sizes (log2 bins; sends, collective contributions, allreduces):\n");
  for (int bin = 0; bin < PROF_NBIN; bin++) {
    long long p = g.hist[CLS_P2P][bin][0], c = g.hist[CLS_COLL][bin][0],
              r = g.hist[CLS_ALLREDUCE][bin][0];
    if (!p && !c && !r)
      continue;
    human(a, sizeof a, bin ? (double)(1LL << (bin - 1)) : 0.0);
    ADD("    >= %-10s p2p %10lld   coll %10lld   allreduce %10lld\n", a, p, c, r);
  }
#undef ADD
  fflush(stderr);
  ssize_t w = write(STDERR_FILENO, tx.buf, tx.used);
  (void)w;
  free(tx.buf);
}

/* the command line (g.command, spaces between the arguments); *path: the argument
 * after `flag` when there is one (HK_PROFILE_OUTPUT=argv:FLAG), else NULL */
static void read_command(const char *flag, char *path, size_t npath)
{
  char raw[sizeof g.command];
  FILE *f = fopen("/proc/self/cmdline", "r");
  size_t n = f ? fread(raw, 1, sizeof raw - 1, f) : 0;
  if (f)
    fclose(f);
  raw[n] = '\0';
  path[0] = '\0';
  for (size_t i = 0; flag && i < n; i += strlen(raw + i) + 1)
    if (!strcmp(raw + i, flag) && i + strlen(raw + i) + 1 < n) {
      snprintf(path, npath, "%s", raw + i + strlen(raw + i) + 1);
      break;
    }
  memcpy(g.command, raw, n + 1);
  for (size_t i = 0; i + 1 < n; i++)
    if (!g.command[i])
      g.command[i] = ' ';
}

/* a boolean variable's value, 0 and one warning line (saying what happens instead) when it
 * is no boolean */
static int bool_or_warn(const char *name, const char *v, const char *instead)
{
  int b = hk__bool_word(v);
  if (b < 0)
    fprintf(stderr, "hybridkit-profile: warning: %s=%s: expected " HK_BOOL_WORDS "; %s\n", name,
            v, instead);
  return b > 0;
}

void hk__prof_write(void)
{
  if (hk__prof.rank != 0 || !g.ranks)
    return;
  const char *out = getenv("HK_PROFILE_OUTPUT");
  char from_argv[512];
  read_command(out && !strncmp(out, "argv:", 5) ? out + 5 : NULL, from_argv, sizeof from_argv);
  if (out && !strncmp(out, "argv:", 5))
    out = from_argv;
  site_sum_t *s = NULL;
  int n = merge_sites(&s);
  if (!s)
    return;
  /* the two switches, read here (rank 0, once): a value that is no boolean is warned
   * about and leaves the default (addr2line on, the summary printed) */
  const char *no_a2l = getenv("HK_PROFILE_NO_ADDR2LINE"), *quiet = getenv("HK_PROFILE_QUIET");
  int skip_a2l = bool_or_warn("HK_PROFILE_NO_ADDR2LINE", no_a2l, "addr2line runs");
  int be_quiet = bool_or_warn("HK_PROFILE_QUIET", quiet, "the summary is printed");
  for (int k = 0; k < n && !skip_a2l; k++)
    addr2line(&s[k]);
  totals_t t = sum_sites(s, n);
  if (out && *out && hk__prof_records(out, s, n, &t) != HK_SUCCESS)
    fprintf(stderr, "hybridkit-profile: error: %s\n", hk_error_message());
  if (!be_quiet)
    summary(s, n, &t);
  free(s);
  free(g.sites);
  free(g.ranks);
  g.sites = NULL;
  g.ranks = NULL;
}
