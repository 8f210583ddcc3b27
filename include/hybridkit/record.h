/* hybridkit/record.h: the one reporter of measurements.
 *
 * A reporter belongs to a program run; it gathers the provenance once (version,
 * git SHA, compiler and flags, MPI library, thread levels, ranks, threads,
 * nodes, hosts, OMP_PLACES/OMP_PROC_BIND, the real binding of every thread,
 * timestamp).  A record is one measurement: parameters and results.  Emitting a
 * record writes, from rank 0, one row of an OSU-style table on stdout and one
 * JSON line to the output file, so the two channels cannot disagree.  The JSON
 * format is python/src/hybridkit/schemas/record.schema.json (schema_version 1).
 *
 *   # hk-topology 0.1.0 (3f2a9c1) Open MPI v4.1.4 ...      <- reporter header
 *   # ranks: 2, threads/rank: 1, nodes: 1                    <- config lines
 *   #     size    time.avg(s)   time.min(s)   time.max(s)  <- header per column set
 *           8   1.234e-06     ...                           <- one row per record
 */
#ifndef HYBRIDKIT_RECORD_H
#define HYBRIDKIT_RECORD_H

#include <stdio.h>
#include <mpi.h>
#include "hybridkit/env.h"
#include "hybridkit/export.h"
#include "hybridkit/timer.h"
#include "hybridkit/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HK_RECORD_SCHEMA_VERSION 1

typedef struct hk_reporter hk_reporter_t;
typedef struct hk_record hk_record_t;

/* How records appear in the table: OSU-style columns, one row per record (for
 * sweeps over sizes), or a list with one field per line (for a program that
 * reports one record, e.g. a mini-app). */
typedef enum hk_table_style { HK_TABLE_COLUMNS = 0, HK_TABLE_LIST = 1 } hk_table_style_t;

typedef struct hk_reporter_desc {
  const char *program;      /* required, e.g. "hk-topology" */
  const char *output;       /* JSON Lines file to append to, NULL for none */
  FILE *table;              /* where rank 0 writes the table; NULL: stdout */
  int no_table;             /* 1: write no table */
  hk_table_style_t table_style;
  const hk_nodes_t *nodes;  /* NULL: the reporter groups the ranks itself */
} hk_reporter_desc_t;

/* hk_reporter_create: gathers provenance and the binding report, opens the
 * output (HK_ERR_IO on every rank if rank 0 cannot), prints the header lines.
 * Collective: comm.  Threads: outside parallel regions.  Needs hk_init.
 * Errors: HK_ERR_ARG (NULL, no program), HK_ERR_STATE (no hk_init), HK_ERR_IO (agreed), HK_ERR_NOMEM, HK_ERR_MPI. */
HK_EXPORT int hk_reporter_create(MPI_Comm comm, const hk_reporter_desc_t *desc,
                                 hk_reporter_t **reporter);
/* What hk_reporter_create gathers over its communicator for the provenance, given
 * instead to a reporter without one (hk_reporter_create_local) by a program that
 * gathered it itself, e.g. a PMPI tool at MPI_Finalize. */
typedef struct hk_provenance_facts {
  const char *mpi_library;          /* MPI_Get_library_version, its first line */
  hk_thread_level_t requested;      /* the thread level the program asked for */
  hk_thread_level_t provided;       /* ... and the one MPI provided */
  int ranks;
  int threads_per_rank;             /* the largest omp_get_max_threads() of the ranks */
  int nodes;
  int virtual_nodes;                /* 1: nodes made up by HK_NODE_SIZE */
  const hk_binding_t *binding;      /* the threads of every rank, ordered by rank; borrowed:
                                       it must outlive the reporter */
  const hk_machine_info_t *machine; /* NULL: this machine */
} hk_provenance_facts_t;

/* hk_reporter_create_local: a reporter without communicator, for a process that writes
 * the records of the whole run alone (a PMPI tool at or after MPI_Finalize): the
 * provenance comes from `facts` and the same writer as hk_reporter_create's builds it;
 * it calls no MPI function and needs no hk_init.  Its records are written by their
 * emit at once (no agreement); hk_record_stats has no ranks to reduce over and fails
 * (HK_ERR_ARG: give the min/avg/max with hk_record_stats_given).  desc->nodes is unused.
 * Collective: local.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG (NULL, no program, no binding or library, ranks < 1), HK_ERR_IO (the
 * output cannot be opened), HK_ERR_NOMEM, HK_ERR_TOPOLOGY (machine NULL and this machine
 * unknown). */
HK_EXPORT int hk_reporter_create_local(const hk_reporter_desc_t *desc,
                                       const hk_provenance_facts_t *facts,
                                       hk_reporter_t **reporter);
