/* src/topo/machine.c: machine descriptions on hwloc (real, synthetic, XML), the
 * tree printout, and thread placement by policy inside a cpuset. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "internal/hk_internal.h"

static hk_machine_t *hk_real; /* the real machine, loaded on first use */

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* PUs of a synthetic description: the product of the arities ("type:N" or "N" per
 * level; attributes in parentheses skipped), saturated at LLONG_MAX; 0 when a level
 * has no arity hwloc could accept (hwloc then gives the parse error) */
static long long synthetic_pus(const char *desc)
{
  long long pus = 1;
  const char *p = desc;
  while (*p) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p)
      break;
    const char *tok = p, *colon = NULL;
    int depth = 0;
    for (; *p && (depth || (*p != ' ' && *p != '\t')); p++) {
      depth += *p == '(';
      depth -= *p == ')' && depth > 0;
      if (*p == ':' && !depth && !colon)
        colon = p;
    }
    const char *num = colon ? colon + 1 : tok;
    if (*num < '0' || *num > '9')
      return 0;
    errno = 0;
    long long n = strtoll(num, NULL, 10);
    if (errno || n < 1)
      return 0;
    pus = pus > LLONG_MAX / n ? LLONG_MAX : pus * n;
  }
  return pus;
}

static int load(const char *desc, hk_machine_t **machine)
{
  int err = HK_SUCCESS;
  hk_machine_t *m = NULL;
  struct stat st;
  HK_ALLOC_TRY(err, m, 1);
  if (hwloc_topology_init(&m->topo) != 0) {
    m->topo = NULL;
    err = HK_ERROR(HK_ERR_TOPOLOGY, "hwloc_topology_init failed");
    goto cleanup;
  }
  if (!desc || !*desc) {
    snprintf(m->source, sizeof m->source, "this machine");
    m->this_system = 1;
  } else if (stat(desc, &st) == 0 || ends_with(desc, ".xml")) {
    if (stat(desc, &st) == 0 && !S_ISREG(st.st_mode)) {
      err = HK_ERROR(HK_ERR_TOPOLOGY, "hwloc XML topology '%s' is not a regular file", desc);
      goto cleanup;
    }
    if (hwloc_topology_set_xml(m->topo, desc) != 0) {
      err = HK_ERROR(HK_ERR_TOPOLOGY, "cannot read hwloc XML topology '%s': %s", desc,
                     strerror(errno));
      goto cleanup;
    }
    snprintf(m->source, sizeof m->source, "xml:%s", desc);
  } else {
    long long pus = synthetic_pus(desc);
    if (pus > HK_SYNTHETIC_MAX_PUS) {
      err = HK_ERROR(HK_ERR_TOPOLOGY,
                     "synthetic topology '%s' has %lld PUs, more than the %d hybridkit builds",
                     desc, pus, HK_SYNTHETIC_MAX_PUS);
      goto cleanup;
    }
    if (hwloc_topology_set_synthetic(m->topo, desc) != 0) {
      err = HK_ERROR(HK_ERR_TOPOLOGY,
                     "synthetic topology '%s' does not parse (hwloc synthetic syntax: levels "
                     "from the top down to pu, e.g. \"pack:2 numa:2 core:4 pu:2\")",
                     desc);
      goto cleanup;
    }
    snprintf(m->source, sizeof m->source, "synthetic:%s", desc);
  }
  if (hwloc_topology_load(m->topo) != 0) {
    err = HK_ERROR(HK_ERR_TOPOLOGY, "hwloc could not load topology '%s': %s", m->source,
                   strerror(errno));
    goto cleanup;
  }
  if (hwloc_get_nbobjs_by_type(m->topo, HWLOC_OBJ_CORE) < 1) {
    err = HK_ERROR(HK_ERR_TOPOLOGY, "topology '%s' has no cores", m->source);
    goto cleanup;
  }
  *machine = m;
  return HK_SUCCESS;
cleanup:
  hk_machine_destroy(&m);
  return err;
}

int hk_machine_load(const char *desc, hk_machine_t **machine)
{
  if (!machine)
    return HK_ERROR(HK_ERR_ARG, "machine is NULL");
  *machine = NULL;
  if (!desc || !*desc)
    desc = getenv("HK_TOPOLOGY");
  return load(desc, machine);
}

void hk_machine_destroy(hk_machine_t **machine)
{
  if (!machine || !*machine)
    return;
  if ((*machine)->topo)
    hwloc_topology_destroy((*machine)->topo);
  free(*machine);
  *machine = NULL;
}

int hk__real_machine(hk_machine_t **machine)
{
  if (!hk_real) {
    int err = load(NULL, &hk_real);
    if (err != HK_SUCCESS)
      return err;
  }
  *machine = hk_real;
  return HK_SUCCESS;
}

void hk__real_machine_free(void) { hk_machine_destroy(&hk_real); }

