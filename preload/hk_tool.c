/* preload/hk_tool.c: compiled into each PMPI tool library (hk_tool.h).
 *
 * The call site.  A wrapper's return address is the user's call when the program
 * calls MPI_* itself (C, or Open MPI's Fortran through hk_fortran.c).  MPICH's
 * Fortran bindings (libmpichfort: mpif.h, use mpi, use mpi_f08) call the C MPI_*
 * functions, so the return address lies in the binding; the site is then the
 * first frame of the stack (backtrace) outside the MPI libraries (objects named
 * libmpi*: libmpi, libmpich, libmpichfort, libmpi_mpifh, libmpi_usempif08) and
 * outside this tool.  Their text ranges are read once (dl_iterate_phdr).
 *
 * Where a site lies: its module and offset (dladdr), and its source line from
 * addr2line when the module has debug info, for both tools' reports (the profiler
 * at MPI_Finalize, the checker when it first sees a violation).
 *
 * MPI without the tool.  When MPI was initialised in this process but the tool's
 * MPI_Init(_thread) never ran (a binding whose calls go to PMPI_ directly, a
 * statically linked MPI), the tool saw nothing: at exit rank 0 prints one line
 * saying so and naming the Fortran bindings loaded, instead of silence. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_tool.h"
#include "../src/internal/hk_launcher.h"

int hk__tool_started;

#define NRANGES 32
typedef struct range {
  uintptr_t lo, hi;
  int self; /* this tool's own text, else an MPI library's */
} range_t;

static range_t ranges[NRANGES];
static int nranges, any_mpi;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *base_name(const char *path)
{
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *self_base)
{
  (void)size;
  int self = (void *)info->dlpi_addr == self_base;
  int mpi = info->dlpi_name && !strncmp(base_name(info->dlpi_name), "libmpi", 6);
  for (int i = 0; (self || mpi) && i < info->dlpi_phnum && nranges < NRANGES; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type == PT_LOAD && (p->p_flags & PF_X))
      ranges[nranges++] = (range_t){info->dlpi_addr + p->p_vaddr,
                                    info->dlpi_addr + p->p_vaddr + p->p_memsz, self};
  }
  any_mpi |= mpi;
  return 0;
}

static void read_ranges(void)
{
  Dl_info me;
  void *self_base = dladdr((void *)(uintptr_t)read_ranges, &me) ? me.dli_fbase : NULL;
  dl_iterate_phdr(add_object, self_base);
  void *warm[2];
  backtrace(warm, 2); /* loads the unwinder now, not inside a wrapped call */
}

/* 0: outside, 1: an MPI library, 2: this tool */
static int where(const void *a)
{
  for (int i = 0; i < nranges; i++)
    if ((uintptr_t)a >= ranges[i].lo && (uintptr_t)a < ranges[i].hi)
      return ranges[i].self ? 2 : 1;
  return 0;
}

const void *hk__tool_site(const void *ret)
{
  pthread_once(&once, read_ranges);
  if (!any_mpi || where(ret) != 1)
    return ret;
  void *frame[48];
  int n = backtrace(frame, 48);
  for (int i = 0; i < n; i++)
    if (!where(frame[i]))
      return frame[i];
  return ret;
}

void hk__tool_locate(const void *addr, hk_tool_loc_t *loc)
{
  Dl_info di;
  memset(loc, 0, sizeof *loc);
  if (addr && dladdr(addr, &di) && di.dli_fname) {
    snprintf(loc->module, sizeof loc->module, "%s", di.dli_fname);
    loc->offset = (unsigned long long)((uintptr_t)addr - (uintptr_t)di.dli_fbase);
    loc->base = (unsigned long long)(uintptr_t)di.dli_fbase;
    if (di.dli_sname) {
      snprintf(loc->func, sizeof loc->func, "%s", di.dli_sname);
      loc->func_offset = (unsigned long long)((uintptr_t)addr - (uintptr_t)di.dli_saddr);
    }
  } else {
    snprintf(loc->module, sizeof loc->module, "?");
    loc->offset = (unsigned long long)(uintptr_t)addr;
  }
}

/* whether the module is a fixed-address (non-PIE) executable: addr2line then wants
 * the absolute address */
static int fixed_address(const char *module)
{
  FILE *f = fopen(module, "rb");
  Elf64_Ehdr h;
  int fixed = f && fread(&h, sizeof h, 1, f) == 1 && h.e_type == ET_EXEC;
  if (f)
    fclose(f);
  return fixed;
}

