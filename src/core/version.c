/* src/core/version.c: version and build information of the linked library. */
#include "internal/hk_internal.h"

void hk_version(int *major, int *minor, int *patch)
{
  if (major) *major = HK_VERSION_MAJOR;
  if (minor) *minor = HK_VERSION_MINOR;
  if (patch) *patch = HK_VERSION_PATCH;
}

void hk_build_info(hk_build_info_t *info)
{
  if (!info)
    return;
  info->version = HK_VERSION_STRING;
  info->git_sha = hk__build_git_sha;
  info->compiler = hk__build_compiler;
  info->cflags = hk__build_cflags;
  info->build_type = hk__build_type;
  info->mpi_impl = hk__build_mpi_impl;
}
