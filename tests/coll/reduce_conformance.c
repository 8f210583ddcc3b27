/* tests/coll/reduce_conformance.c: hk_reduce and hk_reduce_scatter_block against
 * this program's own arithmetic (issue 39); built a second time with HK_CONF_SCAN as
 * scan_conformance: hk_scan and hk_exscan (the same checks, folds over wranks 0..r
 * and 0..r-1; exscan's wrank 0 is not checked, its recvbuf is undefined in MPI).
 *
 * Every result is checked against a value computed here from the deterministic
 * inputs of all ranks (small integers: exact in any order and in every type).
 * For each algorithm forced through the options (auto, mpi, chunked,
 * chunked-shifted, hierarchical; min_bytes 1 so every message is a candidate):
 *
 *   predefined   every C integer type (signed char .. unsigned long long, the
 *                int<N>_t), float, double, long double, C_BOOL, BYTE,
 *                C_DOUBLE_COMPLEX x every op valid on them; MAXLOC/MINLOC on
 *                the pair types (ties: lowest wrank)
 *   derived      a vector (2 of 3 ints) and a struct whose int sits 4 bytes into
 *                an 8-byte extent (true lb != 0), with a commutative user op
 *   user ops     2x2 matrix products mod 1009, not commutative: wrank order
 *   in place     MPI_IN_PLACE at the root (reduce), in recvbuf (scatter, scans)
 *   roots        0 and the last wrank; counts 0, 1, 7, 1001, 65537
 *   uneven calls (scans) the two halves of the wranks make different numbers of calls
 *                on their own communicators between calls on the world
 *   contexts     outside parallel regions, and from one thread inside one
 *   info         the reason of a fallback where it is certain from the inputs
 *                (small, chosen, one-wrank, non-commutative, datatype,
 *                thread-level, one-thread, nodes) and the algorithm that ran
 *
 * usage: reduce_conformance [--level funneled|serialized|multiple]
 * Prints "reduce_conformance: N ranks, level L, M checks, 0 failed" and the
 * fallbacks seen on wrank 0; exit 1 on a wrong result.
 */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* ---- predefined types: values stored and loaded as long long (complex: two) ---- */
typedef struct ptype {
  MPI_Datatype t;
  char kind;   /* i signed, u unsigned, f floating, b C bool, c double complex */
  int size;
  const char *name;
} ptype_t;

static void put(void *buf, long long i, const ptype_t *p, long long v, long long w)
{
  char *a = (char *)buf + i * p->size;
  switch (p->kind) {
  case 'i': if (p->size == 1) *(int8_t *)a = (int8_t)v; else if (p->size == 2) *(int16_t *)a = (int16_t)v;
            else if (p->size == 4) *(int32_t *)a = (int32_t)v; else *(int64_t *)a = v; break;
  case 'u': if (p->size == 1) *(uint8_t *)a = (uint8_t)v; else if (p->size == 2) *(uint16_t *)a = (uint16_t)v;
            else if (p->size == 4) *(uint32_t *)a = (uint32_t)v; else *(uint64_t *)a = (uint64_t)v; break;
  case 'f': if (p->size == 4) *(float *)a = (float)v; else if (p->size == 8) *(double *)a = (double)v;
            else *(long double *)a = (long double)v; break;
  case 'b': *(_Bool *)a = v != 0; break;
  default:  *(double complex *)a = (double)v + (double)w * I; break;
  }
}

static long long get(const void *buf, long long i, const ptype_t *p, long long *w)
{
  const char *a = (const char *)buf + i * p->size;
  *w = 0;
  switch (p->kind) {
  case 'i': return p->size == 1 ? *(const int8_t *)a : p->size == 2 ? *(const int16_t *)a
                 : p->size == 4 ? *(const int32_t *)a : *(const int64_t *)a;
  case 'u': return p->size == 1 ? *(const uint8_t *)a : p->size == 2 ? *(const uint16_t *)a
                 : p->size == 4 ? (long long)*(const uint32_t *)a : (long long)*(const uint64_t *)a;
  case 'f': return p->size == 4 ? (long long)*(const float *)a : p->size == 8
                 ? (long long)*(const double *)a : (long long)*(const long double *)a;
  case 'b': return *(const _Bool *)a;
  default: {
    double complex z = *(const double complex *)a;
    *w = (long long)cimag(z);
    return (long long)creal(z);
  }
  }
}

