/* apps/common/hk_app.c: option table parsing, generated help, collective finish. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "hk_app.h"
#include "hybridkit.h"
#include "hybridkit/ckd.h"

static void print_default(const hk_opt_t *o, FILE *out)
{
  switch (o->type) {
  case HK_OPT_FLAG: break;
  case HK_OPT_INT: fprintf(out, " (default %d)", *(int *)o->target); break;
  case HK_OPT_DOUBLE: fprintf(out, " (default %g)", *(double *)o->target); break;
  case HK_OPT_STR:
    if (*(const char **)o->target)
      fprintf(out, " (default %s)", *(const char **)o->target);
    break;
  case HK_OPT_CHOICE: {
    const hk_opt_choice_t *c = o->target;
    fprintf(out, " (default %s)", c->names[*c->value]);
    break;
  }
  }
}

/* the choices of a CHOICE option joined: "a|b|c" (sep "|") or "a, b or c" (sep NULL) */
static void choices_text(const hk_opt_t *o, const char *sep, char *buf, size_t size)
{
  const hk_opt_choice_t *c = o->target;
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; c->names[i] && n < size; i++) {
    const char *s = i == 0 ? "" : sep ? sep : c->names[i + 1] ? ", " : " or ";
    n += (size_t)snprintf(buf + n, size - n, "%s%s", s, c->names[i]);
  }
}

/* the choice `v` of o, or HK_ERR_ARG listing the choices */
static int set_choice(const hk_opt_t *o, const char *v)
{
  const hk_opt_choice_t *c = o->target;
  char list[256];
  for (int i = 0; c->names[i]; i++)
    if (strcmp(c->names[i], v) == 0) {
      *c->value = i;
      return HK_SUCCESS;
    }
  choices_text(o, NULL, list, sizeof list);
  return hk_error_set(HK_ERR_ARG, "--%s %s: %s", o->name, v, list);
}

void hk_app_help(const hk_app_t *app, FILE *out)
{
  fprintf(out, "%s: %s\n\nusage: %s %s\n", app->program, app->summary, app->program, app->usage);
  if (app->description)
    fprintf(out, "\n%s\n", app->description);
  fprintf(out, "\noptions:\n");
  for (int i = 0; i < app->nopts; i++) {
    const hk_opt_t *o = &app->opts[i];
    char left[96], alias[8] = "", list[64];
    if (o->short_name)
      snprintf(alias, sizeof alias, "-%c, ", o->short_name);
    if (o->type == HK_OPT_CHOICE && !o->arg)
      choices_text(o, "|", list, sizeof list);
    snprintf(left, sizeof left, "%s--%s%s%s", alias, o->name, o->type == HK_OPT_FLAG ? "" : " ",
             o->type == HK_OPT_FLAG ? "" : o->type == HK_OPT_CHOICE && !o->arg ? list : o->arg);
    fprintf(out, "  %-26s %s", left, o->help);
    print_default(o, out);
    fprintf(out, "\n");
  }
  if (app->list_modes)
    fprintf(out, "  %-26s %s\n", "--list-modes",
            "print the hybrid modes (name, thread level, overlaps) and exit");
  fprintf(out, "  %-26s %s\n  %-26s %s\n  %-26s %s\n", "--help", "show this help and exit",
          "--version", "print the version and exit", "--build-info",
          "print how the library was built and exit");
}

void hk_app_list_modes(FILE *out)
{
  for (int m = 0; m < HK_MODE_COUNT; m++) {
    int overlaps = 0;
    hk_mode_overlaps((hk_mode_t)m, &overlaps);
    fprintf(out, "%s %s %d\n", hk_mode_name((hk_mode_t)m),
            hk_thread_level_name(hk_mode_thread_level((hk_mode_t)m)), overlaps);
  }
}

static int set_value(const hk_opt_t *o, const char *v)
{
  char *end = NULL;
  errno = 0;
  switch (o->type) {
  case HK_OPT_INT: {
    long n = strtol(v, &end, 10);
    if (errno || !*v || *end || n < -2147483647L || n > 2147483647L)
      return hk_error_set(HK_ERR_ARG, "--%s %s: not an integer", o->name, v);
    *(int *)o->target = (int)n;
    break;
  }
  case HK_OPT_DOUBLE: {
    double d = strtod(v, &end);
    if (errno || !*v || *end || !isfinite(d))
      return hk_error_set(HK_ERR_ARG, "--%s %s: not a number", o->name, v);
    *(double *)o->target = d;
    break;
  }
  case HK_OPT_STR: *(const char **)o->target = v; break;
  case HK_OPT_FLAG: *(int *)o->target = 1; break;
  case HK_OPT_CHOICE: return set_choice(o, v);
  }
  return HK_SUCCESS;
}

int hk_app_launcher_rank(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                     "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    char *end = NULL;
    if (!v || !*v)
      continue;
    long r = strtol(v, &end, 10);
    if (!*end && r >= 0 && r <= 2147483647L)
      return (int)r;
  }
  return 0;
}

