/* tests/unit/test_core.c: error codes, thread-level and policy names, the JSON
 * writer, version information (serial, no MPI_Init). */
#include <math.h>
#include <stdlib.h>
#include "hk_test.h"
#include "hybridkit.h"
#include "internal/hk_ckd.h"
#include "internal/hk_internal.h"
#include "internal/json.h"

static void test_errors(void)
{
  for (int e = HK_SUCCESS; e >= HK_ERR_MIN; e--) {
    CHECK(strlen(hk_strerror(e)) > 0);
    CHECK(strcmp(hk_strerror(e), "unknown error") != 0);
    for (int f = e - 1; f >= HK_ERR_MIN; f--)
      CHECK(strcmp(hk_strerror(e), hk_strerror(f)) != 0);
  }
  CHECK_STR(hk_strerror(HK_ERR_MIN - 1), "unknown error");
  CHECK_STR(hk_strerror(7), "unknown error");
  CHECK_EQ_INT(hk_error_set(HK_ERR_IO, "cannot write %s", "x.jsonl"), HK_ERR_IO);
  CHECK_STR(hk_error_message(), "cannot write x.jsonl");
  hk_error_clear();
  CHECK_STR(hk_error_message(), "");
}

static void test_levels(void)
{
  static const char *names[] = {"single", "masteronly", "funneled", "serialized", "multiple"};
  for (int l = HK_THREAD_SINGLE; l < HK_THREAD_LEVEL_COUNT; l++) {
    hk_thread_level_t p;
    CHECK_STR(hk_thread_level_name((hk_thread_level_t)l), names[l]);
    CHECK_EQ_INT(hk_thread_level_parse(names[l], &p), HK_SUCCESS);
    CHECK_EQ_INT(p, l);
  }
  hk_thread_level_t p = HK_THREAD_SINGLE;
  CHECK_EQ_INT(hk_thread_level_parse("MPI_THREAD_MULTIPLE", &p), HK_SUCCESS);
  CHECK_EQ_INT(p, HK_THREAD_MULTIPLE);
  CHECK_EQ_INT(hk_thread_level_parse("Funneled", &p), HK_SUCCESS);
  CHECK_EQ_INT(p, HK_THREAD_FUNNELED);
  CHECK_EQ_INT(hk_thread_level_parse("hybrid", &p), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "unknown thread level 'hybrid'");
  CHECK_STR(hk_thread_level_name((hk_thread_level_t)9), "invalid");
  /* ordering of Rabenseifner's taxonomy */
  CHECK(HK_THREAD_SINGLE < HK_THREAD_MASTERONLY && HK_THREAD_MASTERONLY < HK_THREAD_FUNNELED &&
        HK_THREAD_FUNNELED < HK_THREAD_SERIALIZED && HK_THREAD_SERIALIZED < HK_THREAD_MULTIPLE);
  /* before hk_init the level queries refuse */
  CHECK_EQ_INT(hk_thread_levels(NULL, NULL), HK_ERR_STATE);
  CHECK_EQ_INT(hk_require_thread_level(HK_THREAD_FUNNELED, "x"), HK_ERR_STATE);
}

static void test_policies(void)
{
  hk_bind_policy_t p;
  CHECK_EQ_INT(hk_bind_policy_parse("scatter", &p), HK_SUCCESS);
  CHECK_EQ_INT(p, HK_BIND_SCATTER);
  CHECK_EQ_INT(hk_bind_policy_parse("compact", &p), HK_SUCCESS);
  CHECK_EQ_INT(p, HK_BIND_COMPACT);
  CHECK_EQ_INT(hk_bind_policy_parse("none", &p), HK_SUCCESS);
  CHECK_EQ_INT(p, HK_BIND_NONE);
  CHECK_EQ_INT(hk_bind_policy_parse("spread", &p), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "unknown binding policy 'spread'");
  CHECK_STR(hk_bind_policy_name(HK_BIND_COMPACT), "compact");
  int share = 0;
  CHECK_EQ_INT(hk_launch_map_share(8, 2, 2, &share), HK_SUCCESS);
  CHECK_EQ_INT(share, 4);
  CHECK_EQ_INT(hk_launch_map_share(8, 3, 2, &share), HK_SUCCESS);
  CHECK_EQ_INT(share, 2);
  CHECK_EQ_INT(hk_launch_map_share(2, 4, 1, &share), HK_SUCCESS);
  CHECK_EQ_INT(share, 1);
  CHECK_EQ_INT(hk_launch_map_share(8, 0, 1, &share), HK_ERR_ARG);
  CHECK_EQ_INT(hk_launch_map_share(8, 2, 1, NULL), HK_ERR_ARG);
}