int hk__tool_addr2line(const hk_tool_loc_t *loc, hk_tool_src_t *src)
{
  memset(src, 0, sizeof *src);
  if (!loc->module[0] || loc->module[0] == '?' || strchr(loc->module, '\''))
    return 0;
  char cmd[600], func[256] = "", line[256] = "";
  unsigned long long addr = loc->offset - 1 + (fixed_address(loc->module) ? loc->base : 0);
  snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' 0x%llx 2>/dev/null", loc->module, addr);
  FILE *p = popen(cmd, "r");
  if (!p)
    return 0;
  if (fgets(func, sizeof func, p) && fgets(line, sizeof line, p)) {
    func[strcspn(func, "\n")] = '\0';
    line[strcspn(line, "\n")] = '\0';
    char *disc = strstr(line, " (discriminator");
    if (disc)
      *disc = '\0';
    const char *file = base_name(line); /* "file.c:48" */
    int known_file = file[0] && file[0] != ':' && strncmp(file, "??", 2) != 0;
    int known_func = func[0] && strcmp(func, "??") != 0;
    if (known_func)
      snprintf(src->func, sizeof src->func, "%s", func);
    if (known_file) {
      char *colon = strrchr(line, ':');
      snprintf(src->line, sizeof src->line, "%s", colon ? colon + 1 : "?");
      if (colon)
        *colon = '\0';
      snprintf(src->file, sizeof src->file, "%s", line);
      if (colon)
        *colon = ':';
      snprintf(src->where, sizeof src->where, "%s (%s)", file, known_func ? func : "?");
    } else if (known_func) { /* a static function's name from the symbol table, no line */
      snprintf(src->where, sizeof src->where, "%s (%s+0x%llx)", func, base_name(loc->module),
               loc->offset);
    }
  }
  pclose(p);
  return src->where[0] != '\0';
}

/* "mpi_f08 (libmpi_usempif08), ..." of the loaded Fortran bindings */
typedef struct bindings {
  char text[256];
  size_t used;
} bindings_t;

static int add_binding(struct dl_phdr_info *info, size_t size, void *out)
{
  (void)size;
  static const char *const known[][2] = {
      {"libmpi_usempif08", "use mpi_f08"},
      {"libmpi_usempi", "use mpi"},
      {"libmpi_mpifh", "mpif.h / use mpi"},
      {"libmpichfort", "mpif.h / use mpi / use mpi_f08"},
  };
  bindings_t *b = out;
  const char *name = info->dlpi_name ? base_name(info->dlpi_name) : "";
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (!strncmp(name, known[k][0], strlen(known[k][0])) && b->used < sizeof b->text) {
      int w = snprintf(b->text + b->used, sizeof b->text - b->used, "%s%s (%s)",
                       b->used ? ", " : "", known[k][1], known[k][0]);
      b->used += w > 0 ? (size_t)w : 0;
      break;
    }
  return 0;
}

__attribute__((destructor)) static void unseen(void)
{
  int up = 0;
  if (__atomic_load_n(&hk__tool_started, __ATOMIC_ACQUIRE) || PMPI_Initialized(&up) != MPI_SUCCESS ||
      !up || hk__launcher_rank() > 0)
    return;
#if defined(OPEN_MPI)
  const char *mpi = "Open MPI";
#elif defined(MPICH_VERSION)
  const char *mpi = "MPICH";
#else
  const char *mpi = "this MPI";
#endif
  bindings_t b = {.used = 0};
  dl_iterate_phdr(add_binding, &b);
  char line[512];
  int n = snprintf(line, sizeof line,
                   "%s: MPI ran but MPI_Init never reached %s: the program's MPI calls were not "
                   "intercepted (%s; %s%s)\n", hk__tool_name, hk__tool_name, mpi,
                   b.used ? "Fortran bindings loaded: " : "no Fortran binding loaded: the "
                   "program calls PMPI_* itself, or MPI is linked statically",
                   b.used ? b.text : "");
  if (n > 0) {
    ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)w;
  }
}

void hk__tool_add(hk_tool_text_t *t, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(t->buf + t->used, t->cap - t->used, fmt, ap);
  va_end(ap);
  if (w > 0)
    t->used = (size_t)w < t->cap - t->used ? t->used + (size_t)w : t->cap - 1;
}
