/* src/core/error.c: error codes, per-thread error messages, MPI error conversion. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "internal/hk_internal.h"

static _Thread_local char hk_errmsg[HK_ERRMSG_MAX];

static const struct {
  int code;
  const char *text;
} hk_error_names[] = {
  {HK_SUCCESS, "success"},
  {HK_ERR_ARG, "invalid argument"},
  {HK_ERR_NOMEM, "out of memory"},
  {HK_ERR_MPI, "MPI call failed"},
  {HK_ERR_THREAD_LEVEL, "MPI thread level too low"},
  {HK_ERR_STATE, "wrong state"},
  {HK_ERR_TOPOLOGY, "topology error"},
  {HK_ERR_NODES, "invalid node grouping"},
  {HK_ERR_BIND, "binding failed"},
  {HK_ERR_IO, "I/O error"},
  {HK_ERR_MASTERONLY, "MASTERONLY violation"},
  {HK_ERR_UNSUPPORTED, "not supported"},
  {HK_ERR_RESOURCES, "not enough resources"},
};

const char *hk_strerror(int err)
{
  for (size_t i = 0; i < sizeof hk_error_names / sizeof hk_error_names[0]; i++)
    if (hk_error_names[i].code == err)
      return hk_error_names[i].text;
  return "unknown error";
}

const char *hk_error_message(void) { return hk_errmsg; }

void hk_error_clear(void) { hk_errmsg[0] = '\0'; }

int hk_error_set(int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(hk_errmsg, sizeof hk_errmsg, fmt, ap);
  va_end(ap);
  return err;
}

void hk__error_set_message(const char *msg)
{
  snprintf(hk_errmsg, sizeof hk_errmsg, "%s", msg ? msg : "");
}

int hk__error_set(int err, const char *file, int line, const char *func, const char *fmt, ...)
{
  char text[HK_ERRMSG_MAX - 128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const char *base = strrchr(file, '/');
  snprintf(hk_errmsg, sizeof hk_errmsg, "%s [%.40s:%d %.60s]", text, base ? base + 1 : file, line,
           func);
  return err;
}

int hk__strlist_vadd(char ***list, int *n, const char *fmt, va_list ap)
{
  char text[512];
  vsnprintf(text, sizeof text, fmt, ap);
  char **grown = realloc(*list, (size_t)(*n + 1) * sizeof *grown);
  if (!grown)
    return HK_ERROR(HK_ERR_NOMEM, "out of memory");
  *list = grown;
  if (!(grown[*n] = strdup(text)))
    return HK_ERROR(HK_ERR_NOMEM, "out of memory");
  (*n)++;
  return HK_SUCCESS;
}

int hk__mpi_error(int mpierr, const char *file, int line, const char *func, const char *expr)
{
  char mpitext[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpierr, mpitext, &len) != MPI_SUCCESS)
    snprintf(mpitext, sizeof mpitext, "MPI error %d", mpierr);
  return hk__error_set(HK_ERR_MPI, file, line, func, "%s failed: %s", expr, mpitext);
}

/* The test hook HK_TEST_ALLOC_FAIL=RANK:FUNC: the first hk_calloc_checked in function FUNC on
 * world rank RANK fails, once per process (tests/test_agree_alloc.c drives every
 * collective constructor through it: one message, no hang). */
static int alloc_fault(const char *func)
{
  static int fired = 0;
  const char *hook = getenv("HK_TEST_ALLOC_FAIL");
  if (fired || !hook || !*hook)
    return 0;
  int rank = -1, n = -1, init = 0;
  if (sscanf(hook, "%d:%n", &rank, &n) != 1 || n < 0 || strcmp(hook + n, func) != 0)
    return 0;
  int me = 0;
  if (MPI_Initialized(&init) == MPI_SUCCESS && init)
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me != rank)
    return 0;
  fired = 1;
  return 1;
}

void *hk_calloc_checked(long long n, size_t size, int *err, const char *file, int line,
                        const char *func)
{
  void *p = NULL;
  int hook = alloc_fault(func);
  if (!hook && n >= 0 && (n == 0 || (unsigned long long)n <= SIZE_MAX / size))
    p = calloc(n > 0 ? (size_t)n : 1, size);
  if (!p)
    *err = hk__error_set(HK_ERR_NOMEM, file, line, func, "out of memory (%lld elements of %zu bytes)%s",
                         n, size, hook ? " (test hook HK_TEST_ALLOC_FAIL)" : "");
  return p;
}
