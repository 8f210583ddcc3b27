/* preload/hk_check_calls.h: the MPI functions libhybridkit-check.so wraps, one
 * X-macro row each: HK_CHECK_CALL(name, (parameters), (arguments)).  The
 * prototypes are MPI-3's (const send buffers), which Open MPI and MPICH both
 * declare; a row that disagrees with mpi.h fails to compile.  docs/check.md
 * lists the families; anything not here (MPI_Wtime, attribute, datatype,
 * group and info calls, I/O, MPI_*_c large-count variants) is not checked. */

/* point-to-point */
HK_CHECK_CALL(Send, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
HK_CHECK_CALL(Ssend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
HK_CHECK_CALL(Bsend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
HK_CHECK_CALL(Rsend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
              (b, n, t, d, tag, c))
HK_CHECK_CALL(Recv, (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st),
              (b, n, t, s, tag, c, st))
HK_CHECK_CALL(Isend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                      MPI_Request *r), (b, n, t, d, tag, c, r))
HK_CHECK_CALL(Issend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                       MPI_Request *r), (b, n, t, d, tag, c, r))
HK_CHECK_CALL(Ibsend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                       MPI_Request *r), (b, n, t, d, tag, c, r))
HK_CHECK_CALL(Irsend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                       MPI_Request *r), (b, n, t, d, tag, c, r))
HK_CHECK_CALL(Irecv, (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request *r),
              (b, n, t, s, tag, c, r))
HK_CHECK_CALL(Sendrecv, (const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb,
                         int rn, MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *stat),
              (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, stat))
HK_CHECK_CALL(Sendrecv_replace, (void *b, int n, MPI_Datatype t, int d, int stag, int s, int rtag,
                                 MPI_Comm c, MPI_Status *st), (b, n, t, d, stag, s, rtag, c, st))
HK_CHECK_CALL(Send_init, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                          MPI_Request *r), (b, n, t, d, tag, c, r))
HK_CHECK_CALL(Recv_init, (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c,
                          MPI_Request *r), (b, n, t, s, tag, c, r))
HK_CHECK_CALL(Start, (MPI_Request *r), (r))
HK_CHECK_CALL(Startall, (int n, MPI_Request r[]), (n, r))
HK_CHECK_CALL(Request_free, (MPI_Request *r), (r))
HK_CHECK_CALL(Cancel, (MPI_Request *r), (r))
HK_CHECK_CALL(Get_count, (const MPI_Status *st, MPI_Datatype t, int *n), (st, t, n))

/* probe */
HK_CHECK_CALL(Probe, (int s, int tag, MPI_Comm c, MPI_Status *st), (s, tag, c, st))
HK_CHECK_CALL(Iprobe, (int s, int tag, MPI_Comm c, int *f, MPI_Status *st), (s, tag, c, f, st))
HK_CHECK_CALL(Mprobe, (int s, int tag, MPI_Comm c, MPI_Message *m, MPI_Status *st),
              (s, tag, c, m, st))
HK_CHECK_CALL(Improbe, (int s, int tag, MPI_Comm c, int *f, MPI_Message *m, MPI_Status *st),
              (s, tag, c, f, m, st))
HK_CHECK_CALL(Mrecv, (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Status *st),
              (b, n, t, m, st))
HK_CHECK_CALL(Imrecv, (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Request *r),
              (b, n, t, m, r))

/* completion */
HK_CHECK_CALL(Wait, (MPI_Request *r, MPI_Status *st), (r, st))
HK_CHECK_CALL(Waitall, (int n, MPI_Request r[], MPI_Status st[]), (n, r, st))
HK_CHECK_CALL(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, st))
HK_CHECK_CALL(Waitsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status st[]),
              (n, r, k, i, st))
HK_CHECK_CALL(Test, (MPI_Request *r, int *f, MPI_Status *st), (r, f, st))
HK_CHECK_CALL(Testall, (int n, MPI_Request r[], int *f, MPI_Status st[]), (n, r, f, st))
HK_CHECK_CALL(Testany, (int n, MPI_Request r[], int *i, int *f, MPI_Status *st),
              (n, r, i, f, st))
HK_CHECK_CALL(Testsome, (int n, MPI_Request r[], int *k, int i[], MPI_Status st[]),
              (n, r, k, i, st))

/* blocking collectives */
HK_CHECK_CALL(Barrier, (MPI_Comm c), (c))
HK_CHECK_CALL(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
HK_CHECK_CALL(Reduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root,
                       MPI_Comm c), (sb, rb, n, t, op, root, c))
