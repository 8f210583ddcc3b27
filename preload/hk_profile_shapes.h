/* preload/hk_profile_shapes.h: what each MPI function of hk_check_calls.h moves,
 * for libhybridkit-profile.so: one macro SHAPE_<name>(arguments) per row of that
 * table, giving a shape_t (hk_profile.c) from the call's own arguments:
 *
 *   SEND(n, type, peer, comm)   point-to-point, sent bytes, to peer (a rank of comm)
 *   RECV(n, type, peer, comm)   point-to-point, the posted receive buffer's bytes
 *   COLL(bytes, comm)           collective: the bytes this rank contributes
 *   ALLRED(n, type, comm)       MPI_Allreduce / MPI_Iallreduce (histogrammed apart)
 *   BYTES(n, type)              moves bytes, no peer known here (one-sided, matched receive)
 *   NONE                        moves nothing itself (completion, probes, communicators)
 *
 * A row of hk_check_calls.h without its SHAPE_ here fails to compile.  Persistent
 * requests (Send_init/Recv_init) count no bytes: Start does not see the buffer. */
#ifndef HK_PROFILE_SHAPES_H
#define HK_PROFILE_SHAPES_H

/* point-to-point */
#define SHAPE_Send(b, n, t, d, tag, c) SEND(n, t, d, c)
#define SHAPE_Ssend(b, n, t, d, tag, c) SEND(n, t, d, c)
#define SHAPE_Bsend(b, n, t, d, tag, c) SEND(n, t, d, c)
#define SHAPE_Rsend(b, n, t, d, tag, c) SEND(n, t, d, c)
#define SHAPE_Recv(b, n, t, s, tag, c, st) RECV(n, t, s, c)
#define SHAPE_Isend(b, n, t, d, tag, c, r) SEND(n, t, d, c)
#define SHAPE_Issend(b, n, t, d, tag, c, r) SEND(n, t, d, c)
#define SHAPE_Ibsend(b, n, t, d, tag, c, r) SEND(n, t, d, c)
#define SHAPE_Irsend(b, n, t, d, tag, c, r) SEND(n, t, d, c)
#define SHAPE_Irecv(b, n, t, s, tag, c, r) RECV(n, t, s, c)
#define SHAPE_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, stat) SEND(sn, st, d, c)
#define SHAPE_Sendrecv_replace(b, n, t, d, stag, s, rtag, c, st) SEND(n, t, d, c)
#define SHAPE_Send_init(b, n, t, d, tag, c, r) NONE
#define SHAPE_Recv_init(b, n, t, s, tag, c, r) NONE
#define SHAPE_Start(r) NONE
#define SHAPE_Startall(n, r) NONE
#define SHAPE_Request_free(r) NONE
#define SHAPE_Cancel(r) NONE
#define SHAPE_Get_count(st, t, n) NONE

/* probe */
#define SHAPE_Probe(s, tag, c, st) NONE
#define SHAPE_Iprobe(s, tag, c, f, st) NONE
#define SHAPE_Mprobe(s, tag, c, m, st) NONE
#define SHAPE_Improbe(s, tag, c, f, m, st) NONE
#define SHAPE_Mrecv(b, n, t, m, st) BYTES(n, t)
#define SHAPE_Imrecv(b, n, t, m, r) BYTES(n, t)

/* completion */
#define SHAPE_Wait(r, st) NONE
#define SHAPE_Waitall(n, r, st) NONE
#define SHAPE_Waitany(n, r, i, st) NONE
#define SHAPE_Waitsome(n, r, k, i, st) NONE
#define SHAPE_Test(r, f, st) NONE
#define SHAPE_Testall(n, r, f, st) NONE
#define SHAPE_Testany(n, r, i, f, st) NONE
#define SHAPE_Testsome(n, r, k, i, st) NONE

/* blocking collectives: the bytes of this rank's contribution */
#define SHAPE_Barrier(c) COLL(0, c)
#define SHAPE_Bcast(b, n, t, root, c) COLL(tbytes(n, t), c)
#define SHAPE_Reduce(sb, rb, n, t, op, root, c) COLL(tbytes(n, t), c)
#define SHAPE_Allreduce(sb, rb, n, t, op, c) ALLRED(n, t, c)
#define SHAPE_Reduce_scatter_block(sb, rb, n, t, op, c) COLL(tbytes(n, t), c)
#define SHAPE_Reduce_scatter(sb, rb, rn, t, op, c) COLL(vbytes(rn, t, c), c)
#define SHAPE_Scan(sb, rb, n, t, op, c) COLL(tbytes(n, t), c)
#define SHAPE_Exscan(sb, rb, n, t, op, c) COLL(tbytes(n, t), c)
#define SHAPE_Gather(sb, sn, st, rb, rn, rt, root, c) COLL(tbytes(sn, st), c)
#define SHAPE_Gatherv(sb, sn, st, rb, rn, d, rt, root, c) COLL(tbytes(sn, st), c)
#define SHAPE_Scatter(sb, sn, st, rb, rn, rt, root, c) COLL(tbytes(rn, rt), c)
#define SHAPE_Scatterv(sb, sn, d, st, rb, rn, rt, root, c) COLL(tbytes(rn, rt), c)
#define SHAPE_Allgather(sb, sn, st, rb, rn, rt, c) COLL(tbytes(sn, st), c)
#define SHAPE_Allgatherv(sb, sn, st, rb, rn, d, rt, c) COLL(tbytes(sn, st), c)
#define SHAPE_Alltoall(sb, sn, st, rb, rn, rt, c) COLL(tbytes(sn, st) * csize(c), c)
#define SHAPE_Alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c) COLL(vbytes(sn, st, c), c)

/* non-blocking collectives */
#define SHAPE_Ibarrier(c, r) COLL(0, c)
#define SHAPE_Ibcast(b, n, t, root, c, r) COLL(tbytes(n, t), c)
#define SHAPE_Ireduce(sb, rb, n, t, op, root, c, r) COLL(tbytes(n, t), c)
#define SHAPE_Iallreduce(sb, rb, n, t, op, c, r) ALLRED(n, t, c)
#define SHAPE_Iallgather(sb, sn, st, rb, rn, rt, c, r) COLL(tbytes(sn, st), c)
#define SHAPE_Ialltoall(sb, sn, st, rb, rn, rt, c, r) COLL(tbytes(sn, st) * csize(c), c)

/* neighbourhood collectives */
#define SHAPE_Neighbor_alltoall(sb, sn, st, rb, rn, rt, c) COLL(tbytes(sn, st), c)
#define SHAPE_Neighbor_allgather(sb, sn, st, rb, rn, rt, c) COLL(tbytes(sn, st), c)

/* communicators: a freed communicator leaves the profiler's cache first */
#define SHAPE_Comm_rank(c, r) NONE
#define SHAPE_Comm_size(c, n) NONE
#define SHAPE_Comm_dup(c, n) NONE
#define SHAPE_Comm_split(c, color, key, n) NONE
#define SHAPE_Comm_split_type(c, type, key, i, n) NONE
#define SHAPE_Comm_free(c) FORGET(c)
#define SHAPE_Cart_create(c, nd, dims, per, reorder, n) NONE
#define SHAPE_Cart_shift(c, dir, disp, s, d) NONE

/* one-sided */
#define SHAPE_Win_fence(a, w) NONE
#define SHAPE_Put(ob, on, ot, tr, td, tn, tt, w) BYTES(on, ot)
#define SHAPE_Get(ob, on, ot, tr, td, tn, tt, w) BYTES(on, ot)

#endif
