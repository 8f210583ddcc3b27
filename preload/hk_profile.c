/* preload/hk_profile.c: libhybridkit-profile.so, a PMPI profiler of an unmodified
 * MPI+OpenMP program (issue 25):
 *
 *   LD_PRELOAD=libhybridkit-profile.so HK_PROFILE_OUTPUT=profile.jsonl mpirun ... ./app
 *   hybridkit profile -- ./app ...        (the same, with the launcher, and advice)
 *
 * Every function of hk_check_calls.h (the checker's table, shared) is wrapped; what
 * each moves comes from hk_profile_shapes.h.  Per thread, a table keyed by (MPI
 * function, return address of the call) counts
 *
 *   calls, time inside, bytes (sent; posted receive buffers; a collective's own
 *   contribution), point-to-point calls and bytes to a peer on this rank's node
 *   (intra) or another (inter), collectives on communicators inside one node or
 *   spanning nodes, calls inside an active OpenMP parallel region
 *   (omp_in_parallel), calls from another thread than the one that initialised
 *   MPI, and which OpenMP thread numbers made the call
 *
 * and per thread: MPI time outside / inside parallel regions, the "sleeping
 * threads" (MPI time outside parallel regions x (omp_get_max_threads() - 1): the
 * threads of a masteronly program that have nothing to do while the master
 * communicates, in thread-seconds), and log2 histograms of point-to-point send
 * sizes, collective sizes and allreduce sizes.  Nodes: hk_nodes_create at
 * MPI_Init (MPI_Comm_split_type SHARED, or HK_NODE_SIZE virtual nodes).
 *
 * The wrappers change no MPI call: they time PMPI_<name> and count.  The profiler's
 * own MPI calls (one hk_nodes_create at init, the gathers at MPI_Finalize) are made
 * by every rank at MPI_Init and MPI_Finalize, on MPI_COMM_WORLD, through PMPI.  The
 * per-thread CPU times (/proc/self/task/N/schedstat) are read at MPI_Init and
 * MPI_Finalize only: reading them at every call costs tens of microseconds.
 *
 * Fortran programs (mpif.h, use mpi, use mpi_f08) are profiled like C ones under
 * Open MPI and MPICH: the Fortran calls that go to PMPI_* are taken by
 * hk_fortran.c, which calls hk__tool_<name> below with the Fortran caller's return
 * address; a C wrapper reached from inside an MPI library's binding (MPICH) counts
 * the first frame outside it (hk_tool.c).  The call site is then the user's
 * Fortran line.  MPI initialised without this library's MPI_Init (a binding or an
 * MPI it cannot see): one line at exit instead of no profile.  Do not preload it
 * together with libhybridkit-preload.so or libhybridkit-check.so (all define
 * MPI_Init). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <omp.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hk_profile.h"
#include "hk_profile_shapes.h"
#include "hk_check_ids.h"
#include "hk_tool.h"
#include "hybridkit/topo.h"

const char *const hk__prof_call_names[] = {
#define HK_CHECK_CALL(name, params, args) "MPI_" #name,
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
};

const char hk__tool_name[] = "hybridkit-profile";
prof_state_t hk__prof = {.world_group = MPI_GROUP_NULL};
static pthread_t main_thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* thread list, communicator cache */
static prof_thread_t spare;                               /* when calloc fails (shared, racy) */
static __thread __attribute__((tls_model("initial-exec"))) prof_thread_t *mine;
static __thread __attribute__((tls_model("initial-exec"))) int depth;

double hk__prof_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static __attribute__((noinline, cold)) prof_thread_t *new_thread(void)
{
  prof_thread_t *t = calloc(1, sizeof *t);
  if (!t)
    return &spare;
  pthread_mutex_lock(&lock);
  t->next = hk__prof.threads;
  hk__prof.threads = t;
  pthread_mutex_unlock(&lock);
  return t;
}

/* ------------------------------------------------------------------ shapes */

