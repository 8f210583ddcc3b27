/* tools/hk-kinds.c: writes the JSON schema of every declared record kind
 * (hk_kind_schema_write) to DIR/KIND.schema.json.  Run at build time (the target
 * kind_schemas writes build/schema/kinds/); ctest compares the result with the committed
 * python/src/hybridkit/schemas/, which the Python front end reads.  No MPI needed.
 *
 *   hk-kinds DIR        write the schemas
 *   hk-kinds --list     print the kinds
 */
#include <stdio.h>
#include <string.h>
#include "hybridkit.h"
#include "bench_kinds.h"
#include "dsm_kinds.h"
#include "hk_profile_kinds.h"
#include "jacobi_kinds.h"
#include "mc_kinds.h"
#include "mz_kinds.h"
#include "spmv_kinds.h"
#include "topology_kinds.h"

static const hk_kind_decl_t *const kinds[] = {&jac_kind_run, &jac_kind_exchange, &mz_kind, &mc_kind,
                                               &spmv_kind, &spmv_kind_cg, &dsm_heat_kind, &hk_profile_kind,
                                               &hk_profile_site_kind, &hk_profile_size_kind,
                                               &bench_kind_pingpong, &bench_kind_pingpong_baseline,
                                               &bench_kind_barrier, &bench_kind_beff,
                                               &bench_kind_beff_pattern, &bench_kind_beff_summary,
                                               &bench_kind_beff_hybrid, &bench_kind_orthogonal,
                                               &bench_kind_multipath, &bench_kind_threads_pingpong,
                                               &bench_kind_allreduce, &bench_kind_overlap,
                                               &bench_kind_halo, &bench_kind_collparams, &bench_kind_coll,
                                               &topology_kind_binding};

/* DIR/KIND.schema.json */
static int write_schema(const hk_kind_decl_t *k, const char *dir)
{
  int err = HK_SUCCESS;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.schema.json", dir, k->kind);
  FILE *f = fopen(path, "w");
  if (!f)
    return hk_error_set(HK_ERR_IO, "cannot open %s", path);
  HK_LOCAL(err, hk_kind_schema_write(k, f));
  if (fclose(f) != 0)
    HK_LOCAL(err, hk_error_set(HK_ERR_IO, "cannot write %s", path));
  return err;
}

int main(int argc, char **argv)
{
  int n = (int)(sizeof kinds / sizeof kinds[0]);
  if (argc != 2 || !strcmp(argv[1], "--help")) {
    fprintf(argc == 2 ? stdout : stderr, "usage: hk-kinds DIR | --list\n");
    return argc == 2 ? 0 : 2;
  }
  for (int i = 0; i < n; i++) {
    if (!strcmp(argv[1], "--list"))
      printf("%s\n", kinds[i]->kind);
    else if (write_schema(kinds[i], argv[1]) != HK_SUCCESS) {
      fprintf(stderr, "hk-kinds: %s: %s\n", kinds[i]->kind, hk_error_message());
      return 1;
    }
  }
  return 0;
}