int hk_app_parse_extents(const char *option, const char *s, int n, long long *v)
{
  const char *p = s;
  for (int i = 0; i < n; i++) {
    char *end = NULL;
    errno = 0;
    if (*p < '0' || *p > '9') /* no sign, no blank */
      break;
    long long x = strtoll(p, &end, 10);
    if (errno || x < 1)
      break;
    v[i] = x;
    p = end;
    if (i + 1 == n && !*p)
      return HK_SUCCESS;
    if (*p != 'x')
      break;
    p++;
  }
  static const char *const shape[] = {"", "N", "NXxNY", "NXxNYxNZ"};
  return hk_error_set(HK_ERR_ARG, "--%s %s: expected %s (%d positive integers joined by 'x')",
                      option, s, n >= 1 && n <= 3 ? shape[n] : "N", n);
}

static void print_build_info(const hk_app_t *app)
{
  hk_build_info_t b;
  hk_build_info(&b);
  printf("%s %s\ngit: %s\nbuild type: %s\ncompiler: %s\ncflags: %s\nMPI implementation: %s\n",
         app->program, b.version, b.git_sha, b.build_type, b.compiler, b.cflags, b.mpi_impl);
}

int hk_app_parse(const hk_app_t *app, int argc, char **argv, int *done)
{
  int err = HK_SUCCESS;
  *done = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      hk_app_help(app, stdout);
      *done = 1;
      return HK_SUCCESS;
    }
    if (strcmp(a, "--version") == 0) {
      hk_build_info_t b;
      hk_build_info(&b);
      printf("%s %s (git %s)\n", app->program, b.version, b.git_sha);
      *done = 1;
      return HK_SUCCESS;
    }
    if (app->list_modes && strcmp(a, "--list-modes") == 0) {
      hk_app_list_modes(stdout);
      *done = 1;
      return HK_SUCCESS;
    }
    if (strcmp(a, "--build-info") == 0) {
      print_build_info(app);
      *done = 1;
      return HK_SUCCESS;
    }
    const hk_opt_t *o = NULL;
    const char *eq = NULL;
    size_t len = 0;
    if (a[0] == '-' && a[1] && a[1] != '-' && !a[2]) { /* -m VALUE */
      for (int k = 0; k < app->nopts && !o; k++)
        if (app->opts[k].short_name == a[1])
          o = &app->opts[k];
      if (!o)
        return hk_error_set(HK_ERR_ARG, "unknown option '%s' (see --help)", a);
    } else {
      if (strncmp(a, "--", 2) != 0)
        return hk_error_set(HK_ERR_ARG, "unexpected argument '%s' (see --help)", a);
      const char *name = a + 2;
      eq = strchr(name, '=');
      len = eq ? (size_t)(eq - name) : strlen(name);
      for (int k = 0; k < app->nopts && !o; k++)
        if (strlen(app->opts[k].name) == len && strncmp(app->opts[k].name, name, len) == 0)
          o = &app->opts[k];
      if (!o)
        return hk_error_set(HK_ERR_ARG, "unknown option '%.*s' (see --help)", (int)(len + 2), a);
    }
    const char *value = NULL;
    if (o->type == HK_OPT_FLAG) {
      if (eq)
        return hk_error_set(HK_ERR_ARG, "option --%s takes no value", o->name);
    } else if (eq) {
      value = eq + 1;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return hk_error_set(HK_ERR_ARG, "option --%s needs a value %s", o->name, o->arg);
    }
    HK_TRY(err, set_value(o, value));
  }
cleanup:
  return err;
}

int hk_app_record_halo_bytes(hk_record_t *rec, MPI_Comm comm, const hk_halo_stats_t *st,
                             long long *total)
{
  long long mine[6] = {st->bytes_intra, st->bytes_inter, st->bytes_self,
                       st->msgs_intra,  st->msgs_inter,  st->msgs_self}, sum[6];
  static const char *const names[6] = {"bytes_intra", "bytes_inter", "bytes_self",
                                       "msgs_intra",  "msgs_inter",  "msgs_self"};
  if (MPI_Allreduce(mine, sum, 6, MPI_LONG_LONG, MPI_SUM, comm) != MPI_SUCCESS)
    return hk_error_set(HK_ERR_MPI, "MPI_Allreduce of the halo bytes failed");
  int err = HK_SUCCESS;
  for (int i = 0; i < 6; i++)
    HK_LOCAL(err, hk_record_value_int(rec, names[i], sum[i], i < 3 ? "B/exchange" : "msgs/exchange"));
  if (total)
    *total = sum[0] + sum[1] + sum[2];
  return err;
}

int hk_app_machine_info(hk_machine_info_t *info)
{
  const hk_machine_t *m = NULL;
  int err = HK_SUCCESS;
  HK_TRY(err, hk_machine_this(&m));
  HK_TRY(err, hk_machine_info(m, info));
cleanup:
  return err;
}

