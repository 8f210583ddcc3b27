/* tests/hk_test.h: minimal checks for the C tests.  A failed CHECK prints
 * "file:line: rank R: check failed: expr" and counts; hk_test_finish() agrees
 * over MPI_COMM_WORLD (or locally for serial tests) and gives the exit code. */
#ifndef HK_TEST_H
#define HK_TEST_H

#include <stdio.h>
#include <string.h>

static int hk_test_failures = 0;
static int hk_test_checks = 0;
static int hk_test_rank = 0;

#define CHECK(expr)                                                                     \
  do {                                                                                  \
    hk_test_checks++;                                                                   \
    if (!(expr)) {                                                                      \
      hk_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: rank %d: check failed: %s\n", __FILE__, __LINE__,         \
              hk_test_rank, #expr);                                                     \
    }                                                                                   \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                              \
  do {                                                                                  \
    long long hk_a_ = (long long)(a), hk_b_ = (long long)(b);                           \
    hk_test_checks++;                                                                   \
    if (hk_a_ != hk_b_) {                                                               \
      hk_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: rank %d: %s == %lld, expected %s == %lld\n", __FILE__,    \
              __LINE__, hk_test_rank, #a, hk_a_, #b, hk_b_);                            \
    }                                                                                   \
  } while (0)

#define CHECK_STR(a, b)                                                                 \
  do {                                                                                  \
    const char *hk_a_ = (a), *hk_b_ = (b);                                              \
    hk_test_checks++;                                                                   \
    if (!hk_a_ || !hk_b_ || strcmp(hk_a_, hk_b_) != 0) {                                \
      hk_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: rank %d: %s is \"%s\", expected \"%s\"\n", __FILE__,      \
              __LINE__, hk_test_rank, #a, hk_a_ ? hk_a_ : "(null)", hk_b_ ? hk_b_ : "(null)"); \
    }                                                                                   \
  } while (0)

#define CHECK_CONTAINS(hay, needle)                                                     \
  do {                                                                                  \
    const char *hk_h_ = (hay), *hk_n_ = (needle);                                       \
    hk_test_checks++;                                                                   \
    if (!hk_h_ || !strstr(hk_h_, hk_n_)) {                                              \
      hk_test_failures++;                                                               \
      fprintf(stderr, "%s:%d: rank %d: \"%s\" does not contain \"%s\"\n", __FILE__,     \
              __LINE__, hk_test_rank, hk_h_ ? hk_h_ : "(null)", hk_n_);                 \
    }                                                                                   \
  } while (0)

/* serial tests */
static inline int hk_test_report(const char *name)
{
  printf("%s: %d checks, %d failed\n", name, hk_test_checks, hk_test_failures);
  return hk_test_failures ? 1 : 0;
}

#endif