int hk_machine_this(const hk_machine_t **machine)
{
  hk_machine_t *m = NULL;
  if (!machine)
    return hk_error_set(HK_ERR_ARG, "hk_machine_this: machine is NULL");
  int err = hk__real_machine(&m);
  *machine = err == HK_SUCCESS ? m : NULL;
  return err;
}

int hk_machine_is_this_system(const hk_machine_t *machine, int *flag)
{
  if (!machine || !flag)
    return HK_ERROR(HK_ERR_ARG, "machine and flag must not be NULL");
  *flag = machine->this_system;
  return HK_SUCCESS;
}

int hk_machine_info(const hk_machine_t *machine, hk_machine_info_t *info)
{
  if (!machine || !info)
    return HK_ERROR(HK_ERR_ARG, "machine and info must not be NULL");
  hwloc_topology_t t = machine->topo;
  memset(info, 0, sizeof *info);
  info->source = machine->source;
  info->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  info->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  info->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  info->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  static const hwloc_obj_type_t levels[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                            HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
  for (int i = 0; i < HK_MAX_CACHE_LEVELS; i++) {
    int n = hwloc_get_nbobjs_by_type(t, levels[i]);
    if (n < 1)
      continue;
    hwloc_obj_t c = hwloc_get_obj_by_type(t, levels[i], 0);
    int k = info->cache_levels++;
    info->cache[k].level = i + 1;
    info->cache[k].count = n;
    info->cache[k].size_bytes = c->attr ? (long long)c->attr->cache.size : 0;
  }
  return HK_SUCCESS;
}

static void print_obj(hwloc_topology_t t, hwloc_obj_t o, int indent, FILE *out)
{
  char type[64], attr[256];
  hwloc_obj_type_snprintf(type, sizeof type, o, 0);
  hwloc_obj_attr_snprintf(attr, sizeof attr, o, " ", 0);
  /* a core's PUs on the core's line keeps the tree readable */
  if (o->type == HWLOC_OBJ_CORE) {
    char pus[128];
    hwloc_bitmap_list_snprintf(pus, sizeof pus, o->cpuset);
    fprintf(out, "%*s%s L#%u (P#%u)  PUs P#%s\n", indent, "", type, o->logical_index,
            o->os_index, pus);
    return;
  }
  if (o->type == HWLOC_OBJ_PU || o->type == HWLOC_OBJ_NUMANODE || o->type == HWLOC_OBJ_PACKAGE)
    fprintf(out, "%*s%s L#%u (P#%u%s%s)\n", indent, "", type, o->logical_index, o->os_index,
            *attr ? " " : "", attr);
  else
    fprintf(out, "%*s%s%s%s%s\n", indent, "", type, *attr ? " (" : "", attr, *attr ? ")" : "");
  for (hwloc_obj_t c = o->memory_first_child; c; c = c->next_sibling)
    print_obj(t, c, indent + 2, out);
  for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling)
    print_obj(t, c, indent + 2, out);
}

/* like likwid-topology: the CPU model, the PUs that share each cache, the NUMA
 * distances (when hwloc has them: real machines and XML with a distance matrix) */
static void print_details(hwloc_topology_t t, FILE *out)
{
  hwloc_obj_t pack = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
  const char *model = pack ? hwloc_obj_get_info_by_name(pack, "CPUModel") : NULL;
  if (!model)
    model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "CPUModel");
  fprintf(out, "# CPU model: %s\n", model ? model : "unknown (not in this topology)");
  int depth = hwloc_topology_get_depth(t);
  for (int d = depth - 1; d >= 0; d--) {
    hwloc_obj_t o = hwloc_get_obj_by_depth(t, d, 0);
    if (!o || !hwloc_obj_type_is_cache(o->type))
      continue;
    char type[32];
    hwloc_obj_type_snprintf(type, sizeof type, o, 0);
    fprintf(out, "# %s %llu KiB, PUs sharing one:", type,
            o->attr ? (unsigned long long)o->attr->cache.size / 1024 : 0ULL);
    unsigned n = (unsigned)hwloc_get_nbobjs_by_depth(t, d);
    for (unsigned i = 0; i < n; i++) {
      char pus[96];
      hwloc_bitmap_list_snprintf(pus, sizeof pus, hwloc_get_obj_by_depth(t, d, i)->cpuset);
      if (i == 8 && n > 9) {
        fprintf(out, " ... (%u in all)", n);
        break;
      }
      fprintf(out, "%s%s", i ? " | " : " ", pus);
    }
    fprintf(out, "\n");
  }
  struct hwloc_distances_s *dist = NULL;
  unsigned nr = 1;
  if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &dist, HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0) {
    fprintf(out, "# NUMA distances: not known to hwloc\n");
    return;
  }
  fprintf(out, "# NUMA distances (relative latency, hwloc):\n#      ");
  for (unsigned j = 0; j < dist->nbobjs; j++)
    fprintf(out, " %5u", dist->objs[j]->logical_index);
  fprintf(out, "\n");
  for (unsigned i = 0; i < dist->nbobjs; i++) {
    fprintf(out, "# %5u", dist->objs[i]->logical_index);
    for (unsigned j = 0; j < dist->nbobjs; j++)
      fprintf(out, " %5llu", (unsigned long long)dist->values[i * dist->nbobjs + j]);
    fprintf(out, "\n");
  }
  hwloc_distances_release(t, dist);
}

