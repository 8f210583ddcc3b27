# tools/api-renames.sed: the API renames of the pass before 1.0 (issue 18, docs/api-changes.md).
# Word-bounded, so re-applying it is harmless; apply over the tree with
#   tools/api-rename.sh            (every tracked C/C++/CMake/Python/Markdown file)
# Signature changes (out-parameters, structs) are NOT here: docs/api-changes.md lists them.

# one getter style: hk_<object>_<thing> (like hk_cart_info, hk_halo_layout, hk_nodes_info)
s/\bhk_cart_get_layout\b/hk_cart_layout/g
s/\bhk_cart_get_desc\b/hk_cart_desc/g
s/\bhk_halo_get_stats\b/hk_halo_stats/g
s/\bhk_halo_reset_stats\b/hk_halo_stats_reset/g

# Cartesian rank mapping: hk_cart_map_*; the launch map (rank/thread -> PU): hk_launch_map_*
s/\bhk_map_policy_t\b/hk_cart_map_t/g
s/\bhk_map_policy\b/hk_cart_map/g
s/\bhk_map_policy_name\b/hk_cart_map_name/g
s/\bhk_map_policy_parse\b/hk_cart_map_parse/g
s/\bHK_MAP_SEQUENTIAL\b/HK_CART_MAP_SEQUENTIAL/g
s/\bHK_MAP_ROUND_ROBIN\b/HK_CART_MAP_ROUND_ROBIN/g
s/\bHK_MAP_NODE_AWARE\b/HK_CART_MAP_NODE_AWARE/g
s/\bhk_map_desc_t\b/hk_launch_map_desc_t/g
s/\bhk_map_desc\b/hk_launch_map_desc/g
s/\bhk_map_compute\b/hk_launch_map_compute/g
s/\bhk_map_share\b/hk_launch_map_share/g

# _COUNT enum sentinels (members of the enum, not #defines)
s/\bHK_ALLREDUCE_NALG\b/HK_ALLREDUCE_ALG_COUNT/g
s/\bHK_FALLBACK_NREASONS\b/HK_FALLBACK_COUNT/g
# last-member bounds -> the sentinel
s/> HK_BIND_SCATTER\b/>= HK_BIND_POLICY_COUNT/g
s/<= HK_BIND_SCATTER\b/< HK_BIND_POLICY_COUNT/g
s/> HK_CART_MAP_NODE_AWARE\b/>= HK_CART_MAP_COUNT/g
s/<= HK_CART_MAP_NODE_AWARE\b/< HK_CART_MAP_COUNT/g
s/> HK_STENCIL_FULL\b/>= HK_STENCIL_COUNT/g
s/(int)level > HK_THREAD_MULTIPLE\b/(int)level >= HK_THREAD_LEVEL_COUNT/g
s/l <= HK_THREAD_MULTIPLE\b/l < HK_THREAD_LEVEL_COUNT/g

# the halo's update regions: one struct (was 4 positional outputs, internally hk_regions_t)
s/\bhk_regions_t\b/hk_halo_regions_t/g
