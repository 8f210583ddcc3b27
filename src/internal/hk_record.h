/* src/internal/hk_record.h: the reporter's and the record's insides, shared by
 * record.c (fields, emit), record_out.c (table and JSON) and record_kind.c
 * (declared kinds).  Not installed. */
#ifndef HK_INTERNAL_RECORD_H
#define HK_INTERNAL_RECORD_H

#include <stdio.h>
#include "hybridkit/record.h"

typedef struct hk__field {
  hk_field_type_t type;
  char name[64];
  char unit[24];
  long long i;
  double d;
  char *s;
  hk_stats_t st;
} hk__field_t;

struct hk_record {
  hk_reporter_t *rep;
  char kind[64];
  const hk_kind_decl_t *decl; /* NULL: an undeclared kind */
  int err;                    /* the first local error; later field calls are no-ops */
  int is_failed;              /* the reporter's failed record: never freed */
  hk__field_t *f;
  int nf, cap;
  char **warn;
  int nwarn;
};

struct hk_reporter {
  MPI_Comm comm;         /* MPI_COMM_NULL: a local reporter (hk_reporter_create_local) */
  int local;             /* 1: no communicator, the emit agrees with nobody */
  int rank;
  FILE *table;   /* NULL: no table */
  hk_table_style_t style;
  FILE *out;     /* JSONL on rank 0, NULL: none */
  char program[64];
  char *provenance;      /* JSON object text, rank 0 */
  hk_binding_t *binding;  /* gathered and owned (NULL for a local reporter) */
  const hk_binding_t *bind; /* the one read: binding, or the local reporter's borrowed one */
  hk_nodes_t *own_nodes;
  char header[2048];     /* the last column header printed */
  struct hk_record failed; /* what hk_record_create hands out when it fails */
  char fail_field[64];   /* test hook HK_TEST_RECORD_FAIL=rank:field (this rank's field) */
};

static inline int hk__field_is_param(hk_field_type_t t) { return t <= HK_FIELD_PARAM_STR; }

int hk__record_valid_kind(const char *kind);
/* the provenance JSON (rep->provenance on rank 0) and the table's header lines, from
 * facts gathered collectively.  Collective: rep->comm. */
int hk__record_provenance(hk_reporter_t *rep, const hk_nodes_t *nodes, int nranks);
/* the provenance JSON and the table's header lines from the facts (rank 0 or a local
 * reporter), the one place both are built.  Collective: local. */
int hk__record_provenance_write(hk_reporter_t *rep, const hk_provenance_facts_t *facts,
                                const hk_machine_info_t *mi);
/* the declaration of `name` among the params (param 1) or the results (0) of decl,
 * NULL when not declared */
const hk_field_decl_t *hk__kind_field(const hk_kind_decl_t *decl, const char *name, int param);
void hk__record_table_list(const hk_record_t *r, FILE *t);
void hk__record_table_row(hk_record_t *r, FILE *t);
char *hk__record_json(const hk_record_t *r); /* NULL: out of memory */

#endif
