/* tests/unit/test_spmv_mm.c: the Matrix Market reader and the generators.
 * Good files (general, symmetric, pattern, integer, comments and blank lines) give
 * the hand-written matrices; every malformed file gives HK_ERR_ARG with one line
 * "FILE:LINE: what" naming the line.  The generators: hand-counted entries of the
 * Laplacians, and the random matrix is the same whatever rows are generated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hk_test.h"
#include "hybridkit.h"

static char dir[] = "/tmp/hk_spmv_mm_XXXXXX";

static const char *write_file(const char *name, const char *text)
{
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

/* dense copy of rows [b, b+c) of a CRS into m[n*n] */
static void dense(const hk_spmv_crs_t *crs, double *m, int n)
{
  memset(m, 0, sizeof(double) * (size_t)n * n);
  for (int r = 0; r < crs->nrows; r++)
    for (long long e = crs->rowptr[r]; e < crs->rowptr[r + 1]; e++)
      m[(crs->row_begin + r) * n + crs->col[e]] = crs->val[e];
}

static void bad(const char *name, const char *text, const char *line_and_what)
{
  hk_spmv_crs_t crs;
  const char *path = write_file(name, text);
  int err = hk_spmv_read_mm(path, MPI_COMM_NULL, 0, 1, &crs);
  CHECK_EQ_INT(err, HK_ERR_ARG);
  char want[512];
  snprintf(want, sizeof want, "%s:%s", path, line_and_what);
  CHECK_CONTAINS(hk_error_message(), want);
  CHECK(strchr(hk_error_message(), '\n') == NULL);
  CHECK(crs.rowptr == NULL);
}

