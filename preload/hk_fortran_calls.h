/* preload/hk_fortran_calls.h: the Fortran side of hk_check_calls.h, one X-macro row
 * per row there, in the same order (hk_fortran.c checks it):
 *
 *   HK_FORTRAN_CALL(Name, name, B|H, (Fortran parameters), (C arguments))
 *
 * `name` is the lower-case Fortran name (gfortran: mpi_<name>_; mpi_f08:
 * mpi_<name>_f08_; hk_fortran.c appends the ierror parameter).  B: the call has a
 * choice buffer (MPICH's mpi_f08 then names it mpi_<name>_f08ts_, takes a
 * descriptor and calls the C MPI_<Name>: not taken here), H: handles only (MPICH's
 * mpi_<name>_f08_ calls PMPI_<Name>: taken here).  Every
 * Fortran parameter is passed by reference: FB a choice buffer, FI an INTEGER
 * (MPI_Fint; also a handle, and a LOGICAL), FA an INTEGER(KIND=MPI_ADDRESS_KIND).
 * The C arguments convert them with hk_fortran.c's helpers, which keep what must
 * be written back after the call in the call's record FX:
 *
 *   fb(b)            buffer; Fortran MPI_IN_PLACE / MPI_BOTTOM -> C
 *   fty fcm fop finf fwin (h)   handle f2c: datatype, communicator, op, info, window
 *   flog(l)          LOGICAL -> int          flogs(FX, n, l)  LOGICAL array -> int[]
 *   fst(FX, s)       status out (MPI_STATUS_IGNORE kept)   fsti(FX, s) status in
 *   fsts(FX, n, k, s)  statuses out, room for *n, *k of them written back after the
 *                    call (MPI_STATUSES_IGNORE kept)
 *   freq(FX, r)      request out / in-out    freqs(FX, n, r)  n requests in-out
 *   fcmo(FX, c)      communicator out / in-out   fmsg(FX, m)  message out / in-out
 *   fflag(FX, f)     LOGICAL out             fidx(FX, i)  index out (+1, 1-based)
 *   fidxs(FX, k, i)  *k indices out (+1)     (int *)x     INTEGER out or array in
 *
 * A row that disagrees with hk_check_calls.h fails to compile (hk__tool_<Name>'s
 * prototype). */

/* point-to-point */
HK_FORTRAN_CALL(Send, send, B, (FB b, FI n, FI t, FI d, FI tag, FI c),
                (fb(b), *n, fty(t), *d, *tag, fcm(c)))
HK_FORTRAN_CALL(Ssend, ssend, B, (FB b, FI n, FI t, FI d, FI tag, FI c),
                (fb(b), *n, fty(t), *d, *tag, fcm(c)))
HK_FORTRAN_CALL(Bsend, bsend, B, (FB b, FI n, FI t, FI d, FI tag, FI c),
                (fb(b), *n, fty(t), *d, *tag, fcm(c)))
HK_FORTRAN_CALL(Rsend, rsend, B, (FB b, FI n, FI t, FI d, FI tag, FI c),
                (fb(b), *n, fty(t), *d, *tag, fcm(c)))
HK_FORTRAN_CALL(Recv, recv, B, (FB b, FI n, FI t, FI s, FI tag, FI c, FI st),
                (fb(b), *n, fty(t), *s, *tag, fcm(c), fst(FX, st)))