enum { SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const MPI_Op *mpi_op[NOPS];
static const char *op_name[NOPS] = {"sum", "prod", "max", "min", "land", "lor", "lxor", "band",
                                    "bor", "bxor"};

/* element i of wrank r for op o: small enough for any fold over 4 ranks in int8 */
static long long val(int r, long long i, int salt, int o, const ptype_t *p, long long *w)
{
  long long x = r * 131 + i * 7 + salt * 13;
  *w = (r + i + salt) % 2;
  if (o == PROD)
    return 1 + (x % 2);
  if (o == LAND || o == LOR || o == LXOR)
    return x % 3 == 0 ? 0 : (p->kind == 'b' ? 1 : 1 + x % 2);
  if (o >= BAND)
    return x % 128;
  return x % 23 - (p->kind == 'i' || p->kind == 'f' ? 11 : 0);
}

static long long fold(int o, long long a, long long b)
{
  switch (o) {
  case SUM: return a + b;
  case PROD: return a * b;
  case MAX: return a > b ? a : b;
  case MIN: return a < b ? a : b;
  case LAND: return a && b;
  case LOR: return a || b;
  case LXOR: return !a != !b;
  case BAND: return a & b;
  case BOR: return a | b;
  default: return a ^ b;
  }
}

/* the expected element: element `i` of wranks 0..nr-1 folded in wrank order */
static void expect(long long i, int salt, int o, const ptype_t *p, int nr, long long *v,
                   long long *w)
{
  long long x, y;
  x = val(0, i, salt, o, p, &y);
  for (int r = 1; r < nr; r++) {
    long long b, bw;
    b = val(r, i, salt, o, p, &bw);
    if (p->kind == 'c' && o == PROD) {
      long long re = x * b - y * bw, im = x * bw + y * b;
      x = re;
      y = im;
    } else {
      x = fold(o, x, b);
      y = fold(o, y, bw);
    }
  }
  *v = x;
  *w = p->kind == 'c' ? y : 0;
}

static const ptype_t types[] = {
  {MPI_SIGNED_CHAR, 'i', 1, "signed char"}, {MPI_UNSIGNED_CHAR, 'u', 1, "unsigned char"},
  {MPI_SHORT, 'i', sizeof(short), "short"}, {MPI_UNSIGNED_SHORT, 'u', sizeof(short), "unsigned short"},
  {MPI_INT, 'i', sizeof(int), "int"}, {MPI_UNSIGNED, 'u', sizeof(unsigned), "unsigned"},
  {MPI_LONG, 'i', sizeof(long), "long"}, {MPI_UNSIGNED_LONG, 'u', sizeof(long), "unsigned long"},
  {MPI_LONG_LONG, 'i', 8, "long long"}, {MPI_UNSIGNED_LONG_LONG, 'u', 8, "unsigned long long"},
  {MPI_INT8_T, 'i', 1, "int8_t"}, {MPI_UINT8_T, 'u', 1, "uint8_t"},
  {MPI_INT16_T, 'i', 2, "int16_t"}, {MPI_UINT16_T, 'u', 2, "uint16_t"},
  {MPI_INT32_T, 'i', 4, "int32_t"}, {MPI_UINT32_T, 'u', 4, "uint32_t"},
  {MPI_INT64_T, 'i', 8, "int64_t"}, {MPI_UINT64_T, 'u', 8, "uint64_t"},
  {MPI_FLOAT, 'f', 4, "float"}, {MPI_DOUBLE, 'f', 8, "double"},
  {MPI_LONG_DOUBLE, 'f', sizeof(long double), "long double"},
  {MPI_C_BOOL, 'b', sizeof(_Bool), "C_BOOL"}, {MPI_BYTE, 'u', 1, "BYTE"},
  {MPI_C_DOUBLE_COMPLEX, 'c', sizeof(double complex), "C_DOUBLE_COMPLEX"}};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static int valid(const ptype_t *p, int o)
{
  if (p->t == MPI_BYTE)
    return o >= BAND;
  switch (p->kind) {
  case 'f': return o <= MIN;
  case 'c': return o <= PROD;
  case 'b': return o >= LAND && o <= LXOR;
  default: return 1;
  }
}

/* ---- one call, its info, and what its fallback must be where that is certain ---- */
static const hk_allreduce_alg_t algs[] = {HK_ALLREDUCE_AUTO, HK_ALLREDUCE_MPI, HK_ALLREDUCE_CHUNKED,
                                          HK_ALLREDUCE_CHUNKED_SHIFTED, HK_ALLREDUCE_HIERARCHICAL};
#define NALGS 5

enum { REDUCE, SCATTER, SCAN, EXSCAN };
static const char *const coll_name[] = {"reduce", "scatter", "scan", "exscan"};
typedef struct call {
  int coll;         /* REDUCE hk_reduce, SCATTER hk_reduce_scatter_block, SCAN, EXSCAN */
  hk_allreduce_alg_t alg;
  int root;
  int in_place;
} call_t;

/* this wrank's recvbuf has a defined result */
static int holds(const call_t *k)
{
  return k->coll == REDUCE ? wrank == k->root : k->coll != EXSCAN || wrank > 0;
}
/* wranks folded into this wrank's result: 0..upto-1 */
static int upto(const call_t *k)
{
  return k->coll == SCAN ? wrank + 1 : k->coll == EXSCAN ? wrank : wsize;
}
/* input elements per wrank, and the input index of result element i */
static long long n_in(const call_t *k, long long count)
{
  return k->coll == SCATTER ? count * wsize : count;
}
static long long at_in(const call_t *k, long long count, long long i)
{
  return k->coll == SCATTER ? wrank * count + i : i;
}

static int expected(const call_t *k, long long count, MPI_Datatype t, int commute)
{
  int size = 0;
  MPI_Aint lb, ext, tlb, text;
  MPI_Type_size(t, &size);
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  int contiguous = lb == 0 && tlb == 0 && size == ext && text == ext;
  if (k->alg == HK_ALLREDUCE_MPI)
    return HK_FALLBACK_CHOSEN;
  if (count == 0)
    return HK_FALLBACK_SMALL;
  if (k->alg == HK_ALLREDUCE_AUTO)
    return -1;
  if (k->coll >= SCAN) { /* chunked only, in MPI's rank order for any op */
    if (wsize == 1)
      return HK_FALLBACK_ONE_RANK;
    if (k->alg != HK_ALLREDUCE_CHUNKED)
      return HK_FALLBACK_UNAVAILABLE;
    if (ext <= 0)
      return HK_FALLBACK_DATATYPE;
  }
  int reorders = k->alg != HK_ALLREDUCE_CHUNKED;
  if (!commute && reorders)
    return HK_FALLBACK_NONCOMMUTATIVE;
  if (wsize == 1)
    return HK_FALLBACK_ONE_RANK;
  if (k->coll < SCAN && k->alg == HK_ALLREDUCE_HIERARCHICAL) {
    if (!contiguous)
      return HK_FALLBACK_DATATYPE;
    if (node_size == 1 || (node_size > 1 && wsize % node_size))
      return HK_FALLBACK_NODES;
    return HK_FALLBACK_NONE;
  }
  if (k->coll == SCATTER && (ext <= 0 || text > ext))
    return HK_FALLBACK_DATATYPE;
  if (level < MPI_THREAD_MULTIPLE)
    return HK_FALLBACK_THREAD_LEVEL;
  long long g = 64, e = ext, a = 64; /* 64 / gcd(extent, 64) elements per unit */
  while (e) {
    long long r = a % e;
    a = e;
    e = r;
  }
  g /= a;
  long long units = (count + g - 1) / g;
  return (units < nthreads ? units : nthreads) < 2 ? HK_FALLBACK_ONE_THREAD : HK_FALLBACK_NONE;
}

static int call(const call_t *k, const void *in, void *out, long long count, MPI_Datatype t,
                MPI_Op op, int commute, const char *what)
{
  hk_allreduce_info_t info;
  hk_allreduce_opts_t o = {.algorithm = k->alg, .threads = HK_DEFAULT, .min_bytes = 1, .info = &info};
  const void *s = k->in_place && (k->coll != REDUCE || wrank == k->root) ? MPI_IN_PLACE : in;
  int c = (int)count, err;
  switch (k->coll) {
  case REDUCE: err = hk_reduce(s, out, c, t, op, k->root, MPI_COMM_WORLD, &o); break;
  case SCATTER: err = hk_reduce_scatter_block(s, out, c, t, op, MPI_COMM_WORLD, &o); break;
  case SCAN: err = hk_scan(s, out, c, t, op, MPI_COMM_WORLD, &o); break;
  default: err = hk_exscan(s, out, c, t, op, MPI_COMM_WORLD, &o); break;
  }
  const char *name = hk_allreduce_alg_name(k->alg);
  check(err == HK_SUCCESS, what, name, err);
  int want = expected(k, count, t, commute);
  int ran_ok = (info.fallback == HK_FALLBACK_NONE) == (info.algorithm != HK_ALLREDUCE_MPI);
  check(ran_ok && (want < 0 || (int)info.fallback == want), "info.fallback", name,
        info.fallback * 100 + (want < 0 ? 99 : want));
  if (want == HK_FALLBACK_NONE)
    check(info.algorithm == k->alg && info.threads >= 1, "info.algorithm", name, info.algorithm);
#pragma omp atomic
  seen[info.fallback]++;
  return err;
}

/* ---- predefined types and ops ---- */
static void predefined(const call_t *k, long long count, const ptype_t *p, int o, int salt)
{
  long long n = n_in(k, count), w, v;
  char *in = malloc((size_t)(n + 1) * p->size), *out = malloc((size_t)(n + 1) * p->size);
  char tmp[32];
  for (long long i = 0; i < n; i++) {
    v = val(wrank, i, salt, o, p, &w);
    put(in, i, p, v, w);
    put(out, i, p, k->in_place ? v : 77, k->in_place ? w : 0);
  }
  char what[96];
  snprintf(what, sizeof what, "%s %s %s%s n=%lld", coll_name[k->coll], p->name,
           op_name[o], k->in_place ? " in place" : "", count);
  call(k, in, out, count, p->t, *mpi_op[o], 1, what);
  long long bad = 0;
  if (holds(k))
    for (long long i = 0; i < count; i++) {
      long long ew, gw;
      expect(at_in(k, count, i), salt, o, p, upto(k), &v, &w);
      put(tmp, 0, p, v, w); /* through the type, as MPI computes it */
      v = get(tmp, 0, p, &ew);
      bad += get(out, i, p, &gw) != v || gw != ew;
    }
  check(bad == 0, what, hk_allreduce_alg_name(k->alg), bad);
  free(in);
  free(out);
}

/* every op on the C integer types; the int<N>_t (other handles for the same C types)
 * with sum, max and band, to keep the run short */
static void all_predefined(const call_t *k, long long count, int salt)
{
  for (int t = 0; t < NTYPES; t++)
    for (int o = 0; o < NOPS; o++)
      if (valid(&types[t], o) && (t < 10 || t >= 18 || o == SUM || o == MAX || o == BAND))
        predefined(k, count, &types[t], o, salt + t + o);
}

/* MAXLOC / MINLOC on pair types: value at 0, int index at ioff (the C struct) */
typedef struct pair {
  MPI_Datatype t;
  ptype_t value;
  size_t ioff, esize;
} pair_t;

static void pairs(const call_t *k, long long count, int salt)
{
  struct { double v; int i; } di;
  struct { float v; int i; } fi;
  struct { long v; int i; } li;
  struct { short v; int i; } si;
  const pair_t ps[] = {
    {MPI_2INT, {MPI_INT, 'i', 4, "2int"}, sizeof(int), 2 * sizeof(int)},
    {MPI_DOUBLE_INT, {MPI_DOUBLE, 'f', 8, "double_int"}, (char *)&di.i - (char *)&di, sizeof di},
    {MPI_FLOAT_INT, {MPI_FLOAT, 'f', 4, "float_int"}, (char *)&fi.i - (char *)&fi, sizeof fi},
    {MPI_LONG_INT, {MPI_LONG, 'i', sizeof(long), "long_int"}, (char *)&li.i - (char *)&li, sizeof li},
    {MPI_SHORT_INT, {MPI_SHORT, 'i', sizeof(short), "short_int"}, (char *)&si.i - (char *)&si,
     sizeof si}};
  for (int q = 0; q < 5; q++)
    for (int mx = 0; mx < 2; mx++) {
      const pair_t *p = &ps[q];
      long long n = n_in(k, count), bad = 0, w;
      char *in = calloc((size_t)(n + 1), p->esize), *out = calloc((size_t)(n + 1), p->esize);
      for (long long i = 0; i < n; i++) {
        put(in + i * p->esize, 0, &p->value, (wrank * 5 + i * 3 + salt) % 4, 0);
        memcpy(in + i * p->esize + p->ioff, &wrank, sizeof wrank);
      }
      if (k->in_place)
        memcpy(out, in, (size_t)n * p->esize);
      char what[64];
      snprintf(what, sizeof what, "%s %s %s", coll_name[k->coll], p->value.name,
               mx ? "maxloc" : "minloc");
      call(k, in, out, count, p->t, mx ? MPI_MAXLOC : MPI_MINLOC, 1, what);
      for (long long i = 0; holds(k) && i < count; i++) {
        long long e = at_in(k, count, i), best = -1, at = -1;
        for (int r = 0; r < upto(k); r++) {
          long long x = (r * 5 + e * 3 + salt) % 4;
          if (best < 0 || (mx ? x > best : x < best)) {
            best = x;
            at = r;
          }
        }
        int idx;
        memcpy(&idx, out + i * p->esize + p->ioff, sizeof idx);
        bad += get(out + i * p->esize, 0, &p->value, &w) != best || idx != at;
      }
      check(bad == 0, what, hk_allreduce_alg_name(k->alg), bad);
      free(in);
      free(out);
    }
}

/* ---- derived types with a commutative user op (ck_sum_ints: check.h) ---- */
static MPI_Op op_sum_ints, op_matmul;
static MPI_Datatype t_vec, t_shift, t_mat;

/* vector (ints 0, 1 of 3) and shifted (int at byte 4 of 8): gaps must stay untouched */
static void derived(const call_t *k, long long count, int salt)
{
  struct { MPI_Datatype t; int stride, first, used; const char *name; } ts[] = {
    {t_vec, 3, 0, 2, "vector(2 of 3) user op"}, {t_shift, 2, 1, 1, "struct(int at 4, extent 8) user op"}};
  for (int q = 0; q < 2; q++) {
    long long n = n_in(k, count) * ts[q].stride, bad = 0;
    int *in = malloc((size_t)(n + 1) * sizeof *in), *out = malloc((size_t)(n + 1) * sizeof *out);
    for (long long i = 0; i < n; i++) {
      int used = i % ts[q].stride >= ts[q].first && i % ts[q].stride < ts[q].first + ts[q].used;
      in[i] = used ? (int)((wrank * 131 + i * 7 + salt) % 1000) : -99;
      out[i] = k->in_place ? in[i] : -99;
    }
    call(k, in, out, count, ts[q].t, op_sum_ints, 1, ts[q].name);
    long long nout = count * ts[q].stride, base = k->coll == SCATTER ? wrank * nout : 0;
    for (long long i = 0; holds(k) && i < nout; i++) {
      int used = i % ts[q].stride >= ts[q].first && i % ts[q].stride < ts[q].first + ts[q].used;
      long long want = 0;
      for (int r = 0; r < upto(k); r++)
        want += (r * 131 + (base + i) * 7 + salt) % 1000;
      bad += used ? out[i] != want % 1000003 : out[i] != (k->in_place ? in[base + i] : -99);
    }
    check(bad == 0, ts[q].name, hk_allreduce_alg_name(k->alg), bad);
    free(in);
    free(out);
  }
}

static void mat_of(int r, long long e, int *m)
{
  for (int j = 0; j < 4; j++)
    m[j] = (int)((r * 17 + e * 3 + j * 5 + 1) % 1009);
}

static void noncommutative(const call_t *k, long long count)
{
  long long n = n_in(k, count), bad = 0;
  int *in = malloc((size_t)(n + 1) * 4 * sizeof *in), *out = malloc((size_t)(n + 1) * 4 * sizeof *out);
  for (long long e = 0; e < n; e++)
    mat_of(wrank, e, in + 4 * e);
  if (k->in_place)
    memcpy(out, in, (size_t)n * 4 * sizeof *in);
  call(k, in, out, count, t_mat, op_matmul, 0, "non-commutative user op");
  for (long long e = 0; holds(k) && e < count; e++) {
    int acc[4], m[4];
    long long g = at_in(k, count, e);
    mat_of(0, g, acc);
    for (int r = 1; r < upto(k); r++) { /* acc = acc x M_r: wrank order */
      mat_of(r, g, m);
      int c[4] = {(acc[0] * m[0] + acc[1] * m[2]) % 1009, (acc[0] * m[1] + acc[1] * m[3]) % 1009,
                  (acc[2] * m[0] + acc[3] * m[2]) % 1009, (acc[2] * m[1] + acc[3] * m[3]) % 1009};
      memcpy(acc, c, sizeof c);
    }
    bad += memcmp(acc, out + 4 * e, sizeof acc) != 0;
  }
  check(bad == 0, "non-commutative user op", hk_allreduce_alg_name(k->alg), bad);
  free(in);
  free(out);
}

static const long long counts[] = {0, 1, 7, 1001, 65537};
#define NCOUNTS 5

/* everything for one (collective, algorithm, root) */
static void suite(call_t k, int salt)
{
  const ptype_t *t_int = &types[4], *t_double = &types[19];
  for (int c = 0; c < NCOUNTS; c++) {
    long long n = counts[c];
    for (k.in_place = 0; k.in_place < 2; k.in_place++) {
      if (n == 1001 && !k.in_place && (k.coll != REDUCE || k.root == 0))
        all_predefined(&k, n, salt + c);
      predefined(&k, n, t_int, SUM, salt + c);
      predefined(&k, n, t_double, MAX, salt + c);
      if (n > 1 && n < 65537) {
        pairs(&k, n, salt + c);
        derived(&k, n, salt + c);
        noncommutative(&k, n / 2 + 1);
      }
    }
  }
  k.in_place = 0;
  derived(&k, 65537 / 4, salt);
  noncommutative(&k, 65537 / 4);
}

/* one thread of an active parallel region calls (master: FUNNELED allows it) */
static void inside_parallel(call_t k)
{
#pragma omp parallel
  {
#pragma omp master
    {
      check(omp_in_parallel() || omp_get_num_threads() == 1, "inside a parallel region", "-", 0);
      predefined(&k, 65537, &types[4], SUM, 41);
      k.in_place = 1;
      predefined(&k, 4099, &types[19], SUM, 42);
    }
#pragma omp barrier
    /* any one thread (SERIALIZED and up): a different thread id on different ranks */
    if (level >= MPI_THREAD_SERIALIZED) {
#pragma omp single
      predefined(&k, 65537, &types[8], SUM, 43);
    }
  }
}

#ifdef HK_CONF_SCAN
/* the two halves of the wranks (even, odd) scan on their own communicators, the odd
 * half twice as often, between scans on the world: each communicator's duplicates are
 * its own, so the uneven numbers of calls cannot cross */
static void uneven_calls(void)
{
  MPI_Comm half;
  int hr = 0, hs = 1;
  MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &half);
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  enum { N = 4099 };
  int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_CHUNKED, .min_bytes = 1};
  for (int round = 0; round < 2; round++) {
    for (int call = 0; call < 2 + 2 * (wrank % 2); call++) {
      for (int i = 0; i < N; i++)
        in[i] = wrank + i + call;
      long long bad = hk_scan(in, out, N, MPI_INT, MPI_SUM, half, &o) != HK_SUCCESS;
      for (int i = 0; i < N; i++) { /* half rank j is wrank 2 j + wrank % 2 */
        long long want = 0;
        for (int j = 0; j <= hr; j++)
          want += 2 * j + wrank % 2 + i + call;
        bad += out[i] != want;
      }
      check(bad == 0, "uneven calls: scan on a half", "chunked", bad);
    }
    for (int i = 0; i < N; i++)
      in[i] = wrank * i % 7;
    long long bad = hk_exscan(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &o) != HK_SUCCESS;
    for (int i = 0; wrank > 0 && i < N; i++) {
      long long want = 0;
      for (int r = 0; r < wrank; r++)
        want += r * i % 7;
      bad += out[i] != want;
    }
    check(bad == 0, "uneven calls: exscan on the world between", "chunked", bad);
  }
  free(in);
  free(out);
  MPI_Comm_free(&half);
}
#endif