int main(void)
{
  CHECK(mkdtemp(dir) != NULL);
  hk_spmv_crs_t crs;
  double m[16];

  /* general real with comments, blank lines, unordered entries */
  const char *gen = write_file("gen.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                          "% a comment\n\n3 3 4\n3 1 -2.5\n1 1 4\n\n2 3 1e-1\n1 2 2\n");
  CHECK_EQ_INT(hk_spmv_read_mm(gen, MPI_COMM_NULL, 0, 3, &crs), HK_SUCCESS);
  dense(&crs, m, 3);
  const double want_gen[9] = {4, 2, 0, 0, 0, 0.1, -2.5, 0, 0};
  CHECK(memcmp(m, want_gen, sizeof want_gen) == 0);
  CHECK_EQ_INT(crs.nglobal, 3);
  CHECK_EQ_INT(crs.rowptr[3], 4);
  CHECK(crs.col[0] == 0 && crs.col[1] == 1); /* ascending within a row */
  hk_spmv_crs_free(&crs);
  /* rows 1..2 only */
  CHECK_EQ_INT(hk_spmv_read_mm(gen, MPI_COMM_NULL, 1, 2, &crs), HK_SUCCESS);
  CHECK_EQ_INT(crs.row_begin, 1);
  CHECK_EQ_INT(crs.rowptr[2], 2);
  hk_spmv_crs_free(&crs);

  /* symmetric integer: the lower triangle mirrored */
  const char *sym = write_file("sym.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n"
                                          "3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n");
  CHECK_EQ_INT(hk_spmv_read_mm(sym, MPI_COMM_NULL, 0, 3, &crs), HK_SUCCESS);
  dense(&crs, m, 3);
  const double want_sym[9] = {2, -1, 0, -1, 0, -1, 0, -1, 2};
  CHECK(memcmp(m, want_sym, sizeof want_sym) == 0);
  CHECK_EQ_INT(crs.symmetric, 1);
  hk_spmv_crs_free(&crs);

  /* pattern: values 1 */
  const char *pat = write_file("pat.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                          "2 2 2\n1 2\n2 1\n");
  CHECK_EQ_INT(hk_spmv_read_mm(pat, MPI_COMM_NULL, 0, 2, &crs), HK_SUCCESS);
  dense(&crs, m, 2);
  const double want_pat[4] = {0, 1, 1, 0};
  CHECK(memcmp(m, want_pat, sizeof want_pat) == 0);
  hk_spmv_crs_free(&crs);

  /* malformed: one line each, naming the line */
  const char *H = "%%MatrixMarket matrix coordinate real general\n";
  bad("b1.mtx", "hello\n", "1: not a Matrix Market file");
  bad("b2.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
      "1: format 'array' is not supported");
  bad("b3.mtx", "%%MatrixMarket matrix coordinate complex general\n", "1: field 'complex'");
  bad("b4.mtx", "%%MatrixMarket matrix coordinate real hermitian\n", "1: symmetry 'hermitian'");
  char t[512];
  snprintf(t, sizeof t, "%s%% c\n2 x 3\n", H);
  bad("b5.mtx", t, "3: expected the size line");
  snprintf(t, sizeof t, "%s2 3 1\n1 1 1\n", H);
  bad("b6.mtx", t, "2: the matrix is 2x3");
  snprintf(t, sizeof t, "%s2 2 3\n1 1 1\n2 2 1\n", H);
  bad("b7.mtx", t, "4: the file ends after 2 of its 3 entries");
  snprintf(t, sizeof t, "%s2 2 2\n1 1 1\n3 1 1\n", H);
  bad("b8.mtx", t, "4: entry (3, 1) outside the 2x2 matrix");
  snprintf(t, sizeof t, "%s2 2 2\n1 1 1\n2 1 abc\n", H);
  bad("b9.mtx", t, "4: expected an entry 'ROW COL VALUE'");
  snprintf(t, sizeof t, "%s2 2 1\n1 1 1\n2 2 1\n", H);
  bad("b10.mtx", t, "4: more entries than the 1");
  bad("b11.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n",
      "3: entry (1, 2) above the diagonal");
  snprintf(t, sizeof t, "%s2 2 2\n1 1 1 7\n2 2 1\n", H);
  bad("b12.mtx", t, "3: unexpected text after the entry");
  snprintf(t, sizeof t, "%s", H);
  bad("b13.mtx", t, "1: no size line");
  snprintf(t, sizeof t, "%s2 2 2\n1 1 1\n1 1 2\n", H);
  {
    const char *path = write_file("b14.mtx", t);
    CHECK_EQ_INT(hk_spmv_read_mm(path, MPI_COMM_NULL, 0, 2, &crs), HK_ERR_ARG);
    CHECK_CONTAINS(hk_error_message(), "entry (1, 1) appears twice");
  }
  snprintf(t, sizeof t, "%s2 2 5\n1 1 1\n", H);
  bad("b15.mtx", t, "2: 5 entries declared, more than a general 2x2 matrix has");
  bad("b16.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 1\n",
      "2: 4 entries declared, more than a symmetric 2x2 matrix has");
  /* sizes hk_spmv cannot index, refused before the body (its junk entry not reached) */
  bad("b17.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 3\n1 1 x\n",
      "2: 2000000000 rows: at most 1073741822");
  bad("b18.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 -1\n1 1 x\n",
      "2: expected the size line");

  /* memory, checked before allocating: 10^12 declared entries over 10^8 rows (40 TB) do not
   * fit; one line naming the need and the limit */
  {
    const char *path = write_file("huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                              "100000000 100000000 1000000000000\n1 1 1\n");
    CHECK_EQ_INT(hk_spmv_read_mm(path, MPI_COMM_NULL, 0, 100000000, &crs), HK_ERR_NOMEM);
    snprintf(t, sizeof t, "%s:2: 1000000000000 entries declared: rows [0, 100000000) need about "
             "40 TB here, more than the", path);
    CHECK_CONTAINS(hk_error_message(), t);
    CHECK(strchr(hk_error_message(), '\n') == NULL);
    CHECK(crs.rowptr == NULL);
    /* a block of 10 rows has its share of them: about 4 MB, read (the file then ends) */
    CHECK_EQ_INT(hk_spmv_read_mm(path, MPI_COMM_NULL, 0, 10, &crs), HK_ERR_ARG);
    CHECK_CONTAINS(hk_error_message(), "the file ends after 1 of its 1000000000000 entries");
    /* a per-process limit (ulimit -d 64 MB, in a child): 10^7 entries of 10^6 rows (400 MB)
     * are refused naming it */
    path = write_file("big.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                 "1000000 1000000 10000000\n1 1 1\n");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      struct rlimit rl;
      getrlimit(RLIMIT_DATA, &rl);
      rl.rlim_cur = 64 << 20;
      if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
        rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_DATA, &rl);
      int e = hk_spmv_read_mm(path, MPI_COMM_NULL, 0, 1000000, &crs);
      _exit(e == HK_ERR_NOMEM && strstr(hk_error_message(), "more than the 67.1 MB of "
                                        "RLIMIT_DATA (ulimit -d)") ? 0 : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  CHECK_EQ_INT(hk_spmv_read_mm("/nonexistent/x.mtx", MPI_COMM_NULL, 0, 1, &crs), HK_ERR_IO);
  CHECK_CONTAINS(hk_error_message(), "/nonexistent/x.mtx: cannot open");

  /* generators: hand counts.  7-point on 3^3: 27 diagonals + 2 * 3 * (2*3*3) = 108 off */
  long long n;
  CHECK_EQ_INT(hk_spmv_generate_size("laplace3d:3", &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 27);
  CHECK_EQ_INT(hk_spmv_generate("laplace3d:3", 0, 27, &crs), HK_SUCCESS);
  CHECK_EQ_INT(crs.rowptr[27], 27 + 108);
  CHECK_EQ_INT(crs.rowptr[14] - crs.rowptr[13], 7); /* the centre */
  hk_spmv_crs_free(&crs);
  /* 27-point on 3^3: sum over cells of (neighbours in 3x3x3 box) = (3+2+3)^3... per
   * dimension a cell at an end has 2 positions, in the middle 3: (2+3+2)^3 = 343 */
  CHECK_EQ_INT(hk_spmv_generate("laplace27:3", 0, 27, &crs), HK_SUCCESS);
  CHECK_EQ_INT(crs.rowptr[27], 343);
  hk_spmv_crs_free(&crs);
  /* random: 5 per row (band permitting), same rows whichever block generates them */
  hk_spmv_crs_t a, b;
  CHECK_EQ_INT(hk_spmv_generate("random:100,5,10", 0, 100, &a), HK_SUCCESS);
  CHECK_EQ_INT(hk_spmv_generate("random:100,5,10", 40, 10, &b), HK_SUCCESS);
  CHECK_EQ_INT(a.rowptr[100], 500);
  CHECK(memcmp(a.col + a.rowptr[40], b.col, 50 * sizeof(long long)) == 0);
  CHECK(memcmp(a.val + a.rowptr[40], b.val, 50 * sizeof(double)) == 0);
  for (int r = 0; r < 100; r++)
    for (long long e = a.rowptr[r]; e < a.rowptr[r + 1]; e++)
      CHECK(a.col[e] >= r - 10 && a.col[e] <= r + 10 && (e == a.rowptr[r] || a.col[e] > a.col[e - 1]));
  hk_spmv_crs_free(&a);
  hk_spmv_crs_free(&b);
  CHECK_EQ_INT(hk_spmv_generate_size("random:10,3", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "expected random:ROWS,NNZ,BW");
  /* more non-zeros per row than the band holds: refused, not clamped (issue 40) */
  CHECK_EQ_INT(hk_spmv_generate_size("random:10,1000,2", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "NNZ 1000 non-zeros per row: at most 5 for ROWS 10 and BW 2");
  CHECK_EQ_INT(hk_spmv_generate_size("random:3,4,9000000000000000000", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "at most 3 for ROWS 3");
  CHECK_EQ_INT(hk_spmv_generate_size("random:10,5,2", &n), HK_SUCCESS);
  CHECK_EQ_INT(hk_spmv_generate_size("laplace3d:0", &n), HK_ERR_ARG);
  CHECK_EQ_INT(hk_spmv_generate_size("foo", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "unknown matrix 'foo'");

  /* Holstein-Hubbard (entries against a brute force: tests/scripts/spmv_hh_brute.py):
   * C(8,4) C(8,4) C(8+6,8) = 70 * 70 * 3003 rows; every row of a mid-sized case has its
   * transposed entries (symmetric) and a diagonal exceeding the off-diagonal moduli by >= 1
   * (the Gershgorin shift of hh.c: SPD) */
  CHECK_EQ_INT(hk_spmv_generate_size("hh:8,4,4,6", &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 70LL * 70 * 3003);
  int rmax = 0;
  CHECK_EQ_INT(hk_spmv_generate_row_max("hh:8,4,4,6", &rmax), HK_SUCCESS);
  CHECK_EQ_INT(rmax, 1 + 2 * 8 + 2 * 8);
  CHECK_EQ_INT(hk_spmv_generate_size("hh:6,3,2,3", &n), HK_SUCCESS);
  CHECK_EQ_INT(n, 20 * 15 * 84);
  CHECK_EQ_INT(hk_spmv_generate("hh:6,3,2,3", 0, (int)n, &a), HK_SUCCESS);
  CHECK_EQ_INT(a.symmetric, 1);
  long long asym = 0, weak = 0;
  for (int r = 0; r < (int)n; r++) {
    double off = 0.0, diag = 0.0;
    for (long long e = a.rowptr[r]; e < a.rowptr[r + 1]; e++) {
      long long c = a.col[e], lo = a.rowptr[c], hi = a.rowptr[c + 1] - 1;
      while (lo < hi) { /* binary search of (c, r) */
        long long mid = (lo + hi) / 2;
        if (a.col[mid] < r)
          lo = mid + 1;
        else
          hi = mid;
      }
      asym += a.col[lo] != r || a.val[lo] != a.val[e];
      if (c == r)
        diag = a.val[e];
      else
        off += fabs(a.val[e]);
    }
    weak += diag - off < 1.0;
  }
  CHECK_EQ_INT(asym, 0);
  CHECK_EQ_INT(weak, 0);
  hk_spmv_crs_free(&a);
  CHECK_EQ_INT(hk_spmv_generate_size("hh:4,5,1,2", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "0 <= NUP, NDN <= L electrons");
  CHECK_EQ_INT(hk_spmv_generate_size("hh:4,-1,1,2", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "expected hh:L,NUP,NDN,M");
  CHECK_EQ_INT(hk_spmv_generate_size("hh:30,15,15,30", &n), HK_ERR_ARG);
  CHECK_CONTAINS(hk_error_message(), "rows is too many");

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return hk_test_report("test_spmv_mm");
}
