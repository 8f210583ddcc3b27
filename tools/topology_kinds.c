/* tools/topology_kinds.c: the fields of hk-topology's record (kind "topology.binding"),
 * declared once; python/src/hybridkit/schemas/topology.binding.schema.json is generated
 * from here. */
#include "hybridkit/kind_fields.h"
#include "topology_kinds.h"

static const hk_field_decl_t fields[] = {
  {"policy", PS, NULL, SAME, 0, 0, "the binding policy applied (--bind), or launcher: as launched"},
  {"machine", PS, NULL, SAME, 0, 0, "the machine described: this machine, synthetic:DESC or xml:PATH"},
  {"nodes", VI, NULL, SAME, 0, 0, "nodes of the run"},
  {"cores", VI, NULL, SAME, 0, 0, "cores of the machine described"},
  {"pus", VI, NULL, SAME, 0, 0, "processing units (hardware threads) of the machine described"},
  {"threads", VI, NULL, SAME, 0, 0, "threads reported, all ranks"},
  {"binding_warnings", VI, NULL, SAME, 0, 0, "warnings of the binding report (shared or unbound PUs)"},
};

const hk_kind_decl_t topology_kind_binding = {
  .kind = "topology.binding",
  .caption = "hk-topology: the binding of every rank and thread on the machine",
  HK_KIND_FIELDS(fields),
};