static void bad_arguments(void)
{
  int x = 0, y = 0;
  check(hk_reduce(&x, &y, 1, MPI_INT, MPI_SUM, wsize, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "root outside comm: HK_ERR_ARG", "-", 0);
  check(hk_reduce(&x, &y, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "count -1: HK_ERR_ARG", "-", 0);
  check(hk_reduce_scatter_block(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "recvcount -1: HK_ERR_ARG", "-", 0);
  check(hk_scan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "scan count -1: HK_ERR_ARG", "-", 0);
  check(hk_exscan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL) == HK_ERR_ARG,
        "exscan count -1: HK_ERR_ARG", "-", 0);
  hk_error_clear();
  /* an op the type does not support (MPI_SUM on a pair type), large enough for the hybrid
   * path, on an MPI_ERRORS_RETURN communicator (its duplicates inherit the handler): an
   * error code on every wrank, no abort, no hang; then the communicator still works */
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
  enum { NP = 5000 };
  struct { double v; int i; } *p = calloc(NP * 4, sizeof *p), *q = calloc(NP * 4, sizeof *q);
  for (int a = 0; a < NALGS; a++) {
    hk_allreduce_opts_t o = {.algorithm = algs[a], .min_bytes = 1};
    check(hk_reduce(p, q, NP, MPI_DOUBLE_INT, MPI_SUM, 0, d, &o) == HK_ERR_MPI,
          "reduce: MPI_SUM on MPI_DOUBLE_INT returns HK_ERR_MPI", hk_allreduce_alg_name(algs[a]), 0);
    check(hk_reduce_scatter_block(p, q, NP / wsize, MPI_DOUBLE_INT, MPI_SUM, d, &o) == HK_ERR_MPI,
          "scatter: MPI_SUM on MPI_DOUBLE_INT returns HK_ERR_MPI", hk_allreduce_alg_name(algs[a]), 0);
#ifdef HK_CONF_SCAN
    check(hk_scan(p, q, NP, MPI_DOUBLE_INT, MPI_SUM, d, &o) == HK_ERR_MPI,
          "scan: MPI_SUM on MPI_DOUBLE_INT returns HK_ERR_MPI", hk_allreduce_alg_name(algs[a]), 0);
    check(hk_exscan(p, q, NP, MPI_DOUBLE_INT, MPI_SUM, d, &o) == HK_ERR_MPI,
          "exscan: MPI_SUM on MPI_DOUBLE_INT returns HK_ERR_MPI", hk_allreduce_alg_name(algs[a]), 0);
#endif
    hk_error_clear();
  }
  int one = 1, sum = 0;
  hk_allreduce_opts_t o = {.algorithm = HK_ALLREDUCE_CHUNKED, .min_bytes = 1};
  check(hk_reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, d, &o) == HK_SUCCESS &&
        (wrank != 0 || sum == wsize), "ERRORS_RETURN comm after an error", "chunked", sum);
  free(p);
  free(q);
  MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
#ifdef HK_CONF_SCAN
  ck_start(&argc, &argv, "scan_conformance");
#else
  ck_start(&argc, &argv, "reduce_conformance");
#endif
  static const MPI_Op ops[NOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR,
                                   MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  for (int o = 0; o < NOPS; o++)
    mpi_op[o] = &ops[o];
  MPI_Datatype v, s;
  int one = 1;
  MPI_Aint four = 4;
  MPI_Type_vector(1, 2, 3, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 3 * sizeof(int), &t_vec);
  MPI_Type_create_struct(1, &one, &four, (MPI_Datatype[]){MPI_INT}, &s);
  MPI_Type_create_resized(s, 0, 8, &t_shift);
  MPI_Type_contiguous(4, MPI_INT, &t_mat);
  MPI_Type_commit(&t_vec);
  MPI_Type_commit(&t_shift);
  MPI_Type_commit(&t_mat);
  MPI_Type_free(&v);
  MPI_Type_free(&s);
  MPI_Op_create(ck_sum_ints, 1, &op_sum_ints);
  MPI_Op_create(ck_matmul, 0, &op_matmul);

  for (int a = 0; a < NALGS; a++) {
#ifdef HK_CONF_SCAN
    suite((call_t){SCAN, algs[a], 0, 0}, 10 * a);
    suite((call_t){EXSCAN, algs[a], 0, 0}, 10 * a + 1);
    inside_parallel((call_t){SCAN, algs[a], 0, 0});
    inside_parallel((call_t){EXSCAN, algs[a], 0, 0});
#else
    suite((call_t){SCATTER, algs[a], 0, 0}, 10 * a);
    suite((call_t){REDUCE, algs[a], 0, 0}, 10 * a + 1);
    if (wsize > 1)
      suite((call_t){REDUCE, algs[a], wsize - 1, 0}, 10 * a + 2);
    inside_parallel((call_t){REDUCE, algs[a], wsize - 1, 0});
    inside_parallel((call_t){SCATTER, algs[a], 0, 0});
#endif
  }
#ifdef HK_CONF_SCAN
  uneven_calls();
#endif
  bad_arguments();

  MPI_Op_free(&op_sum_ints);
  MPI_Op_free(&op_matmul);
  MPI_Type_free(&t_vec);
  MPI_Type_free(&t_shift);
  MPI_Type_free(&t_mat);
  return ck_finish();
}
