/* preload/hk_profile_records.c: the records libhybridkit-profile.so appends to
 * $HK_PROFILE_OUTPUT at MPI_Finalize (rank 0, after PMPI_Finalize): one of kind profile,
 * one profile.site per MPI function and call site, one profile.size per non-empty
 * histogram bin (declared in hk_profile_kinds.c).  They are written by the library's
 * reporter without communicator (hk_reporter_create_local), which builds the provenance
 * every hybridkit record carries from the facts gathered with PMPI before
 * (hk_profile_out.c): the program never called hk_init, and MPI is finalized. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_interpose.h"
#include "hk_profile_kinds.h"
#include "hk_profile_out.h"
#include "hybridkit.h"

#define g hk__prof_out

int hk__prof_max_threads(void)
{
  int t = 1;
  for (int r = 0; r < hk__prof.size; r++)
    t = g.ranks[r].max_threads > t ? g.ranks[r].max_threads : t;
  return t;
}

static hk_thread_level_t level_of(int mpi_level)
{
  static const hk_thread_level_t hk[] = {HK_THREAD_SINGLE, HK_THREAD_FUNNELED,
                                         HK_THREAD_SERIALIZED, HK_THREAD_MULTIPLE};
  return hk[hk__mpi_level_index(mpi_level)];
}

/* this machine, or what sysconf knows of it */
static hk_machine_info_t machine_of(void)
{
  hk_machine_info_t mi = {.source = "this machine", .cores = 1, .pus = 1};
  const hk_machine_t *m = NULL;
  if (hk_machine_this(&m) != HK_SUCCESS || hk_machine_info(m, &mi) != HK_SUCCESS) {
    long pus = sysconf(_SC_NPROCESSORS_ONLN);
    mi = (hk_machine_info_t){.source = "this machine", .cores = pus > 0 ? (int)pus : 1,
                             .pus = pus > 0 ? (int)pus : 1};
  }
  mi.cores = mi.cores > 0 ? mi.cores : 1;
  mi.pus = mi.pus > 0 ? mi.pus : 1;
  return mi;
}

/* the binding of every rank's master thread, as gathered (hk_profile_out.c) */
static hk_binding_entry_t *binding_of(void)
{
  hk_binding_entry_t *e = calloc((size_t)hk__prof.size, sizeof *e);
  for (int r = 0; e && r < hk__prof.size; r++) {
    e[r] = (hk_binding_entry_t){.rank = r, .thread = 0, .node = g.ranks[r].node,
                                .cpu = g.ranks[r].cpu_now};
    snprintf(e[r].host, sizeof e[r].host, "%s", g.ranks[r].host);
    snprintf(e[r].cpuset, sizeof e[r].cpuset, "%s", g.ranks[r].cpuset);
  }
  return e;
}

/* the program: the first word of the command, its base name */
static void program_of(char *name, size_t n)
{
  snprintf(name, n, "%s", g.command);
  name[strcspn(name, " ")] = '\0';
  const char *base = strrchr(name, '/');
  if (base)
    memmove(name, base + 1, strlen(base));
  if (!name[0])
    snprintf(name, n, "?");
}

static void rank_stats(hk_record_t *rec, const char *name, double (*of)(const out_rank_t *),
                       const char *unit)
{
  hk_stats_t st;
  RANK_STATS(of(R), st.min, st.avg, st.max);
  hk_record_stats_given(rec, name, &st, unit);
}

static double wall_of(const out_rank_t *R) { return R->wall; }
static double mpi_of(const out_rank_t *R) { return R->mpi; }
static double outside_of(const out_rank_t *R) { return R->mpi_outside; }
static double parallel_of(const out_rank_t *R) { return R->mpi_parallel; }
static double f_comm_of(const out_rank_t *R) { return R->wall > 0 ? R->mpi_outside / R->wall : 0.0; }
static double sleeping_of(const out_rank_t *R) { return R->sleeping; }
static double sleeping_share_of(const out_rank_t *R)
{
  return R->wall > 0 ? R->sleeping / (R->wall * R->max_threads) : 0.0;
}
static double busy_of(const out_rank_t *R) { return R->wall > 0 ? R->cpu / R->wall : 0.0; }
static double vmhwm_of(const out_rank_t *R) { return (double)R->vmhwm_kib; }

typedef struct { const char *name; long long v; const char *unit; } count_t;

static void counts(hk_record_t *rec, const count_t *c, int n)
{
  for (int i = 0; i < n; i++)
    hk_record_value_int(rec, c[i].name, c[i].v, c[i].unit);
}

