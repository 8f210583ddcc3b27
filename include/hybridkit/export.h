/* hybridkit/export.h: symbol visibility.  The library is built with
 * -fvisibility=hidden; only declarations marked HK_EXPORT are exported. */
#ifndef HYBRIDKIT_EXPORT_H
#define HYBRIDKIT_EXPORT_H

#if defined(HK_STATIC)
#define HK_EXPORT
#elif defined(__GNUC__) || defined(__clang__)
#define HK_EXPORT __attribute__((visibility("default")))
#else
#define HK_EXPORT
#endif

#endif
