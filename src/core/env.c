/* src/core/env.c: hk_init/hk_finalize, thread levels (incl. MASTERONLY),
 * the MASTERONLY run-time check and collective error agreement. */
#include <ctype.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal/hk_env_word.h"
#include "internal/hk_internal.h"

static struct {
  int initialized;
  int we_initialized_mpi;
  hk_thread_level_t requested;
  hk_thread_level_t provided;   /* hybridkit's view, after HK_MPI_THREAD_LIMIT */
  int mpi_provided;             /* what MPI said */
  int check_masteronly;
  pthread_t master;
} hk_env;

static const char *const hk_level_names[] = {"single", "masteronly", "funneled", "serialized",
                                             "multiple"};

const char *hk_thread_level_name(hk_thread_level_t level)
{
  if ((int)level < 0 || (int)level >= HK_THREAD_LEVEL_COUNT)
    return "invalid";
  return hk_level_names[level];
}

int hk_thread_level_parse(const char *name, hk_thread_level_t *level)
{
  if (!name || !level)
    return HK_ERROR(HK_ERR_ARG, "thread level name or result is NULL");
  const char *n = name;
  if (strncasecmp(n, "MPI_THREAD_", 11) == 0)
    n += 11;
  for (int l = 0; l < HK_THREAD_LEVEL_COUNT; l++)
    if (strcasecmp(n, hk_level_names[l]) == 0) {
      *level = (hk_thread_level_t)l;
      return HK_SUCCESS;
    }
  return HK_ERROR(HK_ERR_ARG,
                  "unknown thread level '%s' (single, masteronly, funneled, serialized, multiple)",
                  name);
}

/* The MPI level to request for an hybridkit level, and the least MPI level that serves it. */
static int mpi_request_for(hk_thread_level_t l)
{
  switch (l) {
  case HK_THREAD_SINGLE: return MPI_THREAD_SINGLE;
  case HK_THREAD_MASTERONLY: return MPI_THREAD_FUNNELED;
  case HK_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
  case HK_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
  default: return MPI_THREAD_MULTIPLE;
  }
}

static int mpi_minimum_for(hk_thread_level_t l)
{
  return l == HK_THREAD_MASTERONLY ? MPI_THREAD_SINGLE : mpi_request_for(l);
}

static const char *mpi_level_name(int m)
{
  switch (m) {
  case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
  case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
  case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
  case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  default: return "unknown MPI thread level";
  }
}

/* MPI level -> hybridkit level; SINGLE or FUNNELED count as MASTERONLY for a
 * program that asked for MASTERONLY (that is all it will use). */
static hk_thread_level_t hk_level_of(int m, hk_thread_level_t requested)
{
  if (requested == HK_THREAD_MASTERONLY && m <= MPI_THREAD_FUNNELED)
    return HK_THREAD_MASTERONLY;
  if (m >= MPI_THREAD_MULTIPLE) return HK_THREAD_MULTIPLE;
  if (m >= MPI_THREAD_SERIALIZED) return HK_THREAD_SERIALIZED;
  if (m >= MPI_THREAD_FUNNELED) return HK_THREAD_FUNNELED;
  return HK_THREAD_SINGLE;
}

int hk__is_initialized(void) { return hk_env.initialized; }

int hk_initialized(int *flag)
{
  if (!flag)
    return HK_ERROR(HK_ERR_ARG, "flag is NULL");
  *flag = hk_env.initialized;
  return HK_SUCCESS;
}

int hk_thread_levels(hk_thread_level_t *requested, hk_thread_level_t *provided)
{
  if (!hk_env.initialized)
    return HK_ERROR(HK_ERR_STATE, "hk_init has not been called");
  if (requested)
    *requested = hk_env.requested;
  if (provided)
    *provided = hk_env.provided;
  return HK_SUCCESS;
}

int hk_require_thread_level(hk_thread_level_t needed, const char *what)
{
  if (!hk_env.initialized)
    return HK_ERROR(HK_ERR_STATE, "hk_init has not been called");
  if (hk_env.mpi_provided >= mpi_minimum_for(needed))
    return HK_SUCCESS;
  return HK_ERROR(HK_ERR_THREAD_LEVEL, "%s needs thread level %s (%s), MPI provides %s",
                  what ? what : "this operation", hk_thread_level_name(needed),
                  mpi_level_name(mpi_minimum_for(needed)), mpi_level_name(hk_env.mpi_provided));
}