int hk_app_exit_code(int status)
{
  if (status == HK_SUCCESS)
    return HK_EXIT_OK;
  return status == HK_ERR_ARG ? HK_EXIT_USAGE : HK_EXIT_FAIL;
}

int hk_app_init_request(const hk_app_t *app, int *argc, char ***argv, hk_thread_level_t wanted,
                        hk_thread_level_t required, int status, int *mpi_up)
{
  int err = hk_init_request(argc, argv, wanted, required);
  hk_initialized(mpi_up);
  if (!*mpi_up) {
    fprintf(stderr, "%s: error: %s\n", app->program, hk_error_message());
    return err;
  }
  return hk_agree(MPI_COMM_WORLD, status != HK_SUCCESS ? status : err);
}

int hk_app_run(const hk_app_t *app, int *argc, char ***argv, hk_thread_level_t wanted,
               hk_thread_level_t required, int status, int (*run)(void *arg), void *arg)
{
  int mpi_up = 0;
  int err = hk_app_init_request(app, argc, argv, wanted, required, status, &mpi_up);
  if (!mpi_up)
    return HK_EXIT_FAIL;
  HK_LOCAL(err, run(arg));
  return hk_app_finish(app, MPI_COMM_WORLD, err);
}

int hk_app_finish(const hk_app_t *app, MPI_Comm comm, int status)
{
  int rank = 0;
  status = hk_agree(comm, status);
  MPI_Comm_rank(comm, &rank);
  if (status != HK_SUCCESS && rank == 0) {
    fprintf(stderr, "%s: error: %s\n", app->program, hk_error_message());
    fflush(stderr);
  }
  int fin = hk_finalize();
  if (status == HK_SUCCESS && fin != HK_SUCCESS) {
    fprintf(stderr, "%s: error: %s\n", app->program, hk_error_message());
    status = fin;
  }
  return hk_app_exit_code(status);
}

/* bytes this process maps already (VmSize), 0 when unknown */
static double mapped_bytes(void)
{
  unsigned long long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%llu", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return (double)pages * (double)sysconf(_SC_PAGESIZE);
}

/* the memory limit of this process's cgroup (v2), or -1 when there is none */
static double cgroup_limit(void)
{
  char path[640] = "", line[512];
  double limit = -1;
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "0::", 3) == 0) {
      line[strcspn(line, "\n")] = 0;
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
    }
  fclose(f);
  if (!*path || !(f = fopen(path, "r")))
    return -1;
  unsigned long long v;
  if (fscanf(f, "%llu", &v) == 1)
    limit = (double)v;
  fclose(f);
  return limit;
}

int hk_app_mem_check(MPI_Comm comm, double need, const char *what)
{
  char a[32], b[32], c[32];
  int local = HK_SUCCESS, rank = 0;
  MPI_Comm_rank(comm, &rank);
  /* per process: the address-space and data limits, less what is mapped already */
  static const struct { int res; const char *name; } lim[] = {
    {RLIMIT_AS, "RLIMIT_AS (ulimit -v)"}, {RLIMIT_DATA, "RLIMIT_DATA (ulimit -d)"}};
  double mapped = mapped_bytes();
  for (int i = 0; i < 2; i++) {
    struct rlimit rl;
    if (getrlimit(lim[i].res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
      continue;
    double room = (double)rl.rlim_cur - (i == 0 ? mapped : 0.0);
    if (need > room) /* the first limit that does not fit is named */
      HK_LOCAL(local, hk_error_set(HK_ERR_NOMEM, "memory for %s: %s per process, more than the "
                                   "%s left by %s of %s", what, hk_fmt_bytes(a, sizeof a, need),
                                   hk_fmt_bytes(b, sizeof b, room > 0 ? room : 0), lim[i].name,
                                   hk_fmt_bytes(c, sizeof c, (double)rl.rlim_cur)));
  }
  /* per node: the sum over the ranks sharing it against its memory */
  MPI_Comm node = MPI_COMM_NULL;
  double node_need = need;
  int nranks = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Allreduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, node);
    MPI_Comm_size(node, &nranks);
    MPI_Comm_free(&node);
  }
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  double cg = cgroup_limit();
  const char *src = "the node's physical memory";
  if (cg > 0 && (phys <= 0 || cg < phys)) {
    phys = cg;
    src = "the memory limit of the cgroup";
  }
  if (phys > 0 && node_need > phys)
    HK_LOCAL(local, hk_error_set(HK_ERR_NOMEM, "memory for %s: %s on this node (%d process%s), "
                                 "more than %s (%s)", what, hk_fmt_bytes(a, sizeof a, node_need),
                                 nranks, nranks == 1 ? "" : "es", src,
                                 hk_fmt_bytes(b, sizeof b, phys)));
  return hk_agree(comm, local);
}