typedef struct shape {
  int cls;
  long long bytes;
  int peer;      /* a rank of comm, MPI_ANY_SOURCE, MPI_PROC_NULL */
  MPI_Comm comm;
} shape_t;

static inline long long tbytes(int n, MPI_Datatype t)
{
  int s = 0;
  if (n <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS)
    return 0;
  return (long long)n * s;
}

static inline long long csize(MPI_Comm c)
{
  int n = 0;
  return PMPI_Comm_size(c, &n) == MPI_SUCCESS ? n : 0;
}

/* the sum of counts[0..size-1] x the type's size (the v-collectives) */
static inline long long vbytes(const int counts[], MPI_Datatype t, MPI_Comm c)
{
  long long n = 0, size = csize(c);
  for (long long i = 0; counts && i < size; i++)
    n += counts[i];
  return n > INT32_MAX ? tbytes(1, t) * n : tbytes((int)n, t);
}

static void forget(MPI_Comm c);

#define SEND(n, t, d, c) ((shape_t){S_SEND, tbytes(n, t), d, c})
#define RECV(n, t, s, c) ((shape_t){S_RECV, tbytes(n, t), s, c})
#define COLL(bytes, c) ((shape_t){S_COLL, bytes, MPI_PROC_NULL, c})
#define ALLRED(n, t, c) ((shape_t){S_ALLRED, tbytes(n, t), MPI_PROC_NULL, c})
#define BYTES(n, t) ((shape_t){S_BYTES, tbytes(n, t), MPI_PROC_NULL, MPI_COMM_NULL})
#define NONE ((shape_t){S_NONE, 0, MPI_PROC_NULL, MPI_COMM_NULL})
#define FORGET(c) (forget(*(c)), NONE)

/* ------------------------------------------------- communicators and nodes */

/* per communicator: which of its ranks share this rank's node */
typedef struct comm_nodes {
  MPI_Comm comm;
  int size, spans;        /* spans: some rank is on another node */
  unsigned char *local;   /* NULL: unknown (an intercommunicator) */
} comm_nodes_t;
#define NCOMMS 64
static comm_nodes_t comms[NCOMMS];
static int ncomms, next_evict;

static void forget(MPI_Comm c)
{
  pthread_mutex_lock(&lock);
  for (int i = 0; i < ncomms; i++)
    if (comms[i].comm == c) {
      free(comms[i].local);
      comms[i] = comms[--ncomms];
      break;
    }
  pthread_mutex_unlock(&lock);
}

static void learn(comm_nodes_t *e, MPI_Comm c)
{
  int inter = 0, n = 0;
  MPI_Group g = MPI_GROUP_NULL;
  *e = (comm_nodes_t){.comm = c};
  if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter ||
      PMPI_Comm_size(c, &n) != MPI_SUCCESS || PMPI_Comm_group(c, &g) != MPI_SUCCESS)
    return;
  int *in = malloc(2 * (size_t)n * sizeof *in);
  e->local = malloc((size_t)n);
  if (in && e->local) {
    for (int i = 0; i < n; i++)
      in[i] = i;
    PMPI_Group_translate_ranks(g, n, in, hk__prof.world_group, in + n);
    e->size = n;
    for (int i = 0; i < n; i++) {
      int w = in[n + i];
      e->local[i] = w >= 0 && w < hk__prof.size && hk__prof.node_of[w] == hk__prof.node;
      e->spans |= !e->local[i];
    }
  } else {
    free(e->local);
    e->local = NULL;
  }
  free(in);
  PMPI_Group_free(&g);
}

/* 1: rank `peer` of c is on this node, 0: another, -1: unknown; peer -1: the
 * communicator as a whole (1: all its ranks on this node) */