int hk__env_bool(const char *name, int *value)
{
  const char *v = getenv(name);
  int b = hk__bool_word(v);
  *value = b > 0;
  if (b < 0)
    return HK_ERROR(HK_ERR_ARG, "%s=%s: expected " HK_BOOL_WORDS, name, v);
  return HK_SUCCESS;
}

/* The rule of the level the program asked hk_init for (or the lower one
 * available): SINGLE and MASTERONLY
 * the master thread outside active parallel regions, FUNNELED the master
 * thread; SERIALIZED and MULTIPLE allow any thread (that two calls never
 * overlap under SERIALIZED needs a hook after the call too:
 * libhybridkit-check.so checks it). */
int hk_check_masteronly(const char *where)
{
  if (!hk_env.check_masteronly)
    return HK_SUCCESS;
  hk_thread_level_t rule = hk_env.provided < hk_env.requested ? hk_env.provided : hk_env.requested;
  if (rule >= HK_THREAD_SERIALIZED)
    return HK_SUCCESS;
  int in_parallel = omp_in_parallel() && rule <= HK_THREAD_MASTERONLY;
  int master = pthread_equal(pthread_self(), hk_env.master);
  if (!in_parallel && master)
    return HK_SUCCESS;
  char name[16];
  snprintf(name, sizeof name, "%s", hk_thread_level_name(rule));
  for (char *c = name; *c; c++)
    *c = (char)toupper((unsigned char)*c);
  int err = HK_ERROR(HK_ERR_MASTERONLY,
                     "%s violated by %s: MPI called %s%s%s (thread %d of %d) "
                     "[HK_CHECK_MASTERONLY=1]",
                     name, where ? where : "an MPI call", master ? "" : "from a non-master thread",
                     !master && in_parallel ? " " : "",
                     in_parallel ? "inside a parallel region" : "", omp_get_thread_num(),
                     omp_get_num_threads());
  fprintf(stderr, "hybridkit: %s\n", hk_error_message());
  return err;
}

int hk__masteronly_guard(const char *file, int line, const char *func, const char *expr)
{
  if (!hk_env.check_masteronly)
    return HK_SUCCESS;
  char where[256];
  const char *base = strrchr(file, '/');
  snprintf(where, sizeof where, "%s in %s (%s:%d)", expr, func, base ? base + 1 : file, line);
  return hk_check_masteronly(where);
}

/* The variables the modules read where they use them, checked at start: a value
 * hybridkit cannot read stops the program in hk_init, also one whose module this
 * program uses only late or not at all (hk-mz ignored HK_MEM_QUERY=garbage). */
static int env_check(void)
{
  int uneven = 0, err = HK_SUCCESS;
  HK_TRY(err, hk__env_bool("HK_NODE_UNEVEN", &uneven));
  HK_TRY(err, hk__nodes_size_env(NULL));
  HK_TRY(err, hk__mem_query_env(NULL));
  HK_TRY(err, hk__mem_nlocs_env(NULL));
  HK_TRY(err, hk__dsm_env(NULL, NULL));
cleanup:
  return err;
}

/* HK_MPI_THREAD_LIMIT: behave as if the MPI library provided at most this (*note says so) */
static int thread_cap(int *mpi_provided, char *note, size_t len)
{
  const char *cap = getenv("HK_MPI_THREAD_LIMIT");
  hk_thread_level_t c;
  if (!cap || !*cap)
    return HK_SUCCESS;
  if (hk_thread_level_parse(cap, &c) != HK_SUCCESS)
    return HK_ERROR(HK_ERR_ARG, "HK_MPI_THREAD_LIMIT=%s: not a thread level "
                    "(single, funneled, serialized, multiple)", cap);
  if (c == HK_THREAD_MASTERONLY)
    c = HK_THREAD_SINGLE; /* MASTERONLY is no MPI level: as a cap it means SINGLE */
  if (mpi_request_for(c) < *mpi_provided) {
    *mpi_provided = mpi_request_for(c);
    snprintf(note, len, " (capped by HK_MPI_THREAD_LIMIT=%s)", cap);
  }
  return HK_SUCCESS;
}

int hk_init(int *argc, char ***argv, hk_thread_level_t required)
{
  return hk_init_request(argc, argv, required, required);
}