static void test_json(void)
{
  hk_json_t j;
  hk_json_init(&j);
  hk_json_obj_begin(&j);
  hk_json_key(&j, "s");
  hk_json_str(&j, "a\"b\\c\nd\te\x01");
  hk_json_key(&j, "i");
  hk_json_int(&j, -42);
  hk_json_key(&j, "d");
  hk_json_dbl(&j, 0.5);
  hk_json_key(&j, "whole");
  hk_json_dbl(&j, 3.0);
  hk_json_key(&j, "nan");
  hk_json_dbl(&j, NAN);
  hk_json_key(&j, "a");
  hk_json_arr_begin(&j);
  hk_json_bool(&j, 1);
  hk_json_null(&j);
  hk_json_obj_begin(&j);
  hk_json_obj_end(&j);
  hk_json_arr_begin(&j);
  hk_json_arr_end(&j);
  hk_json_str(&j, NULL);
  hk_json_arr_end(&j);
  hk_json_key(&j, "raw");
  hk_json_raw(&j, "{\"x\":1}");
  hk_json_obj_end(&j);
  CHECK(!j.nomem);
  CHECK_STR(j.buf, "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\",\"i\":-42,\"d\":0.5,\"whole\":3.0,"
                   "\"nan\":null,\"a\":[true,null,{},[],null],\"raw\":{\"x\":1}}");
  hk_json_free(&j);
}

static void test_version(void)
{
  int a = -1, b = -1, c = -1;
  hk_build_info_t bi;
  hk_version(&a, &b, &c);
  CHECK_EQ_INT(a, HK_VERSION_MAJOR);
  CHECK_EQ_INT(b, HK_VERSION_MINOR);
  CHECK_EQ_INT(c, HK_VERSION_PATCH);
  hk_build_info(&bi);
  CHECK_STR(bi.version, HK_VERSION_STRING);
  CHECK(bi.git_sha && strlen(bi.git_sha) > 0);
  CHECK(bi.compiler && strlen(bi.compiler) > 0);
  CHECK(strcmp(bi.mpi_impl, "openmpi") == 0 || strcmp(bi.mpi_impl, "mpich") == 0 ||
        strcmp(bi.mpi_impl, "other") == 0);
}

/* the MPI's maker from library version strings as the MPIs print them */
static void test_mpi_vendor(void)
{
  CHECK_STR(hk__mpi_vendor_of("Open MPI v4.1.4, package: Debian OpenMPI"), "openmpi");
  CHECK_STR(hk__mpi_vendor_of("MPICH Version:      4.0.2"), "mpich");
  CHECK_STR(hk__mpi_vendor_of("Intel(R) MPI Library 2021.10 for Linux* OS"), "intelmpi");
  CHECK_STR(hk__mpi_vendor_of("MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)"),
            "cray-mpich");
  CHECK_STR(hk__mpi_vendor_of("MVAPICH2 Version      :\t2.3.7"), "mvapich");
  CHECK_STR(hk__mpi_vendor_of("Spectrum MPI 10.4"), "other");
}

/* the checked size helpers against products computed in 128 bits */
static void test_ckd(void)
{
  const long long v[] = {0, 1, 2, 8, 2147483647LL, 2147483648LL, 4294967296LL, 3037000499LL,
                         (1LL << 62), 9223372036854775807LL, -1, -2147483648LL};
  const int nv = (int)(sizeof v / sizeof v[0]);
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) {
      size_t r = 1;
      int over = hk_ckd_mul(&r, v[i], v[j]);
      __int128 exact = (__int128)v[i] * v[j];
      int expect = v[i] < 0 || v[j] < 0 || exact > (__int128)SIZE_MAX;
      CHECK_EQ_INT(over, expect);
      if (!expect)
        CHECK((__int128)r == exact);
      for (int k = 0; k < nv; k += 3) {
        over = hk_ckd_mul3(&r, v[i], v[j], v[k]);
        int neg = v[i] < 0 || v[j] < 0 || v[k] < 0;
        unsigned __int128 ab = neg ? 0 : (unsigned __int128)v[i] * (unsigned __int128)v[j];
        int big = !neg && (ab > SIZE_MAX || (v[k] && ab > SIZE_MAX / (unsigned long long)v[k]));
        CHECK_EQ_INT(over, neg || big);
        if (!neg && !big)
          CHECK((unsigned __int128)r == ab * (unsigned long long)v[k]);
      }
    }
  size_t z;
  CHECK_EQ_INT(hk_ckd_mulz(&z, SIZE_MAX / 8 + 1, 8), 1);
  CHECK_EQ_INT(hk_ckd_mulz(&z, SIZE_MAX / 8, 8), 0);
  CHECK_EQ_INT(hk_ckd_addz(&z, SIZE_MAX, 1), 1);
  int n;
  CHECK_EQ_INT(hk_ckd_mpi_count(&n, 2147483647u), 0);
  CHECK_EQ_INT(n, 2147483647);
  CHECK_EQ_INT(hk_ckd_mpi_count(&n, 2147483648u), 1);
  char buf[32];
  CHECK_STR(hk_fmt_bytes(buf, sizeof buf, 17.2e9), "17.2 GB");
  CHECK_STR(hk_fmt_bytes(buf, sizeof buf, 512), "512 B");
}

int main(void)
{
  test_ckd();
  test_errors();
  test_levels();
  test_policies();
  test_json();
  test_version();
  test_mpi_vendor();
  return hk_test_report("test_core");
}
