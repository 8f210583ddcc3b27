/* hybridkit/error.h: error codes.
 *
 * Every hybridkit function returns HK_SUCCESS (0) or a negative HK_ERR_* code;
 * the library never calls exit() or abort().  hk_strerror() names a code,
 * hk_error_message() gives the detail of the last error raised on the calling
 * thread ("what went wrong, with the values involved").
 */
#ifndef HYBRIDKIT_ERROR_H
#define HYBRIDKIT_ERROR_H

#include "hybridkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hk_error {
  HK_SUCCESS = 0,
  HK_ERR_ARG = -1,             /* invalid argument or option value */
  HK_ERR_NOMEM = -2,           /* out of memory */
  HK_ERR_MPI = -3,             /* an MPI call failed */
  HK_ERR_THREAD_LEVEL = -4,    /* the MPI library provides a lower thread level than needed */
  HK_ERR_STATE = -5,           /* called in the wrong state (not initialised, twice, ...) */
  HK_ERR_TOPOLOGY = -6,        /* machine topology could not be loaded or parsed */
  HK_ERR_NODES = -7,           /* invalid node grouping (HK_NODE_SIZE) */
  HK_ERR_BIND = -8,            /* binding threads failed or is impossible */
  HK_ERR_IO = -9,              /* a file could not be opened or written */
  HK_ERR_MASTERONLY = -10,     /* MPI call violating MASTERONLY (HK_CHECK_MASTERONLY=1) */
  HK_ERR_UNSUPPORTED = -11,    /* not supported on this machine or build */
  HK_ERR_RESOURCES = -12       /* not enough cores/PUs for the request */
} hk_error_t;

#define HK_ERR_MIN HK_ERR_RESOURCES  /* the most negative code */

/* HK_DEFAULT: in every option field of a hybridkit struct (hk_allreduce_opts_t,
 * hk_halo_desc_t, hk_cart_desc_t ...), 0 means "the default" (written out, the field's
 * comment says which); a zero-initialised struct is the default configuration. */
#define HK_DEFAULT 0

/* hk_strerror: a static string naming err ("invalid argument", ...);
 * unknown codes give "unknown error".
 * Collective: local.  Threads: any thread.
 * Errors: none (unknown codes give "unknown error"). */
HK_EXPORT const char *hk_strerror(int err);

/* hk_error_message: the message of the last error raised on the calling thread,
 * "" when none.  The string lives until the next error on this thread.
 * Collective: local.  Threads: any thread (per-thread storage).
 * Errors: none. */
HK_EXPORT const char *hk_error_message(void);

/* hk_error_set: set the calling thread's error message (printf format) and
 * return err, so programs can raise their own errors and agree on them with
 * hk_agree like the library's.  Collective: local.  Threads: any thread.
 * Errors: returns err itself. */
HK_EXPORT int hk_error_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* hk_error_clear: forget the calling thread's last error message.
 * Collective: local.  Threads: any thread.
 * Errors: none. */
HK_EXPORT void hk_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