int hk_init_request(int *argc, char ***argv, hk_thread_level_t wanted, hk_thread_level_t required)
{
  int err = HK_SUCCESS, flag = 0, finalized = 0, mpi_provided = MPI_THREAD_SINGLE;
  if (hk_env.initialized)
    return HK_ERROR(HK_ERR_STATE, "hk_init called twice");
  if ((int)required < HK_THREAD_SINGLE || (int)required > HK_THREAD_MULTIPLE ||
      (int)wanted < (int)required || (int)wanted > HK_THREAD_MULTIPLE)
    return HK_ERROR(HK_ERR_ARG, "invalid thread levels %d (wanted) / %d (required)", (int)wanted,
                    (int)required);
  if (omp_in_parallel())
    return HK_ERROR(HK_ERR_STATE, "hk_init called inside a parallel region");
  MPI_Finalized(&finalized);
  if (finalized)
    return HK_ERROR(HK_ERR_STATE, "hk_init called after MPI_Finalize");

  MPI_Initialized(&flag);
  if (flag) {
    MPI_Query_thread(&mpi_provided);
    hk_env.we_initialized_mpi = 0;
  } else {
    int rc = MPI_Init_thread(argc, argv, mpi_request_for(wanted), &mpi_provided);
    if (rc != MPI_SUCCESS)
      return hk__mpi_error(rc, __FILE__, __LINE__, __func__, "MPI_Init_thread");
    hk_env.we_initialized_mpi = 1;
  }
  hk_env.initialized = 1;
  hk_env.master = pthread_self();
  hk_env.requested = wanted;
  int local = HK_SUCCESS;
  HK_LOCAL(local, hk__env_bool("HK_CHECK_MASTERONLY", &hk_env.check_masteronly));
  HK_LOCAL(local, env_check());
  char capnote[96] = "";
  HK_LOCAL(local, thread_cap(&mpi_provided, capnote, sizeof capnote));
  hk_env.mpi_provided = mpi_provided;
  hk_env.provided = hk_level_of(mpi_provided, wanted);
  if (mpi_provided < mpi_minimum_for(required))
    HK_LOCAL(local, HK_ERROR(HK_ERR_THREAD_LEVEL,
                             "thread level %s needs %s, the MPI library provides %s%s",
                             hk_thread_level_name(required),
                             mpi_level_name(mpi_minimum_for(required)),
                             mpi_level_name(mpi_provided), capnote));
  err = hk_agree(MPI_COMM_WORLD, local);
  return err;
}

int hk_finalize(void)
{
  if (!hk_env.initialized)
    return HK_ERROR(HK_ERR_STATE, "hk_finalize without hk_init");
  if (omp_in_parallel())
    return HK_ERROR(HK_ERR_STATE, "hk_finalize called inside a parallel region");
  hk__real_machine_free();
  hk__rank_set_free();
  hk_env.initialized = 0;
  if (hk_env.we_initialized_mpi) {
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS)
      return hk__mpi_error(rc, __FILE__, __LINE__, __func__, "MPI_Finalize");
  }
  return HK_SUCCESS;
}

void hk__agreed_message(int first, int size, const char *msg)
{
  char full[HK_ERRMSG_MAX + 32];
  int prefixed = 0, n = -1;
  /* an error agreed before already names its rank: agreeing again changes nothing */
  if (sscanf(msg, "rank %*d: %n", &n) == 0 && n > 0)
    prefixed = 1;
  if (size > 1 && !prefixed)
    snprintf(full, sizeof full, "rank %d: %s", first, msg);
  else
    snprintf(full, sizeof full, "%s", msg);
  hk__error_set_message(full);
}

int hk_agree(MPI_Comm comm, int local_status)
{
  int err = HK_SUCCESS, rank = 0, size = 1, first = 0;
  struct {
    int status;
    char msg[HK_ERRMSG_MAX];
  } report;
  HK_MPI_TRY(err, PMPI_Comm_rank(comm, &rank));
  HK_MPI_TRY(err, PMPI_Comm_size(comm, &size));
  /* The lowest failing rank (size when none failed) tells everybody what went wrong. */
  int mine = local_status != HK_SUCCESS ? rank : size;
  HK_MPI_TRY(err, PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size)
    return HK_SUCCESS;
  report.status = local_status;
  snprintf(report.msg, sizeof report.msg, "%s", hk_error_message());
  HK_MPI_TRY(err, PMPI_Bcast(&report, (int)sizeof report, MPI_BYTE, first, comm));
  hk__agreed_message(first, size, report.msg);
  return report.status;
cleanup:
  return err;
}
