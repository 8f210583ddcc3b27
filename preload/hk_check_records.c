/* preload/hk_check_records.c: the JSON Lines records of libhybridkit-check.so
 * (HK_CHECK_OUTPUT, docs/check.md): check.first when a rank first breaks a (call, rule),
 * check.violation per (call, rule) and check.summary at MPI_Finalize.  Each record is
 * built in a buffer and appended with one write (ranks and threads append to one file).
 * Written by hand: the checker has no dependency on libhybridkit. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "hk_check_state.h"
#include "hk_interpose.h"

/* "key":"value", escaped */
static void jstr(hk_tool_text_t *j, const char *key, const char *v)
{
  hk__tool_add(j, "\"%s\":\"", key);
  for (; v && *v && j->used < j->cap - 8; v++) {
    unsigned char c = (unsigned char)*v;
    if (c == '"' || c == '\\')
      hk__tool_add(j, "\\%c", c);
    else if (c < 0x20)
      hk__tool_add(j, "\\u%04x", c);
    else
      j->buf[j->used++] = (char)c;
  }
  j->buf[j->used] = '\0';
  hk__tool_add(j, "\"");
}

/* "rank":..,"thread":{..},"site":{..} of a first violation */
static void jfirst(hk_tool_text_t *j, const first_t *f)
{
  char symbol[HK_TOOL_FUNCLEN + 24] = "";
  if (f->loc.func[0])
    snprintf(symbol, sizeof symbol, "%s+0x%llx", f->loc.func, f->loc.func_offset);
  hk__tool_add(j, "\"rank\":%d,\"thread\":{\"tid\":%ld,\"omp_thread\":%d,\"omp_threads\":%d,"
       "\"parallel_level\":%d},\"site\":{", f->rank, f->tid, f->omp_thread, f->omp_threads,
       f->omp_level);
  jstr(j, "where", f->src.where);
  hk__tool_add(j, ",");
  jstr(j, "file", f->src.file);
  hk__tool_add(j, ",");
  jstr(j, "line", f->src.line);
  hk__tool_add(j, ",");
  jstr(j, "function", f->src.func);
  hk__tool_add(j, ",");
  jstr(j, "module", f->loc.module);
  hk__tool_add(j, ",\"offset\":\"0x%llx\",", f->loc.offset);
  jstr(j, "symbol", symbol);
  hk__tool_add(j, "}");
}

static void jhead(hk_tool_text_t *j, const char *kind, int call, int why)
{
  hk__tool_add(j, "{\"kind\":\"%s\",\"format\":1,\"function\":\"%s\",\"level\":\"%s\",\"asked\":\"%s\","
       "\"rule\":\"%s\",", kind, call_names[call], hk__mpi_level_long(ck.level),
       hk__mpi_level_long(ck.required), why_text[why]);
}

/* appends the record (O_APPEND, one write: ranks and threads append to one file) */
static void jwrite(hk_tool_text_t *j)
{
  if (j->used >= j->cap - 2)
    return; /* cut: no half record */
  j->buf[j->used++] = '\n';
  int fd = open(ck.output, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "hybridkit-check: error: cannot open %s\n", ck.output);
    return;
  }
  ssize_t w = write(fd, j->buf, j->used);
  if (w != (ssize_t)j->used)
    fprintf(stderr, "hybridkit-check: error: cannot write %s\n", ck.output);
  close(fd);
}

void hk__check_first_record(const first_t *f, int aborting)
{
  char b[4096];
  hk_tool_text_t j = {.buf = b, .cap = sizeof b, .used = 0};
  jhead(&j, "check.first", f->call, f->why);
  jfirst(&j, f);
  hk__tool_add(&j, ",\"abort\":%s}", aborting ? "true" : "false");
  jwrite(&j);
}

#define NV (NCALLS * NWHY) /* (call, rule) pairs, flat: call * NWHY + why */

void hk__check_records(long long checked, long long total)
{
  int mine[2] = {ck.output[0] != 0, 0}, all[2] = {0, 0};
  long long *per_rank = NULL;
  int *nfirst = NULL, *displs = NULL;
  first_t *firsts = NULL;
  if (ck.rank == 0) {
    per_rank = calloc((size_t)ck.size * NV, sizeof *per_rank);
    nfirst = calloc((size_t)ck.size, sizeof *nfirst);
    displs = calloc((size_t)ck.size, sizeof *displs);
    firsts = calloc(NV, sizeof *firsts);
    mine[1] = !(per_rank && nfirst && displs && firsts);
  }
  PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!all[0] || all[1])
    goto done;
  long long counts[NV];
  int low[NV], lowest[NV], n = 0;
  first_t *own = calloc(NV, sizeof *own);
  for (int v = 0; v < NV; v++) {
    counts[v] = __atomic_load_n(&ck.count[v / NWHY][v % NWHY], __ATOMIC_RELAXED);
    low[v] = counts[v] > 0 ? ck.rank : INT_MAX;
  }
  PMPI_Allreduce(low, lowest, NV, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int v = 0; v < NV && own; v++)
    if (lowest[v] == ck.rank)
      own[n++] = ck.first[v / NWHY][v % NWHY];
  PMPI_Gather(counts, NV, MPI_LONG_LONG, per_rank, NV, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  int bytes = n * (int)sizeof(first_t);
  PMPI_Gather(&bytes, 1, MPI_INT, nfirst, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; ck.rank == 0 && r < ck.size; r++)
    displs[r] = displs[r - 1] + nfirst[r - 1];
  PMPI_Gatherv(own, bytes, MPI_BYTE, firsts, nfirst, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
  free(own);
  if (ck.rank != 0 || !ck.output[0])
    goto done;
  int got = (displs[ck.size - 1] + nfirst[ck.size - 1]) / (int)sizeof(first_t);
  hk_tool_text_t j = {.cap = 4096 + 32 * (size_t)ck.size};
  j.buf = malloc(j.cap);
  for (int k = 0; k < got && j.buf; k++) {
    const first_t *f = &firsts[k];
    int v = f->call * NWHY + f->why;
    long long sum = 0;
    j.used = 0;
    jhead(&j, "check.violation", f->call, f->why);
    hk__tool_add(&j, "\"ranks\":{");
    for (int r = 0; r < ck.size; r++)
      if (per_rank[(size_t)r * NV + v]) {
        hk__tool_add(&j, "%s\"%d\":%lld", sum ? "," : "", r, per_rank[(size_t)r * NV + v]);
        sum += per_rank[(size_t)r * NV + v];
      }
    hk__tool_add(&j, "},\"count\":%lld,\"first\":{", sum);
    jfirst(&j, f);
    hk__tool_add(&j, "}}");
    jwrite(&j);
  }
  if (j.buf) {
    j.used = 0;
    hk__tool_add(&j, "{\"kind\":\"check.summary\",\"format\":1,\"ranks\":%d,\"threads\":%d,"
         "\"level\":\"%s\",\"asked\":\"%s\",\"provided\":\"%s\",\"calls\":%lld,"
         "\"violations\":%lld}", ck.size, omp_get_max_threads(), hk__mpi_level_long(ck.level),
         hk__mpi_level_long(ck.required), hk__mpi_level_long(ck.provided), checked, total);
    jwrite(&j);
  }
  free(j.buf);
done:
  free(per_rank);
  free(nfirst);
  free(displs);
  free(firsts);
}