/* hk_reporter_destroy: close the output; *reporter = NULL.  Collective: local.
 * Threads: outside parallel regions.  Errors: HK_ERR_IO when closing the output fails (NULL is fine). */
HK_EXPORT int hk_reporter_destroy(hk_reporter_t **reporter);
/* hk_reporter_config: a "# key: value" configuration line in the table (rank 0).
 * Collective: local.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG for NULL arguments. */
HK_EXPORT int hk_reporter_config(hk_reporter_t *reporter, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The binding report gathered at creation (owned by the reporter).
 * Collective: local.  Threads: any thread.  Errors: none (NULL for a NULL reporter); owned by the reporter. */
HK_EXPORT const hk_binding_t *hk_reporter_binding(const hk_reporter_t *reporter);

/* hk_record_create: start a record of `kind` ([a-z][a-z0-9_.-]*).  Collective: local.
 * A record cannot hang a job: after its first local error (a bad field, out of
 * memory) every later field call is a no-op that returns that error, while
 * hk_record_stats still takes part in its reduction on every rank; hk_record_emit
 * returns the first error of any rank, agreed, and then writes nothing.  A program
 * builds a record without testing each call and tests the result of the emit.  When
 * the creation itself fails, *record is still set (to the reporter's failed record)
 * so that the same calls can follow.
 * Threads: outside parallel regions.  Errors: HK_ERR_ARG (a kind not matching the pattern), HK_ERR_NOMEM. */
HK_EXPORT int hk_record_create(hk_reporter_t *reporter, const char *kind, hk_record_t **record);

/* Declared record kinds: each field of a kind declared once, with its type, unit,
 * meaning, how the ranks are aggregated and whether it is a phase of the time per
 * iteration.  The kind's JSON schema is generated from the declaration
 * (hk_kind_schema_write; python/src/hybridkit/schemas/KIND.schema.json), and the Python side reads
 * metrics, units, captions and the time breakdown from it. */
typedef enum hk_field_type {
  HK_FIELD_PARAM_INT = 0, /* params: configuration of the measurement */
  HK_FIELD_PARAM_DOUBLE,
  HK_FIELD_PARAM_STR,
  HK_FIELD_VALUE,         /* results: one number, already global (hk_record_value) */
  HK_FIELD_VALUE_INT,     /* hk_record_value_int */
  HK_FIELD_STATS,         /* results: min/avg/max (hk_record_stats, hk_record_stats_given) */
  HK_FIELD_TYPE_COUNT
} hk_field_type_t;

/* How the ranks' values become the record's */
typedef enum hk_field_ranks {
  HK_RANKS_SAME = 0,      /* the same on every rank (params, global values) */
  HK_RANKS_ROOT,          /* rank 0's value (e.g. a count only rank 0 has) */
  HK_RANKS_MIN_AVG_MAX,   /* reduced over the reporter's ranks (hk_record_stats) */
  HK_RANKS_GIVEN,         /* min/avg/max the program reduced itself (hk_record_stats_given) */
  HK_RANKS_COUNT
} hk_field_ranks_t;

/* Phases of the time per iteration: disjoint parts that add up to it, one of them
 * possibly the rest (the measured time minus the others: fork/join, imbalance) */
typedef enum hk_field_phase {
  HK_PHASE_NO = 0,        /* not a phase */
  HK_PHASE_YES = 1,       /* a measured phase */
  HK_PHASE_REST = 2       /* the remainder (at most one per kind) */
} hk_field_phase_t;

typedef struct hk_field_decl {
  const char *name;
  hk_field_type_t type;
  const char *unit;       /* NULL: none */
  hk_field_ranks_t ranks;
  hk_field_phase_t phase; /* a disjoint phase of the kind's time per iteration */
  int optional;           /* 1: a record may leave it out */
  const char *meaning;    /* one sentence, for the schema and the report's captions */
} hk_field_decl_t;

typedef struct hk_kind_decl {
  const char *kind;       /* [a-z][a-z0-9_.-]* */
  const char *caption;    /* what a record of this kind measures */
  const char *metric;     /* the headline result (NULL: none) */
  const char *better;     /* "higher" or "lower" (with metric) */
  const char *time;       /* the time per iteration the phases add up to (NULL: no phases) */
  const hk_field_decl_t *fields;
  int nfields;
} hk_kind_decl_t;

/* hk_kind_check: a declaration is consistent: valid unique names, a known type and
 * rank aggregation per field, metric and time declared, phases are stats in the unit
 * of the time field, at most one rest.  Collective: local.  Threads: any.  Errors: HK_ERR_ARG. */
HK_EXPORT int hk_kind_check(const hk_kind_decl_t *decl);
/* hk_kind_schema_write: the JSON schema of records of this kind (on top of
 * python/src/hybridkit/schemas/record.schema.json) to `out`.  Collective: local.  Threads: any.
 * Errors: HK_ERR_ARG (hk_kind_check), HK_ERR_NOMEM, HK_ERR_IO. */
HK_EXPORT int hk_kind_schema_write(const hk_kind_decl_t *decl, FILE *out);
/* hk_record_create_declared: a record of a declared kind: every field must be
 * declared with the type of the call (the declared unit is used; a unit given must
 * equal it), and hk_record_emit fails (HK_ERR_ARG) when a field that is not
 * optional is missing.  Collective: local.  Threads: outside parallel regions.
 * Errors: HK_ERR_ARG (hk_kind_check), HK_ERR_NOMEM (a failed record is still set). */
HK_EXPORT int hk_record_create_declared(hk_reporter_t *reporter, const hk_kind_decl_t *decl,
                                        hk_record_t **record);

/* Parameters (the configuration of the measurement).  Collective: local.
 * Threads: outside parallel regions.  Errors: HK_ERR_ARG (NULL, a bad, repeated or
 * undeclared name), HK_ERR_NOMEM, or the record's first error. */
HK_EXPORT int hk_record_param_int(hk_record_t *record, const char *name, long long value);
/* hk_record_param_double: Collective: local.  Threads: outside parallel regions.
 * Errors: as hk_record_param_int. */
HK_EXPORT int hk_record_param_double(hk_record_t *record, const char *name, double value);
/* hk_record_param_str: Collective: local.  Threads: outside parallel regions.
 * Errors: as hk_record_param_int. */
HK_EXPORT int hk_record_param_str(hk_record_t *record, const char *name, const char *value);

/* hk_record_value*: a result that is already global (the same on all ranks, or
 * only rank 0's counts).  unit may be NULL.  Collective: local.
 * Threads: outside parallel regions.  Errors: HK_ERR_ARG (NULL, a bad or repeated name), HK_ERR_NOMEM. */
HK_EXPORT int hk_record_value(hk_record_t *record, const char *name, double value, const char *unit);
/* hk_record_value_int: Collective: local.  Threads: outside parallel regions.
 * Errors: as hk_record_value. */
HK_EXPORT int hk_record_value_int(hk_record_t *record, const char *name, long long value,
                                  const char *unit);
/* hk_record_stats: a per-rank quantity, reduced to min/avg/max over the ranks
 * of the reporter's communicator.  Collective: the reporter's comm.
 * Threads: outside parallel regions.
 * Errors: HK_ERR_ARG (as hk_stats_reduce, agreed; a local reporter: always), HK_ERR_NOMEM,
 * HK_ERR_MPI. */
HK_EXPORT int hk_record_stats(hk_record_t *record, const char *name, double local, const char *unit);
/* hk_record_stats_given: min/avg/max the program reduced itself (e.g. over the
 * two ranks of a ping-pong pair, not over all ranks).  Collective: local.
 * Threads: outside parallel regions.  Errors: as hk_record_value; HK_ERR_ARG for non-finite stats. */
HK_EXPORT int hk_record_stats_given(hk_record_t *record, const char *name, const hk_stats_t *stats,
                                    const char *unit);
/* hk_record_warning: a warning carried by this record (and shown in the table).
 * Collective: local.  Threads: outside parallel regions.  Errors: HK_ERR_ARG for NULL, HK_ERR_NOMEM. */
HK_EXPORT int hk_record_warning(hk_record_t *record, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* hk_record_emit: agrees on the first error of the record over the ranks; without
 * one rank 0 writes the table row and the JSON line.  Every rank frees the record
 * (*record = NULL); a write error on rank 0 is HK_ERR_IO on all.  Returns the agreed
 * error (the record's own on the rank that had it).
 * Collective: the reporter's comm (a local reporter: local, no agreement).
 * Threads: outside parallel regions.
 * Errors: the record's first error on any rank (agreed), HK_ERR_IO (agreed), HK_ERR_MPI. */
HK_EXPORT int hk_record_emit(hk_record_t **record);
/* hk_record_discard: free without writing.  Collective: local.  (Discarding a
 * record instead of emitting it skips the emit's agreement: only where every rank
 * discards.)  Threads: outside parallel regions.  Errors: none (NULL is fine). */
HK_EXPORT void hk_record_discard(hk_record_t **record);

#ifdef __cplusplus
}
#endif
#endif
