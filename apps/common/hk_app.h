/* apps/common/hk_app.h: what every hk-* binary shares: one option table that
 * drives both parsing and --help (so they cannot disagree), --version and
 * --build-info, and the collective finish (errors agreed over all ranks, one
 * line printed by rank 0, same exit code everywhere). */
#ifndef HK_APP_H
#define HK_APP_H

#include <stdio.h>
#include <mpi.h>
#include "hybridkit.h"

/* HK_OPT_CHOICE: one of the NULL-terminated `names`, stored as its index in *value
 * (parsed once: the program compares enums, never strings); its target is an
 * hk_opt_choice_t, e.g. &(hk_opt_choice_t){&opt.stores, stores_names} */
typedef enum hk_opt_type { HK_OPT_FLAG, HK_OPT_INT, HK_OPT_DOUBLE, HK_OPT_STR, HK_OPT_CHOICE } hk_opt_type_t;

typedef struct hk_opt {
  const char *name;   /* long name without "--" */
  hk_opt_type_t type;
  void *target;       /* int* (FLAG, INT), double*, const char** (STR), hk_opt_choice_t* */
  const char *arg;    /* metavariable shown in --help, e.g. "N" */
  const char *help;   /* one line; the default is shown from the target's initial value */
  char short_name;    /* optional one-letter alias, e.g. 'm' for -m; 0: none */
} hk_opt_t;

typedef struct hk_opt_choice {
  int *value;               /* index into names */
  const char *const *names; /* NULL-terminated */
} hk_opt_choice_t;

typedef struct hk_app {
  const char *program;      /* "hk-topology" */
  const char *summary;      /* one line */
  const char *usage;        /* "[options]" */
  const char *description;  /* paragraphs after the usage line, may be NULL */
  const hk_opt_t *opts;
  int nopts;
  int list_modes;           /* 1: --list-modes prints the hybrid modes (hk_app_list_modes) */
} hk_app_t;

/* Exit codes of every hk-* binary. */
enum { HK_EXIT_OK = 0, HK_EXIT_FAIL = 1, HK_EXIT_USAGE = 2 };

/* hk_app_parse: parse argv against the table ("--name value" or "--name=value").
 * --help, --version, --build-info (and --list-modes when app->list_modes) print and
 * set *done = 1.  Returns 0, or
 * HK_ERR_ARG with hk_error_message() naming the bad option.  No MPI needed. */
int hk_app_parse(const hk_app_t *app, int argc, char **argv, int *done);

/* hk_app_list_modes: one line per hybrid mode of the library's table, in its order:
 * "<name> <thread level> <overlaps 0|1>" (e.g. "task-balanced funneled 1"), the one
 * vocabulary the Python front end, the app descriptions and the tests ask for. */
void hk_app_list_modes(FILE *out);

/* hk_app_parse_extents: "NXxNYxNZ" (exactly n positive integers joined by 'x', nothing
 * else) into v[0..n-1]; HK_ERR_ARG naming `option` otherwise. */
int hk_app_parse_extents(const char *option, const char *s, int n, long long *v);

/* hk_app_launcher_rank: before (or without) MPI, this process's rank as the launcher
 * set it (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID), 0 when none did.
 * Paths that never start MPI (hk-topology --dry-run, usage errors of hk-bench) print
 * only on launcher rank 0, so a message under mpirun -n N appears once. */
int hk_app_launcher_rank(void);

/* hk_app_help: the usage text generated from the table. */
void hk_app_help(const hk_app_t *app, FILE *out);

/* hk_app_init_request: hk_init_request(argc, argv, wanted, required), then agree over
 * MPI_COMM_WORLD on the first failure among `status` (e.g. a parse error every rank
 * saw) and the initialisation, so that all ranks go on or stop together.  Returns the
 * agreed status; *mpi_up is 0 when MPI could not start at all (then the error is
 * printed here and the program must just return HK_EXIT_FAIL). */
int hk_app_init_request(const hk_app_t *app, int *argc, char ***argv, hk_thread_level_t wanted,
                        hk_thread_level_t required, int status, int *mpi_up);

/* hk_app_run: the rest of every main() after parsing: hk_app_init_request with
 * `status` (the parse result), then run(arg) when all ranks are fine, then
 * hk_app_finish over MPI_COMM_WORLD.  Returns the exit code for main (HK_EXIT_FAIL
 * when MPI could not start at all). */
int hk_app_run(const hk_app_t *app, int *argc, char ***argv, hk_thread_level_t wanted,
               hk_thread_level_t required, int status, int (*run)(void *arg), void *arg);

/* hk_app_record_halo_bytes: the halo bytes of one exchange summed over the ranks of
 * comm, as fields bytes_intra, bytes_inter, bytes_self (B/exchange) of rec, and the
 * messages alike (msgs_intra, msgs_inter, msgs_self, msgs/exchange); *total
 * (may be NULL) gets their sum.  Collective: comm.  Threads: outside parallel regions. */
int hk_app_record_halo_bytes(hk_record_t *rec, MPI_Comm comm, const hk_halo_stats_t *st,
                             long long *total);

/* hk_app_machine_info: this machine's description (hk_machine_this, hk_machine_info),
 * for the apps that size their work by its caches; an error when hwloc has none (the
 * callers then keep their defaults).  Collective: local. */
int hk_app_machine_info(hk_machine_info_t *info);

/* hk_app_mem_check: before allocating `need` bytes (an estimate, in double so it cannot
 * overflow) in this process, compare them with what it may use: the address-space and
 * data limits (RLIMIT_AS, RLIMIT_DATA, less what the process maps already), and, summed
 * over the ranks that share the node, the node's physical memory (or the memory limit
 * of its cgroup when smaller).  `what` names the need ("2 fields of 64x64x64 cells").
 * Returns the agreed status: HK_ERR_NOMEM with one line naming the need and the limit
 * when some rank's need does not fit.  Collective: comm.  Threads: outside parallel
 * regions. */
int hk_app_mem_check(MPI_Comm comm, double need, const char *what);

/* hk_app_finish: agree on `status` over comm (hk_agree), rank 0 prints
 * "<program>: error: <message>" once on failure, then hk_finalize().  Returns
 * the exit code for main: HK_EXIT_OK, HK_EXIT_USAGE for HK_ERR_ARG, else HK_EXIT_FAIL. */
int hk_app_finish(const hk_app_t *app, MPI_Comm comm, int status);

/* hk_app_exit_code: the exit code for a status (no MPI). */
int hk_app_exit_code(int status);

#endif