HK_FORTRAN_CALL(Isend, isend, B, (FB b, FI n, FI t, FI d, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *d, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Issend, issend, B, (FB b, FI n, FI t, FI d, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *d, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Ibsend, ibsend, B, (FB b, FI n, FI t, FI d, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *d, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Irsend, irsend, B, (FB b, FI n, FI t, FI d, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *d, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Irecv, irecv, B, (FB b, FI n, FI t, FI s, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *s, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Sendrecv, sendrecv, B,
                (FB sb, FI sn, FI st, FI d, FI stag, FB rb, FI rn, FI rt, FI s, FI rtag, FI c,
                 FI stat),
                (fb(sb), *sn, fty(st), *d, *stag, fb(rb), *rn, fty(rt), *s, *rtag, fcm(c),
                 fst(FX, stat)))
HK_FORTRAN_CALL(Sendrecv_replace, sendrecv_replace, B,
                (FB b, FI n, FI t, FI d, FI stag, FI s, FI rtag, FI c, FI st),
                (fb(b), *n, fty(t), *d, *stag, *s, *rtag, fcm(c), fst(FX, st)))
HK_FORTRAN_CALL(Send_init, send_init, B, (FB b, FI n, FI t, FI d, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *d, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Recv_init, recv_init, B, (FB b, FI n, FI t, FI s, FI tag, FI c, FI r),
                (fb(b), *n, fty(t), *s, *tag, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Start, start, H, (FI r), (freq(FX, r)))
HK_FORTRAN_CALL(Startall, startall, H, (FI n, FI r), (*n, freqs(FX, n, r)))
HK_FORTRAN_CALL(Request_free, request_free, H, (FI r), (freq(FX, r)))
HK_FORTRAN_CALL(Cancel, cancel, H, (FI r), (freq(FX, r)))
HK_FORTRAN_CALL(Get_count, get_count, H, (FI st, FI t, FI n), (fsti(FX, st), fty(t), (int *)n))

/* probe */
HK_FORTRAN_CALL(Probe, probe, H, (FI s, FI tag, FI c, FI st), (*s, *tag, fcm(c), fst(FX, st)))
HK_FORTRAN_CALL(Iprobe, iprobe, H, (FI s, FI tag, FI c, FI f, FI st),
                (*s, *tag, fcm(c), fflag(FX, f), fst(FX, st)))
HK_FORTRAN_CALL(Mprobe, mprobe, H, (FI s, FI tag, FI c, FI m, FI st),
                (*s, *tag, fcm(c), fmsg(FX, m), fst(FX, st)))
HK_FORTRAN_CALL(Improbe, improbe, H, (FI s, FI tag, FI c, FI f, FI m, FI st),
                (*s, *tag, fcm(c), fflag(FX, f), fmsg(FX, m), fst(FX, st)))
HK_FORTRAN_CALL(Mrecv, mrecv, B, (FB b, FI n, FI t, FI m, FI st),
                (fb(b), *n, fty(t), fmsg(FX, m), fst(FX, st)))
HK_FORTRAN_CALL(Imrecv, imrecv, B, (FB b, FI n, FI t, FI m, FI r),
                (fb(b), *n, fty(t), fmsg(FX, m), freq(FX, r)))

/* completion */
HK_FORTRAN_CALL(Wait, wait, H, (FI r, FI st), (freq(FX, r), fst(FX, st)))
HK_FORTRAN_CALL(Waitall, waitall, H, (FI n, FI r, FI st), (*n, freqs(FX, n, r), fsts(FX, n, n, st)))
HK_FORTRAN_CALL(Waitany, waitany, H, (FI n, FI r, FI i, FI st),
                (*n, freqs(FX, n, r), fidx(FX, i), fst(FX, st)))
HK_FORTRAN_CALL(Waitsome, waitsome, H, (FI n, FI r, FI k, FI i, FI st),
                (*n, freqs(FX, n, r), (int *)k, fidxs(FX, k, i), fsts(FX, n, k, st)))
HK_FORTRAN_CALL(Test, test, H, (FI r, FI f, FI st), (freq(FX, r), fflag(FX, f), fst(FX, st)))
HK_FORTRAN_CALL(Testall, testall, H, (FI n, FI r, FI f, FI st),
                (*n, freqs(FX, n, r), fflag(FX, f), fsts(FX, n, n, st)))
HK_FORTRAN_CALL(Testany, testany, H, (FI n, FI r, FI i, FI f, FI st),
                (*n, freqs(FX, n, r), fidx(FX, i), fflag(FX, f), fst(FX, st)))
HK_FORTRAN_CALL(Testsome, testsome, H, (FI n, FI r, FI k, FI i, FI st),
                (*n, freqs(FX, n, r), (int *)k, fidxs(FX, k, i), fsts(FX, n, k, st)))

/* blocking collectives */
HK_FORTRAN_CALL(Barrier, barrier, H, (FI c), (fcm(c)))
HK_FORTRAN_CALL(Bcast, bcast, B, (FB b, FI n, FI t, FI root, FI c),
                (fb(b), *n, fty(t), *root, fcm(c)))
HK_FORTRAN_CALL(Reduce, reduce, B, (FB sb, FB rb, FI n, FI t, FI op, FI root, FI c),
                (fb(sb), fb(rb), *n, fty(t), fop(op), *root, fcm(c)))
HK_FORTRAN_CALL(Allreduce, allreduce, B, (FB sb, FB rb, FI n, FI t, FI op, FI c),
                (fb(sb), fb(rb), *n, fty(t), fop(op), fcm(c)))
HK_FORTRAN_CALL(Reduce_scatter_block, reduce_scatter_block, B, (FB sb, FB rb, FI n, FI t, FI op, FI c),
                (fb(sb), fb(rb), *n, fty(t), fop(op), fcm(c)))
HK_FORTRAN_CALL(Reduce_scatter, reduce_scatter, B, (FB sb, FB rb, FI rn, FI t, FI op, FI c),
                (fb(sb), fb(rb), (int *)rn, fty(t), fop(op), fcm(c)))
HK_FORTRAN_CALL(Scan, scan, B, (FB sb, FB rb, FI n, FI t, FI op, FI c),
                (fb(sb), fb(rb), *n, fty(t), fop(op), fcm(c)))
HK_FORTRAN_CALL(Exscan, exscan, B, (FB sb, FB rb, FI n, FI t, FI op, FI c),
                (fb(sb), fb(rb), *n, fty(t), fop(op), fcm(c)))
HK_FORTRAN_CALL(Gather, gather, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI root, FI c),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), *root, fcm(c)))
HK_FORTRAN_CALL(Gatherv, gatherv, B,
                (FB sb, FI sn, FI st, FB rb, FI rn, FI d, FI rt, FI root, FI c),
                (fb(sb), *sn, fty(st), fb(rb), (int *)rn, (int *)d, fty(rt), *root, fcm(c)))
HK_FORTRAN_CALL(Scatter, scatter, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI root, FI c),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), *root, fcm(c)))
HK_FORTRAN_CALL(Scatterv, scatterv, B,
                (FB sb, FI sn, FI d, FI st, FB rb, FI rn, FI rt, FI root, FI c),
                (fb(sb), (int *)sn, (int *)d, fty(st), fb(rb), *rn, fty(rt), *root, fcm(c)))
HK_FORTRAN_CALL(Allgather, allgather, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI c),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), fcm(c)))
HK_FORTRAN_CALL(Allgatherv, allgatherv, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI d, FI rt, FI c),
                (fb(sb), *sn, fty(st), fb(rb), (int *)rn, (int *)d, fty(rt), fcm(c)))