int hk_machine_print(const hk_machine_t *machine, FILE *out)
{
  hk_machine_info_t info;
  int err = hk_machine_info(machine, &info);
  if (err != HK_SUCCESS)
    return err;
  fprintf(out, "# machine: %s: %d package(s), %d NUMA node(s), %d core(s), %d PU(s)", info.source,
          info.packages, info.numa_nodes, info.cores, info.pus);
  for (int i = 0; i < info.cache_levels; i++)
    fprintf(out, ", %d x L%d %lld KiB", info.cache[i].count, info.cache[i].level,
            info.cache[i].size_bytes / 1024);
  fprintf(out, "\n");
  print_obj(machine->topo, hwloc_get_root_obj(machine->topo), 0, out);
  print_details(machine->topo, out);
  return HK_SUCCESS;
}

int hk__cores_in(hwloc_topology_t topo, hwloc_const_cpuset_t set, hwloc_obj_t **cores, int *ncores)
{
  int err = HK_SUCCESS, n = 0;
  hwloc_obj_t *c = NULL;
  int total = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  HK_ALLOC_TRY(err, c, total);
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, o));)
    if (hwloc_bitmap_intersects(o->cpuset, set))
      c[n++] = o;
  *cores = c;
  *ncores = n;
  return HK_SUCCESS;
cleanup:
  return err;
}

int hk__place_threads(hwloc_topology_t topo, hwloc_const_cpuset_t set, hk_bind_policy_t policy,
                      int nthreads, hwloc_bitmap_t **sets, int *wrapped)
{
  int err = HK_SUCCESS, ncores = 0;
  hwloc_obj_t *cores = NULL;
  hwloc_bitmap_t *s = NULL, *distrib = NULL;
  *wrapped = 0;
  HK_ALLOC_TRY(err, s, nthreads);
  HK_TRY(err, hk__cores_in(topo, set, &cores, &ncores));
  if (ncores < 1) {
    err = HK_ERROR(HK_ERR_BIND, "the cpuset holds no core");
    goto cleanup;
  }
  if (policy == HK_BIND_SCATTER && nthreads <= ncores) {
    /* hwloc_distrib splits recursively over packages, NUMA nodes and caches of a
     * copy of the topology restricted to the set; each thread takes the core of
     * the first PU of its share. */
    hwloc_topology_t r = NULL;
    HK_ALLOC_TRY(err, distrib, nthreads);
    if (hwloc_topology_dup(&r, topo) != 0 || hwloc_topology_restrict(r, set, 0) != 0) {
      if (r)
        hwloc_topology_destroy(r);
      err = HK_ERROR(HK_ERR_BIND, "cannot restrict the topology to the rank's PUs");
      goto cleanup;
    }
    hwloc_obj_t root = hwloc_get_root_obj(r);
    int rc = hwloc_distrib(r, &root, 1, distrib, (unsigned)nthreads, INT_MAX, 0);
    hwloc_topology_destroy(r);
    if (rc != 0) {
      err = HK_ERROR(HK_ERR_BIND, "hwloc_distrib failed");
      goto cleanup;
    }
  }
  for (int t = 0; t < nthreads; t++) {
    s[t] = hwloc_bitmap_alloc();
    if (!s[t]) {
      err = HK_ERROR(HK_ERR_NOMEM, "out of memory");
      goto cleanup;
    }
    if (policy == HK_BIND_NONE) {
      hwloc_bitmap_copy(s[t], set);
      continue;
    }
    hwloc_obj_t core;
    if (distrib) {
      int first = hwloc_bitmap_first(distrib[t]);
      core = hwloc_get_pu_obj_by_os_index(topo, (unsigned)first);
      while (core && core->type != HWLOC_OBJ_CORE)
        core = core->parent;
    } else {
      core = cores[t % ncores];
      if (t >= ncores)
        *wrapped = 1;
    }
    if (!core) {
      err = HK_ERROR(HK_ERR_BIND, "no core found for thread %d", t);
      goto cleanup;
    }
    hwloc_bitmap_and(s[t], core->cpuset, set);
  }
  if (policy == HK_BIND_SCATTER && nthreads > ncores)
    *wrapped = 1;
  *sets = s;
  s = NULL;
cleanup:
  if (s) {
    for (int t = 0; t < nthreads; t++)
      hwloc_bitmap_free(s[t]);
    free(s);
  }
  if (distrib) {
    for (int t = 0; t < nthreads; t++)
      hwloc_bitmap_free(distrib[t]);
    free(distrib);
  }
  free(cores);
  return err;
}