static int locality(MPI_Comm c, int peer)
{
  if (c == MPI_COMM_NULL || !hk__prof.node_of)
    return -1;
  int r = -1;
  pthread_mutex_lock(&lock);
  comm_nodes_t *e = NULL;
  for (int i = 0; i < ncomms && !e; i++)
    if (comms[i].comm == c)
      e = &comms[i];
  /* a handle freed through PMPI_Comm_free (hybridkit's own) and reused for another
   * communicator: relearn when the size differs */
  int n = 0;
  if (e && e->local && (PMPI_Comm_size(c, &n) != MPI_SUCCESS || n != e->size)) {
    free(e->local);
    learn(e, c);
  }
  if (!e) {
    if (ncomms < NCOMMS)
      e = &comms[ncomms++];
    else {
      e = &comms[next_evict];
      next_evict = (next_evict + 1) % NCOMMS;
      free(e->local);
    }
    learn(e, c);
  }
  if (e->local)
    r = peer < 0 ? !e->spans : peer < e->size ? e->local[peer] : -1;
  pthread_mutex_unlock(&lock);
  return r;
}

/* ---------------------------------------------------------------- counting */

static inline int bin_of(long long bytes)
{
  int b = 0;
  while (b < PROF_NBIN - 1 && bytes >= (1LL << b))
    b++;
  return b; /* 0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3 ... */
}

static inline prof_site_t *site_of(prof_thread_t *t, int call, int shape, const void *ret)
{
  uintptr_t h = ((uintptr_t)ret >> 2) * 0x9E3779B97F4A7C15ull + (uintptr_t)call;
  for (unsigned i = 0, k = (unsigned)(h >> 32); i < PROF_NSITES; i++, k++) {
    prof_site_t *s = &t->site[k & (PROF_NSITES - 1)];
    if (s->ret == ret && s->call == call)
      return s;
    if (!s->ret) {
      s->ret = ret;
      s->call = call;
      s->shape = shape;
      return s;
    }
  }
  return NULL;
}

static void account(int call, const void *ret, double dt, shape_t sh)
{
  prof_thread_t *t = mine ? mine : (mine = new_thread());
  int in_par = omp_in_parallel(), tnum = omp_get_thread_num();
  int off_main = !pthread_equal(pthread_self(), main_thread);
  t->mpi += dt;
  if (in_par)
    t->mpi_parallel += dt;
  else {
    t->mpi_outside += dt;
    t->sleeping += dt * (omp_get_max_threads() - 1);
  }
  prof_site_t *s = site_of(t, call, sh.cls, ret);
  if (!s) {
    t->dropped++;
    return;
  }
  s->calls++;
  s->time += dt;
  s->time_outside += in_par ? 0.0 : dt;
  s->calls_parallel += in_par;
  s->calls_off_main += off_main;
  s->threads |= 1ull << (tnum < 63 ? tnum : 63);
  s->bytes += sh.bytes;
  if (sh.cls == S_NONE || sh.cls == S_BYTES)
    return;
  int cls = sh.cls == S_ALLRED ? CLS_ALLREDUCE : sh.cls == S_COLL ? CLS_COLL : CLS_P2P;
  if (sh.cls != S_RECV) { /* a message counted once: by its sender */
    int b = bin_of(sh.bytes);
    t->hist[cls][b][0]++;
    t->hist[cls][b][1] += sh.bytes;
  }
  int where = -1;
  if (cls == CLS_P2P)
    where = sh.peer >= 0 ? locality(sh.comm, sh.peer) : -1;
  else
    where = locality(sh.comm, -1);
  if (where == 1) {
    s->calls_intra++;
    s->bytes_intra += sh.bytes;
  } else if (where == 0) {
    s->calls_inter++;
    s->bytes_inter += sh.bytes;
  }
}

/* hk__tool_<name>: the profile of a call made at site_ (also reached from the Fortran
 * entry points, hk_fortran.c); MPI_<name>: a C caller's */
