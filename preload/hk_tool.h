/* preload/hk_tool.h: what a PMPI tool library (libhybridkit-check.so,
 * libhybridkit-profile.so) shares with the pieces compiled into each of them
 * (hidden, never exported):
 *
 *   hk_fortran.c   Open MPI's Fortran entry points (mpi_send_, mpi_send_f08_, ...)
 *                  that convert the arguments and call the tool's entry below
 *   hk_tool.c      the call site of a call made through an MPI library's own
 *                  wrapper (MPICH's Fortran bindings call the C MPI_*), where a
 *                  site lies (module, offset, symbol) and its source line
 *                  (addr2line), and the one line a tool prints when MPI ran
 *                  without it
 *
 *   C program ---- MPI_Send ---------------\
 *                  (return address)         hk__tool_Send(site, ...) -> PMPI_Send
 *   Fortran ------ mpi_send_ / _f08_ -----/
 *                  (handles, MPI_IN_PLACE, statuses converted; its return address)
 *
 * Each tool defines, for every row of hk_check_calls.h, hk__tool_<name>(site,
 * the row's arguments): its work for one call whose caller returns to `site`,
 * and marks hk__tool_started when its MPI_Init(_thread) has run. */
#ifndef HK_TOOL_H
#define HK_TOOL_H

#include <mpi.h>
#include "hk_interpose.h"

#define HK_TOOL_HIDDEN __attribute__((visibility("hidden")))

/* a row's (parameters) / (arguments) with the call site put in front */
#define HK_SITE_PARAMS(...) (const void *site_, __VA_ARGS__)
#define HK_SITE_ARGS(...) (site_, __VA_ARGS__)

#define HK_CHECK_CALL(name, params, args) HK_TOOL_HIDDEN int hk__tool_##name HK_SITE_PARAMS params;
#include "hk_check_calls.h"
#undef HK_CHECK_CALL

/* "hybridkit-check", "hybridkit-profile": the prefix of the tool's lines */
HK_TOOL_HIDDEN extern const char hk__tool_name[];
/* set by the tool's MPI_Init(_thread) wrapper once MPI is up */
HK_TOOL_HIDDEN extern int hk__tool_started;

/* the call site to report for a wrapped call whose return address is `ret`: `ret`
 * itself, unless it lies in an MPI library (a binding that calls the C MPI_*
 * function, e.g. MPICH's libmpichfort); then the first frame of the stack outside
 * the MPI libraries and this tool (the user's call).  Cheap when `ret` is not in
 * an MPI library (a few comparisons). */
HK_TOOL_HIDDEN const void *hk__tool_site(const void *ret);

/* where a code address lies, position-independent (ranks load modules at different
 * addresses): its module (dladdr), the offset in it, the module's load address, the
 * exported symbol that contains it and the offset from that symbol */
#define HK_TOOL_MODLEN 200
#define HK_TOOL_FUNCLEN 120
typedef struct hk_tool_loc {
  char module[HK_TOOL_MODLEN]; /* "?" when dladdr does not know the address */
  char func[HK_TOOL_FUNCLEN];  /* "" when the symbol is not exported */
  unsigned long long offset, func_offset, base;
} hk_tool_loc_t;

HK_TOOL_HIDDEN void hk__tool_locate(const void *addr, hk_tool_loc_t *loc);

/* the source of the call before a return address, from `addr2line -f -C` on the
 * module (when addr2line is installed and the module has debug info) */
typedef struct hk_tool_src {
  char func[256];  /* the function, "" unknown */
  char file[256];  /* the source file's path as the debug info has it, "" unknown */
  char line[16];   /* its line ("48"; "?" when addr2line knows the file only) */
  char where[300]; /* "file.c:48 (func)", "func (module+0x..)" (no debug info, a
                      static function's name) or "" */
} hk_tool_src_t;

/* fills *src (zeroed first); returns whether anything was found.  Runs addr2line
 * (popen: spawned, not forked) once per call. */
HK_TOOL_HIDDEN int hk__tool_addr2line(const hk_tool_loc_t *loc, hk_tool_src_t *src);

/* text appended to a buffer that never overflows (it stops growing when full): the
 * tools' one-write lines and records */
typedef struct hk_tool_text {
  char *buf;
  size_t cap, used;
} hk_tool_text_t;
HK_TOOL_HIDDEN __attribute__((format(printf, 2, 3))) void hk__tool_add(hk_tool_text_t *t,
                                                                        const char *fmt, ...);

/* the tool's MPI_Init and MPI_Init_thread after the next definition returned rc: its
 * started(rc, level asked, level provided); MPI_Init asks for MPI_THREAD_SINGLE */
static inline int hk__tool_init(int rc, int (*started)(int, int, int))
{
  int provided = MPI_THREAD_SINGLE;
  if (rc == MPI_SUCCESS)
    PMPI_Query_thread(&provided);
  return started(rc, MPI_THREAD_SINGLE, provided);
}

static inline int hk__tool_init_thread(int rc, int required, const int *provided,
                                       int (*started)(int, int, int))
{
  return started(rc, required, rc == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE);
}

#endif
