/* src/halo/modes.c: the mode table (name, thread level, overlap, step function)
 * and the entry points that dispatch through it.  A mode is data: adding one
 * is a row here and a step function in a modes_*.c file. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include "halo/halo_internal.h"

static const struct {
  const char *name;
  hk_thread_level_t level;
  int overlaps;
  hk_step_fn_t *step;
} hk_modes[HK_MODE_COUNT] = {
  [HK_MODE_PURE] = {"pure", HK_THREAD_SINGLE, 0, hk__step_pure},
  [HK_MODE_PURE_NB] = {"pure-nb", HK_THREAD_SINGLE, 1, hk__step_pure_nb},
  [HK_MODE_MASTERONLY] = {"masteronly", HK_THREAD_MASTERONLY, 0, hk__step_masteronly},
  [HK_MODE_FUNNELED] = {"funneled", HK_THREAD_FUNNELED, 0, hk__step_funneled},
  [HK_MODE_TASK] = {"task", HK_THREAD_FUNNELED, 1, hk__step_task},
  [HK_MODE_TASK_BALANCED] = {"task-balanced", HK_THREAD_FUNNELED, 1, hk__step_task_balanced},
  [HK_MODE_MULTIPLE] = {"multiple", HK_THREAD_MULTIPLE, 0, hk__step_multiple},
  [HK_MODE_MULTIPLE_RESERVED] = {"multiple-reserved", HK_THREAD_MULTIPLE, 1,
                                 hk__step_multiple_reserved},
};

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

int hk_mode_overlaps(hk_mode_t mode, int *overlaps)
{
  if (!overlaps || (int)mode < 0 || mode >= HK_MODE_COUNT)
    return HK_ERROR(HK_ERR_ARG, "mode %d is not in 0..%d (or overlaps is NULL)", (int)mode,
                    HK_MODE_COUNT - 1);
  *overlaps = hk_modes[mode].overlaps;
  return HK_SUCCESS;
}

static int check_call(const hk_halo_t *h, const double *field)
{
  if (!h || !field)
    return HK_ERROR(HK_ERR_ARG, "halo and field must not be NULL");
  if (omp_in_parallel())
    return HK_ERROR(HK_ERR_STATE, "halo exchanges are called outside parallel regions");
  return HK_SUCCESS;
}

int hk_halo_step(hk_halo_t *h, double *field, const hk_halo_work_t *work)
{
  int err = check_call(h, field);
  hk_halo_regions_t r;
  if (err == HK_SUCCESS && !work)
    err = HK_ERROR(HK_ERR_ARG, "work must not be NULL (hk_halo_exchange exchanges only)");
  if (err == HK_SUCCESS && !work->update)
    err = HK_ERROR(HK_ERR_ARG, "work->update must not be NULL");
  if (err == HK_SUCCESS)
    err = hk_halo_regions(h, work->extend, &r);
  return err == HK_SUCCESS ? hk_modes[h->desc.mode].step(h, field, work, &r) : err;
}

int hk_halo_exchange(hk_halo_t *h, double *field)
{
  int err = check_call(h, field);
  return err == HK_SUCCESS ? hk_modes[h->desc.mode].step(h, field, NULL, NULL) : err;
}

int hk_halo_begin(hk_halo_t *h, double *field)
{
  int err = check_call(h, field);
  if (err != HK_SUCCESS)
    return err;
#pragma omp parallel num_threads(h->nthreads)
  hk__halo_pack_all(h, field);
  return hk__halo_post(h, 0, 1);
}

int hk_halo_end(hk_halo_t *h, double *field)
{
  int err = check_call(h, field);
  if (err == HK_SUCCESS)
    err = hk__halo_wait(h, 0, 1);
  if (err != HK_SUCCESS)
    return err;
#pragma omp parallel num_threads(h->nthreads)
  hk__halo_unpack_all(h, field);
  hk__halo_account(h, 1, 0);
  return HK_SUCCESS;
}
