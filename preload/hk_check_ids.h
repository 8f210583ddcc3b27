/* preload/hk_check_ids.h: an id per row of hk_check_calls.h (CALL_Send, ...) and their
 * number NCALLS, for both libraries that wrap those calls (the MASTERONLY checker and the
 * profiler); each keeps its own table of the rows' names in the same order. */
#ifndef HK_CHECK_IDS_H
#define HK_CHECK_IDS_H

enum {
#define HK_CHECK_CALL(name, params, args) CALL_##name,
#include "hk_check_calls.h"
#undef HK_CHECK_CALL
  NCALLS
};

#endif