HK_FORTRAN_CALL(Alltoall, alltoall, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI c),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), fcm(c)))
HK_FORTRAN_CALL(Alltoallv, alltoallv, B,
                (FB sb, FI sn, FI sd, FI st, FB rb, FI rn, FI rd, FI rt, FI c),
                (fb(sb), (int *)sn, (int *)sd, fty(st), fb(rb), (int *)rn, (int *)rd, fty(rt),
                 fcm(c)))

/* non-blocking collectives */
HK_FORTRAN_CALL(Ibarrier, ibarrier, H, (FI c, FI r), (fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Ibcast, ibcast, B, (FB b, FI n, FI t, FI root, FI c, FI r),
                (fb(b), *n, fty(t), *root, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Ireduce, ireduce, B, (FB sb, FB rb, FI n, FI t, FI op, FI root, FI c, FI r),
                (fb(sb), fb(rb), *n, fty(t), fop(op), *root, fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Iallreduce, iallreduce, B, (FB sb, FB rb, FI n, FI t, FI op, FI c, FI r),
                (fb(sb), fb(rb), *n, fty(t), fop(op), fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Iallgather, iallgather, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI c, FI r),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), fcm(c), freq(FX, r)))
HK_FORTRAN_CALL(Ialltoall, ialltoall, B, (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI c, FI r),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), fcm(c), freq(FX, r)))

/* neighbourhood collectives */
HK_FORTRAN_CALL(Neighbor_alltoall, neighbor_alltoall, B,
                (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI c),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), fcm(c)))
HK_FORTRAN_CALL(Neighbor_allgather, neighbor_allgather, B,
                (FB sb, FI sn, FI st, FB rb, FI rn, FI rt, FI c),
                (fb(sb), *sn, fty(st), fb(rb), *rn, fty(rt), fcm(c)))

/* communicators and topologies */
HK_FORTRAN_CALL(Comm_rank, comm_rank, H, (FI c, FI r), (fcm(c), (int *)r))
HK_FORTRAN_CALL(Comm_size, comm_size, H, (FI c, FI n), (fcm(c), (int *)n))
HK_FORTRAN_CALL(Comm_dup, comm_dup, H, (FI c, FI n), (fcm(c), fcmo(FX, n)))
HK_FORTRAN_CALL(Comm_split, comm_split, H, (FI c, FI color, FI key, FI n),
                (fcm(c), *color, *key, fcmo(FX, n)))
HK_FORTRAN_CALL(Comm_split_type, comm_split_type, H, (FI c, FI type, FI key, FI i, FI n),
                (fcm(c), *type, *key, finf(i), fcmo(FX, n)))
HK_FORTRAN_CALL(Comm_free, comm_free, H, (FI c), (fcmo(FX, c)))
HK_FORTRAN_CALL(Cart_create, cart_create, H, (FI c, FI nd, FI dims, FI per, FI reorder, FI n),
                (fcm(c), *nd, (int *)dims, flogs(FX, nd, per), flog(reorder), fcmo(FX, n)))
HK_FORTRAN_CALL(Cart_shift, cart_shift, H, (FI c, FI dir, FI disp, FI s, FI d),
                (fcm(c), *dir, *disp, (int *)s, (int *)d))

/* one-sided */
HK_FORTRAN_CALL(Win_fence, win_fence, H, (FI a, FI w), (*a, fwin(w)))
HK_FORTRAN_CALL(Put, put, B, (FB ob, FI on, FI ot, FI tr, FA td, FI tn, FI tt, FI w),
                (fb(ob), *on, fty(ot), *tr, *td, *tn, fty(tt), fwin(w)))
HK_FORTRAN_CALL(Get, get, B, (FB ob, FI on, FI ot, FI tr, FA td, FI tn, FI tt, FI w),
                (fb(ob), *on, fty(ot), *tr, *td, *tn, fty(tt), fwin(w)))
