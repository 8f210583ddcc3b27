/* preload/hk_profile_json.c: the records libhybridkit-profile.so appends to
 * $HK_PROFILE_OUTPUT at MPI_Finalize (rank 0): one of kind profile, one profile.site per
 * MPI function and call site, one profile.size per non-empty histogram bin, each with the
 * provenance every hybridkit record carries (python/src/hybridkit/schemas/record.schema.json;
 * the fields are declared in hk_profile_kinds.c).  Written by hand: the program never
 * called hk_init. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hk_profile_out.h"
#include "hybridkit/topo.h"
#include "hybridkit/version.h"

#define g hk__prof_out

/* ---- JSON ---- */

static void jstr(FILE *f, const char *s)
{
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void jnum(FILE *f, double v)
{
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

static void kv_str(FILE *f, int *first, const char *k, const char *v)
{
  fprintf(f, "%s\"%s\":", *first ? "" : ",", k);
  *first = 0;
  jstr(f, v);
}

static void kv_int(FILE *f, int *first, const char *k, long long v)
{
  fprintf(f, "%s\"%s\":%lld", *first ? "" : ",", k, v);
  *first = 0;
}

static void res_int(FILE *f, int *first, const char *k, long long v, const char *unit)
{
  fprintf(f, "%s\"%s\":{\"value\":%lld,\"unit\":", *first ? "" : ",", k, v);
  *first = 0;
  jstr(f, unit);
  fputc('}', f);
}

static void res_val(FILE *f, int *first, const char *k, double v, const char *unit)
{
  fprintf(f, "%s\"%s\":{\"value\":", *first ? "" : ",", k);
  *first = 0;
  jnum(f, v);
  fputs(",\"unit\":", f);
  jstr(f, unit);
  fputc('}', f);
}

static void res_stats(FILE *f, int *first, const char *k, double mn, double avg, double mx,
                      const char *unit)
{
  fprintf(f, "%s\"%s\":{\"min\":", *first ? "" : ",", k);
  *first = 0;
  jnum(f, mn);
  fputs(",\"avg\":", f);
  jnum(f, avg);
  fputs(",\"max\":", f);
  jnum(f, mx);
  fputs(",\"unit\":", f);
  jstr(f, unit);
  fputc('}', f);
}


int hk__prof_max_threads(void)
{
  int t = 1;
  for (int r = 0; r < hk__prof.size; r++)
    t = g.ranks[r].max_threads > t ? g.ranks[r].max_threads : t;
  return t;
}

static const char *level_name(int l) { return hk__mpi_level_short(l); }


static void provenance(FILE *f)
{
  hk_build_info_t bi;
  hk_build_info(&bi);
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  hk_machine_info_t mi = {.source = "this machine", .cores = 1, .pus = 1};
  const hk_machine_t *m = NULL;
  if (hk_machine_this(&m) != 0 || hk_machine_info(m, &mi) != 0) {
    long pus = sysconf(_SC_NPROCESSORS_ONLN);
    mi = (hk_machine_info_t){.source = "this machine", .cores = pus > 0 ? (int)pus : 1,
                             .pus = pus > 0 ? (int)pus : 1};
  }
  const char *impl = strstr(g.lib, "Open MPI") ? "openmpi" : strstr(g.lib, "MPICH") ? "mpich"
                                                                                   : "other";
  int first = 1;
  fputs("\"provenance\":{", f);
  kv_str(f, &first, "hybridkit_version", bi.version);
  kv_str(f, &first, "git_sha", bi.git_sha);
  kv_str(f, &first, "compiler", bi.compiler);
  kv_str(f, &first, "cflags", bi.cflags);
  kv_str(f, &first, "mpi_library", g.lib);
  kv_str(f, &first, "mpi_impl", impl);
  fprintf(f, ",\"thread_level\":{\"requested\":\"%s\",\"provided\":\"%s\"}",
          level_name(hk__prof.required), level_name(hk__prof.provided));
  kv_int(f, &first, "ranks", hk__prof.size);
  kv_int(f, &first, "threads_per_rank", hk__prof_max_threads());
  kv_int(f, &first, "nodes", hk__prof.nnodes > 0 ? hk__prof.nnodes : 1);
  fprintf(f, ",\"virtual_nodes\":%s,\"hosts\":[", hk__prof.virtual_nodes ? "true" : "false");
  for (int r = 0, n = 0; r < hk__prof.size; r++) {
    int seen = 0;
    for (int q = 0; q < r && !seen; q++)
      seen = !strcmp(g.ranks[q].host, g.ranks[r].host);
    if (!seen) {
      fputs(n++ ? "," : "", f);
      jstr(f, g.ranks[r].host);
    }
  }
  fputs("],\"omp_places\":", f);
  getenv("OMP_PLACES") ? jstr(f, getenv("OMP_PLACES")) : (void)fputs("null", f);
  fputs(",\"omp_proc_bind\":", f);
  getenv("OMP_PROC_BIND") ? jstr(f, getenv("OMP_PROC_BIND")) : (void)fputs("null", f);
  fputs(",\"machine\":{\"source\":", f);
  jstr(f, mi.source);
  fprintf(f, ",\"packages\":%d,\"numa_nodes\":%d,\"cores\":%d,\"pus\":%d},\"binding\":[",
          mi.packages, mi.numa_nodes, mi.cores > 0 ? mi.cores : 1, mi.pus > 0 ? mi.pus : 1);
  for (int r = 0; r < hk__prof.size; r++) {
    fprintf(f, "%s{\"rank\":%d,\"thread\":0,\"host\":", r ? "," : "", r);
    jstr(f, g.ranks[r].host);
    fprintf(f, ",\"node\":%d,\"cpuset\":", g.ranks[r].node);
    jstr(f, g.ranks[r].cpuset);
    fprintf(f, ",\"cpu\":%d}", g.ranks[r].cpu_now);
  }
  fputs("],\"timestamp\":", f);
  jstr(f, stamp);
  fputc('}', f);
}

static void record_begin(FILE *f, const char *kind)
{
  char name[sizeof g.command];
  memcpy(name, g.command, sizeof name);
  name[strcspn(name, " ")] = '\0'; /* the program: the first word, its base name */
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  fprintf(f, "{\"schema_version\":1,\"kind\":\"%s\",\"program\":", kind);
  jstr(f, base[0] ? base : "?");
}

static void record_end(FILE *f)
{
  fputc(',', f);
  provenance(f);
  fputs("}\n", f);
}


void hk__prof_records(FILE *f, const site_sum_t *s, int n, const totals_t *t)
{
  double mn, avg, mx, mpi_total = 0.0;
  int first = 1;
  for (int k = 0; k < n; k++)
    mpi_total += s[k].c.time;
  record_begin(f, "profile");
  fputs(",\"params\":{", f);
  kv_str(f, &first, "command", g.command);
  kv_int(f, &first, "procs", hk__prof.size);
  kv_int(f, &first, "threads", hk__prof_max_threads());
  kv_int(f, &first, "nodes", hk__prof.nnodes > 0 ? hk__prof.nnodes : 1);
  kv_str(f, &first, "thread_level", level_name(hk__prof.required));
  kv_str(f, &first, "thread_level_provided", level_name(hk__prof.provided));
  fputs("},\"results\":{", f);
  first = 1;
  RANK_STATS(R->wall, mn, avg, mx);
  res_stats(f, &first, "wall_time", mn, avg, mx, "s");
  RANK_STATS(R->mpi, mn, avg, mx);
  res_stats(f, &first, "mpi_time", mn, avg, mx, "s");
  RANK_STATS(R->mpi_outside, mn, avg, mx);
  res_stats(f, &first, "mpi_time_outside", mn, avg, mx, "s");
  RANK_STATS(R->mpi_parallel, mn, avg, mx);
  res_stats(f, &first, "mpi_time_parallel", mn, avg, mx, "s");
  RANK_STATS(R->wall > 0 ? R->mpi_outside / R->wall : 0.0, mn, avg, mx);
  res_stats(f, &first, "f_comm", mn, avg, mx, "fraction");
  RANK_STATS(R->sleeping, mn, avg, mx);
  res_stats(f, &first, "sleeping_threads", mn, avg, mx, "thread-s");
  RANK_STATS(R->wall > 0 ? R->sleeping / (R->wall * R->max_threads) : 0.0, mn, avg, mx);
  res_stats(f, &first, "sleeping_share", mn, avg, mx, "fraction");
  RANK_STATS(R->wall > 0 ? R->cpu / R->wall : 0.0, mn, avg, mx);
  res_stats(f, &first, "busy_threads", mn, avg, mx, "threads");
  RANK_STATS((double)R->vmhwm_kib, mn, avg, mx);
  res_stats(f, &first, "vmhwm", mn, avg, mx, "KiB");
  res_int(f, &first, "calls", t->calls, "calls");
  res_int(f, &first, "calls_parallel", t->parallel, "calls");
  res_int(f, &first, "calls_off_main", t->off_main, "calls");
  res_int(f, &first, "p2p_calls_intra", t->p2p_intra, "calls");
  res_int(f, &first, "p2p_calls_inter", t->p2p_inter, "calls");
  res_int(f, &first, "p2p_bytes_intra", t->p2p_bytes_intra, "B");
  res_int(f, &first, "p2p_bytes_inter", t->p2p_bytes_inter, "B");
  res_int(f, &first, "coll_calls_intra", t->coll_intra, "calls");
  res_int(f, &first, "coll_calls_inter", t->coll_inter, "calls");
  res_int(f, &first, "allreduce_calls", t->allreduce_calls, "calls");
  res_int(f, &first, "sites", n, "sites");
  long long dropped = 0;
  for (int r = 0; r < hk__prof.size; r++)
    dropped += g.ranks[r].dropped;
  res_int(f, &first, "dropped_calls", dropped, "calls");
  fputc('}', f);
  record_end(f);

  for (int k = 0; k < n; k++) {
    char site[300];
    hk__prof_site_name(&s[k], site, sizeof site);
    char loc[300];
    snprintf(loc, sizeof loc, "%s+0x%llx", s[k].module, s[k].offset);
    record_begin(f, "profile.site");
    first = 1;
    fputs(",\"params\":{", f);
    kv_str(f, &first, "function", hk__prof_call_names[s[k].call]);
    kv_str(f, &first, "site", site);
    kv_str(f, &first, "address", loc);
    fputs("},\"results\":{", f);
    first = 1;
    res_int(f, &first, "calls", s[k].c.calls, "calls");
    res_stats(f, &first, "time", s[k].tmin, s[k].c.time / hk__prof.size, s[k].tmax, "s");
    res_val(f, &first, "time_outside", s[k].c.time_outside, "s");
    res_val(f, &first, "mpi_share", mpi_total > 0 ? s[k].c.time / mpi_total : 0.0,
            "fraction");
    res_int(f, &first, "bytes", s[k].c.bytes, "B");
    res_int(f, &first, "calls_intra", s[k].c.calls_intra, "calls");
    res_int(f, &first, "calls_inter", s[k].c.calls_inter, "calls");
    res_int(f, &first, "bytes_intra", s[k].c.bytes_intra, "B");
    res_int(f, &first, "bytes_inter", s[k].c.bytes_inter, "B");
    res_int(f, &first, "calls_parallel", s[k].c.calls_parallel, "calls");
    res_int(f, &first, "calls_off_main", s[k].c.calls_off_main, "calls");
    res_int(f, &first, "threads", __builtin_popcountll(s[k].c.threads), "threads");
    res_int(f, &first, "ranks", s[k].ranks, "ranks");
    fputc('}', f);
    record_end(f);
  }

  static const char *const cls[PROF_NCLS] = {"p2p", "collective", "allreduce"};
  for (int c = 0; c < PROF_NCLS; c++)
    for (int b = 0; b < PROF_NBIN; b++) {
      if (!g.hist[c][b][0])
        continue;
      record_begin(f, "profile.size");
      first = 1;
      fputs(",\"params\":{", f);
      kv_str(f, &first, "class", cls[c]);
      kv_int(f, &first, "bytes_min", b ? 1LL << (b - 1) : 0);
      kv_int(f, &first, "bytes_max", b ? (1LL << b) - 1 : 0);
      fputs("},\"results\":{", f);
      first = 1;
      res_int(f, &first, "calls", g.hist[c][b][0], "calls");
      res_int(f, &first, "bytes", g.hist[c][b][1], "B");
      fputc('}', f);
      record_end(f);
    }
}
