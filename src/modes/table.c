/* src/modes/table.c: the hybrid modes as one table (name, thread level, overlap, who
 * communicates, balanced, reserved threads) and the lookups by name and value.  A mode
 * is data: the engine (engine.c) runs any row.  cmake/hk_modes.cmake reads the rows'
 * first three fields for the tests; keep them on one line each. */
#include <stdio.h>
#include <string.h>
#include "modes/modes_internal.h"

static const hk_mode_info_t hk_modes[HK_MODE_COUNT] = {
  [HK_MODE_PURE] = {"pure", HK_THREAD_SINGLE, 0, HK_MODE_COMM_CALLER, 0, 0},
  [HK_MODE_PURE_NB] = {"pure-nb", HK_THREAD_SINGLE, 1, HK_MODE_COMM_CALLER, 0, 0},
  [HK_MODE_MASTERONLY] = {"masteronly", HK_THREAD_MASTERONLY, 0, HK_MODE_COMM_CALLER, 0, 0},
  [HK_MODE_FUNNELED] = {"funneled", HK_THREAD_FUNNELED, 0, HK_MODE_COMM_MASTER, 0, 0},
  [HK_MODE_TASK] = {"task", HK_THREAD_FUNNELED, 1, HK_MODE_COMM_MASTER, 0, 1},
  [HK_MODE_TASK_BALANCED] = {"task-balanced", HK_THREAD_FUNNELED, 1, HK_MODE_COMM_MASTER, 1, 1},
  [HK_MODE_MULTIPLE] = {"multiple", HK_THREAD_MULTIPLE, 0, HK_MODE_COMM_ALL, 0, 0},
  [HK_MODE_MULTIPLE_RESERVED] = {"multiple-reserved", HK_THREAD_MULTIPLE, 1, HK_MODE_COMM_RESERVED, 0, -1},
};

const hk_mode_info_t *hk__mode_row(hk_mode_t mode)
{
  return (int)mode >= 0 && mode < HK_MODE_COUNT ? &hk_modes[mode] : NULL;
}

const char *hk_mode_name(hk_mode_t mode)
{
  return (int)mode >= 0 && mode < HK_MODE_COUNT ? hk_modes[mode].name : "invalid";
}

int hk_mode_parse(const char *name, hk_mode_t *mode)
{
  for (int m = 0; name && m < HK_MODE_COUNT; m++)
    if (strcmp(name, hk_modes[m].name) == 0) {
      *mode = (hk_mode_t)m;
      return HK_SUCCESS;
    }
  char known[256] = "";
  size_t used = 0;
  for (int m = 0; m < HK_MODE_COUNT && used < sizeof known; m++)
    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", m ? ", " : "",
                             hk_modes[m].name);
  return HK_ERROR(HK_ERR_ARG, "unknown mode '%s' (%s)", name ? name : "(null)", known);
}

hk_thread_level_t hk_mode_thread_level(hk_mode_t mode)
{
  return (int)mode >= 0 && mode < HK_MODE_COUNT ? hk_modes[mode].level : HK_THREAD_MULTIPLE;
}

int hk_mode_get_info(hk_mode_t mode, hk_mode_info_t *info)
{
  if (!info || (int)mode < 0 || mode >= HK_MODE_COUNT)
    return HK_ERROR(HK_ERR_ARG, "mode %d is not in 0..%d (or info is NULL)", (int)mode,
                    HK_MODE_COUNT - 1);
  *info = hk_modes[mode];
  return HK_SUCCESS;
}

int hk_mode_overlaps(hk_mode_t mode, int *overlaps)
{
  if (!overlaps || (int)mode < 0 || mode >= HK_MODE_COUNT)
    return HK_ERROR(HK_ERR_ARG, "mode %d is not in 0..%d (or overlaps is NULL)", (int)mode,
                    HK_MODE_COUNT - 1);
  *overlaps = hk_modes[mode].overlap;
  return HK_SUCCESS;
}
