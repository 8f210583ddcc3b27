/* hybridkit/try.h: the error rule as macros, for the library, its apps and programs
 * that use it (one definition: src/internal/hk_internal.h adds only HK_ERROR and
 * HK_MPI_TRY, which need the library's private message helpers).
 *
 * A function has one `cleanup:` label and an `int err = HK_SUCCESS`:
 *
 *   HK_TRY(err, hk_something(...));        -> goto cleanup on failure (local steps,
 *                                             argument checks before a collective
 *                                             function's first collective, or a call
 *                                             of a collective function that agrees)
 *   HK_ALLOC_TRY(err, buf, n);             -> the same for an allocation: in local
 *                                             functions only (or after the last
 *                                             collective): it fails on one rank alone
 * Between two collectives of a collective function no rank may jump alone (the others
 * would wait forever in the next collective).  Local steps there record the error and
 * go on, a step after a failed one is skipped, and the agreement jumps on every rank
 * alike:
 *
 *   HK_ALLOC_LOCAL(err, buf, n);           -> err set, no jump
 *   HK_LOCAL(err, build_part(buf, n));     -> skipped when err is set
 *   HK_AGREE(err, comm);                   -> all ranks jump, or none (hk_agree)
 *
 * tools/lint-agree.py fails on HK_TRY / HK_ALLOC_TRY between two collectives and on
 * HK_ALLOC_TRY before the first; tests/mpi/test_agree_alloc.c fails one rank's allocation
 * in every collective constructor (HK_TEST_ALLOC_FAIL, below).  docs/design.md "The error
 * rule".
 */
#ifndef HYBRIDKIT_TRY_H
#define HYBRIDKIT_TRY_H

#include <stddef.h>
#include "hybridkit/error.h"
#include "hybridkit/env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* hk_calloc_checked: calloc of n elements of size bytes, zeroed.  n < 0, a product
 * that overflows or no memory: NULL, and *err = HK_ERR_NOMEM with the message (naming
 * file:line func).  The test hook HK_TEST_ALLOC_FAIL=RANK:FUNC makes the first
 * allocation in function FUNC on world rank RANK fail (once per process).
 * Collective: local.  Threads: any thread.  Errors: HK_ERR_NOMEM in *err. */
HK_EXPORT void *hk_calloc_checked(long long n, size_t size, int *err, const char *file, int line,
                                  const char *func);

#define HK_TRY(errvar, expr)            \
  do {                                  \
    (errvar) = (expr);                  \
    if ((errvar) != HK_SUCCESS)         \
      goto cleanup;                     \
  } while (0)

#define HK_LOCAL(errvar, expr)          \
  do {                                  \
    if ((errvar) == HK_SUCCESS)         \
      (errvar) = (expr);                \
  } while (0)

#define HK_AGREE(errvar, comm)                  \
  do {                                          \
    (errvar) = hk_agree((comm), (errvar));      \
    if ((errvar) != HK_SUCCESS)                 \
      goto cleanup;                             \
  } while (0)

/* (ptr) = n zeroed elements; on failure err is set and ptr is NULL */
#define HK_ALLOC_LOCAL(errvar, ptr, n)                                                  \
  do {                                                                                  \
    if ((errvar) == HK_SUCCESS)                                                         \
      (ptr) = hk_calloc_checked((long long)(n), sizeof(*(ptr)), &(errvar), __FILE__,    \
                                __LINE__, __func__);                                    \
  } while (0)

/* HK_ALLOC_LOCAL, then goto cleanup on failure */
#define HK_ALLOC_TRY(errvar, ptr, n)            \
  do {                                          \
    HK_ALLOC_LOCAL(errvar, ptr, n);             \
    if ((errvar) != HK_SUCCESS)                 \
      goto cleanup;                             \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif
