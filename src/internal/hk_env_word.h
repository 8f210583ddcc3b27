/* src/internal/hk_env_word.h: the words a boolean environment variable of hybridkit takes,
 * one definition for the library (hk__env_bool, src/core/env.c) and the preload libraries
 * (preload/: libhybridkit-check.so links no hybridkit, the others see only its public
 * symbols), so that HK_CHECK_FATAL=yes means what HK_CHECK_MASTERONLY=yes means.  Never
 * installed; static inline. */
#ifndef HK_ENV_WORD_H
#define HK_ENV_WORD_H

#include <stdlib.h>
#include <strings.h>

/* what the messages say a boolean takes */
#define HK_BOOL_WORDS "1/yes/true/on or 0/no/false/off"

/* v as a boolean (any case): 1 or 0; unset or empty 0; -1 for any other word */
static inline int hk__bool_word(const char *v)
{
  static const char *const off[] = {"0", "no", "false", "off"}, *const on[] = {"1", "yes", "true", "on"};
  if (!v || !*v)
    return 0;
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(v, off[i]))
      return 0;
    if (!strcasecmp(v, on[i]))
      return 1;
  }
  return -1;
}

#endif