#define HK_CHECK_CALL(name, params, args)                                                      \
  int hk__tool_##name HK_SITE_PARAMS params                                                    \
  {                                                                                            \
    if (depth++ > 0 || !__atomic_load_n(&hk__prof.active, __ATOMIC_RELAXED)) {                 \
      int rc_ = PMPI_##name args;                                                              \
      depth--;                                                                                 \
      return rc_;                                                                              \
    }                                                                                          \
    shape_t sh_ = SHAPE_##name args;                                                           \
    const void *at_ = hk__tool_site(site_);                                                    \
    double t0_ = hk__prof_now();                                                               \
    int rc_ = PMPI_##name args;                                                                \
    account(CALL_##name, at_, hk__prof_now() - t0_, sh_);                                      \
    depth--;                                                                                   \
    return rc_;                                                                                \
  }                                                                                            \
  HK_PUBLIC int MPI_##name params                                                              \
  {                                                                                            \
    const void *site_ = __builtin_return_address(0);                                           \
    return hk__tool_##name HK_SITE_ARGS args;                                                  \
  }
#include "hk_check_calls.h"
#undef HK_CHECK_CALL

/* CPU seconds of every task of the process (schedstat: nanoseconds on a CPU) */
double hk__prof_task_cpu(int *tasks, int *busy, double wall)
{
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  double sum = 0.0;
  *tasks = *busy = 0;
  while (d && (e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char path[300];
    unsigned long long ns = 0;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    FILE *f = fopen(path, "r");
    if (f && fscanf(f, "%llu", &ns) == 1) {
      double s = 1e-9 * (double)ns;
      sum += s;
      ++*tasks;
      *busy += wall > 0 && s > 0.1 * wall; /* on a CPU a tenth of the run or more */
    }
    if (f)
      fclose(f);
  }
  if (d)
    closedir(d);
  return sum;
}

/* ------------------------------------------------------------ init, finalize */

static int started(int rc, int required, int provided)
{
  if (rc != MPI_SUCCESS)
    return rc;
  hk_nodes_t *nodes = NULL;
  hk_nodes_info_t ni;
  main_thread = pthread_self();
  hk__prof.required = required;
  hk__prof.provided = provided;
  PMPI_Comm_rank(MPI_COMM_WORLD, &hk__prof.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &hk__prof.size);
  PMPI_Comm_group(MPI_COMM_WORLD, &hk__prof.world_group);
  /* an error is agreed by hk_nodes_create: every rank then profiles without nodes */
  if (hk_nodes_create(MPI_COMM_WORLD, &nodes) == 0 && hk_nodes_info(nodes, &ni) == 0) {
    hk__prof.node_of = malloc((size_t)hk__prof.size * sizeof *hk__prof.node_of);
    for (int r = 0; hk__prof.node_of && r < hk__prof.size; r++)
      hk_nodes_node_of(nodes, r, &hk__prof.node_of[r]);
    hk__prof.node = ni.node;
    hk__prof.nnodes = ni.nnodes;
    hk__prof.virtual_nodes = ni.is_virtual;
  }
  hk_nodes_destroy(&nodes);
  int tasks = 0, busy = 0;
  hk__prof.cpu_init = hk__prof_task_cpu(&tasks, &busy, 0.0);
  hk__prof.t_init = hk__prof_now();
  __atomic_store_n(&hk__tool_started, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&hk__prof.active, 1, __ATOMIC_RELEASE);
  return rc;
}

HK_PUBLIC int MPI_Init(int *argc, char ***argv)
{
  return hk__tool_init(PMPI_Init(argc, argv), started);
}

HK_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  return hk__tool_init_thread(PMPI_Init_thread(argc, argv, required, provided), required, provided,
                              started);
}

HK_PUBLIC int MPI_Finalize(void)
{
  int active = __atomic_exchange_n(&hk__prof.active, 0, __ATOMIC_ACQ_REL);
  if (active)
    hk__prof_gather();
  pthread_mutex_lock(&lock);
  for (int i = 0; i < ncomms; i++)
    free(comms[i].local);
  ncomms = 0;
  pthread_mutex_unlock(&lock);
  if (hk__prof.world_group != MPI_GROUP_NULL)
    PMPI_Group_free(&hk__prof.world_group);
  int rc = PMPI_Finalize();
  if (active)
    hk__prof_write();
  return rc;
}