HK_CHECK_CALL(Allreduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (sb, rb, n, t, op, c))
HK_CHECK_CALL(Reduce_scatter_block, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                                     MPI_Comm c), (sb, rb, n, t, op, c))
HK_CHECK_CALL(Reduce_scatter, (const void *sb, void *rb, const int rn[], MPI_Datatype t,
                               MPI_Op op, MPI_Comm c), (sb, rb, rn, t, op, c))
HK_CHECK_CALL(Scan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (sb, rb, n, t, op, c))
HK_CHECK_CALL(Exscan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
              (sb, rb, n, t, op, c))
HK_CHECK_CALL(Gather, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
                       int root, MPI_Comm c), (sb, sn, st, rb, rn, rt, root, c))
HK_CHECK_CALL(Gatherv, (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[],
                        const int d[], MPI_Datatype rt, int root, MPI_Comm c),
              (sb, sn, st, rb, rn, d, rt, root, c))
HK_CHECK_CALL(Scatter, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                        MPI_Datatype rt, int root, MPI_Comm c), (sb, sn, st, rb, rn, rt, root, c))
HK_CHECK_CALL(Scatterv, (const void *sb, const int sn[], const int d[], MPI_Datatype st, void *rb,
                         int rn, MPI_Datatype rt, int root, MPI_Comm c),
              (sb, sn, d, st, rb, rn, rt, root, c))
HK_CHECK_CALL(Allgather, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                          MPI_Datatype rt, MPI_Comm c), (sb, sn, st, rb, rn, rt, c))
HK_CHECK_CALL(Allgatherv, (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[],
                           const int d[], MPI_Datatype rt, MPI_Comm c),
              (sb, sn, st, rb, rn, d, rt, c))
HK_CHECK_CALL(Alltoall, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                         MPI_Datatype rt, MPI_Comm c), (sb, sn, st, rb, rn, rt, c))
HK_CHECK_CALL(Alltoallv, (const void *sb, const int sn[], const int sd[], MPI_Datatype st,
                          void *rb, const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c),
              (sb, sn, sd, st, rb, rn, rd, rt, c))

/* non-blocking collectives */
HK_CHECK_CALL(Ibarrier, (MPI_Comm c, MPI_Request *r), (c, r))
HK_CHECK_CALL(Ibcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r),
              (b, n, t, root, c, r))
HK_CHECK_CALL(Ireduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root,
                        MPI_Comm c, MPI_Request *r), (sb, rb, n, t, op, root, c, r))
HK_CHECK_CALL(Iallreduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                           MPI_Comm c, MPI_Request *r), (sb, rb, n, t, op, c, r))
HK_CHECK_CALL(Iallgather, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                           MPI_Datatype rt, MPI_Comm c, MPI_Request *r),
              (sb, sn, st, rb, rn, rt, c, r))
HK_CHECK_CALL(Ialltoall, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                          MPI_Datatype rt, MPI_Comm c, MPI_Request *r),
              (sb, sn, st, rb, rn, rt, c, r))

/* neighbourhood collectives */
HK_CHECK_CALL(Neighbor_alltoall, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                                  MPI_Datatype rt, MPI_Comm c), (sb, sn, st, rb, rn, rt, c))
HK_CHECK_CALL(Neighbor_allgather, (const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                                   MPI_Datatype rt, MPI_Comm c), (sb, sn, st, rb, rn, rt, c))

/* communicators and topologies (collective over the communicator) */
HK_CHECK_CALL(Comm_rank, (MPI_Comm c, int *r), (c, r))
HK_CHECK_CALL(Comm_size, (MPI_Comm c, int *n), (c, n))
HK_CHECK_CALL(Comm_dup, (MPI_Comm c, MPI_Comm *n), (c, n))
HK_CHECK_CALL(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm *n), (c, color, key, n))
HK_CHECK_CALL(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm *n),
              (c, type, key, i, n))
HK_CHECK_CALL(Comm_free, (MPI_Comm *c), (c))
HK_CHECK_CALL(Cart_create, (MPI_Comm c, int nd, const int dims[], const int per[], int reorder,
                            MPI_Comm *n), (c, nd, dims, per, reorder, n))
HK_CHECK_CALL(Cart_shift, (MPI_Comm c, int dir, int disp, int *s, int *d), (c, dir, disp, s, d))

/* one-sided */
HK_CHECK_CALL(Win_fence, (int a, MPI_Win w), (a, w))
HK_CHECK_CALL(Put, (const void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn,
                    MPI_Datatype tt, MPI_Win w), (ob, on, ot, tr, td, tn, tt, w))
HK_CHECK_CALL(Get, (void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn,
                    MPI_Datatype tt, MPI_Win w), (ob, on, ot, tr, td, tn, tt, w))