/* no error tests in the three writers: a record keeps its first error, its emit returns it */
static int run_record(hk_reporter_t *rep, int n, const totals_t *t)
{
  hk_record_t *rec = NULL;
  long long dropped = 0;
  for (int r = 0; r < hk__prof.size; r++)
    dropped += g.ranks[r].dropped;
  hk_record_create_declared(rep, &hk_profile_kind, &rec);
  hk_record_param_str(rec, "command", g.command);
  hk_record_param_int(rec, "procs", hk__prof.size);
  hk_record_param_int(rec, "threads", hk__prof_max_threads());
  hk_record_param_int(rec, "nodes", hk__prof.nnodes > 0 ? hk__prof.nnodes : 1);
  hk_record_param_str(rec, "thread_level", hk__mpi_level_short(hk__prof.required));
  hk_record_param_str(rec, "thread_level_provided", hk__mpi_level_short(hk__prof.provided));
  rank_stats(rec, "wall_time", wall_of, "s");
  rank_stats(rec, "mpi_time", mpi_of, "s");
  rank_stats(rec, "mpi_time_outside", outside_of, "s");
  rank_stats(rec, "mpi_time_parallel", parallel_of, "s");
  rank_stats(rec, "f_comm", f_comm_of, "fraction");
  rank_stats(rec, "sleeping_threads", sleeping_of, "thread-s");
  rank_stats(rec, "sleeping_share", sleeping_share_of, "fraction");
  rank_stats(rec, "busy_threads", busy_of, "threads");
  rank_stats(rec, "vmhwm", vmhwm_of, "KiB");
  const count_t c[] = {
    {"calls", t->calls, "calls"}, {"calls_parallel", t->parallel, "calls"},
    {"calls_off_main", t->off_main, "calls"}, {"p2p_calls_intra", t->p2p_intra, "calls"},
    {"p2p_calls_inter", t->p2p_inter, "calls"}, {"p2p_bytes_intra", t->p2p_bytes_intra, "B"},
    {"p2p_bytes_inter", t->p2p_bytes_inter, "B"}, {"coll_calls_intra", t->coll_intra, "calls"},
    {"coll_calls_inter", t->coll_inter, "calls"},
    {"allreduce_calls", t->allreduce_calls, "calls"}, {"sites", n, "sites"},
    {"dropped_calls", dropped, "calls"}};
  counts(rec, c, (int)(sizeof c / sizeof c[0]));
  return hk_record_emit(&rec);
}

static int site_record(hk_reporter_t *rep, const site_sum_t *s, double mpi_total)
{
  hk_record_t *rec = NULL;
  char site[300], loc[300];
  hk__prof_site_name(s, site, sizeof site);
  snprintf(loc, sizeof loc, "%s+0x%llx", s->module, s->offset);
  hk_record_create_declared(rep, &hk_profile_site_kind, &rec);
  hk_record_param_str(rec, "function", hk__prof_call_names[s->call]);
  hk_record_param_str(rec, "site", site);
  hk_record_param_str(rec, "address", loc);
  hk_record_value_int(rec, "calls", s->c.calls, "calls");
  hk_record_stats_given(rec, "time", &(hk_stats_t){s->tmin, s->c.time / hk__prof.size, s->tmax},
                        "s");
  hk_record_value(rec, "time_outside", s->c.time_outside, "s");
  hk_record_value(rec, "mpi_share", mpi_total > 0 ? s->c.time / mpi_total : 0.0, "fraction");
  const count_t c[] = {
    {"bytes", s->c.bytes, "B"}, {"calls_intra", s->c.calls_intra, "calls"},
    {"calls_inter", s->c.calls_inter, "calls"}, {"bytes_intra", s->c.bytes_intra, "B"},
    {"bytes_inter", s->c.bytes_inter, "B"}, {"calls_parallel", s->c.calls_parallel, "calls"},
    {"calls_off_main", s->c.calls_off_main, "calls"},
    {"threads", __builtin_popcountll(s->c.threads), "threads"}, {"ranks", s->ranks, "ranks"}};
  counts(rec, c, (int)(sizeof c / sizeof c[0]));
  return hk_record_emit(&rec);
}

static int size_record(hk_reporter_t *rep, int cls, int b)
{
  static const char *const names[PROF_NCLS] = {"p2p", "collective", "allreduce"};
  hk_record_t *rec = NULL;
  hk_record_create_declared(rep, &hk_profile_size_kind, &rec);
  hk_record_param_str(rec, "class", names[cls]);
  hk_record_param_int(rec, "bytes_min", b ? 1LL << (b - 1) : 0);
  hk_record_param_int(rec, "bytes_max", b ? (1LL << b) - 1 : 0);
  hk_record_value_int(rec, "calls", g.hist[cls][b][0], "calls");
  hk_record_value_int(rec, "bytes", g.hist[cls][b][1], "B");
  return hk_record_emit(&rec);
}

int hk__prof_records(const char *path, const site_sum_t *s, int n, const totals_t *t)
{
  int err = HK_SUCCESS;
  char program[sizeof g.command];
  hk_reporter_t *rep = NULL;
  hk_machine_info_t mi = machine_of();
  hk_binding_t b = {.nentries = hk__prof.size, .entries = binding_of()};
  if (!b.entries)
    return hk_error_set(HK_ERR_NOMEM, "out of memory");
  program_of(program, sizeof program);
  hk_reporter_desc_t d = {.program = program, .output = path, .no_table = 1};
  hk_provenance_facts_t f = {
    .mpi_library = g.lib, .requested = level_of(hk__prof.required),
    .provided = level_of(hk__prof.provided), .ranks = hk__prof.size,
    .threads_per_rank = hk__prof_max_threads(), .nodes = hk__prof.nnodes > 0 ? hk__prof.nnodes : 1,
    .virtual_nodes = hk__prof.virtual_nodes, .binding = &b, .machine = &mi};
  HK_TRY(err, hk_reporter_create_local(&d, &f, &rep));
  double mpi_total = 0.0;
  for (int k = 0; k < n; k++)
    mpi_total += s[k].c.time;
  HK_TRY(err, run_record(rep, n, t));
  for (int k = 0; k < n; k++)
    HK_TRY(err, site_record(rep, &s[k], mpi_total));
  for (int c = 0; c < PROF_NCLS; c++)
    for (int bin = 0; bin < PROF_NBIN; bin++)
      if (g.hist[c][bin][0])
        HK_TRY(err, size_record(rep, c, bin));
cleanup:
  if (rep) {
    int cerr = hk_reporter_destroy(&rep);
    err = err != HK_SUCCESS ? err : cerr;
  }
  free(b.entries);
  return err;
}
