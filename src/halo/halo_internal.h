/* src/halo/halo_internal.h: the halo plan shared by the plan, the exchange
 * primitives and the mode implementations (never installed).
 *
 * Message i of the plan is one neighbour offset d (same index for sending and
 * receiving): send[i] carries my owned cells on side d to the neighbour at d
 * (tag of d), recv[i] fills my ghost cells on side d from that neighbour (tag of
 * -d, the direction it sent in).  A self neighbour is a copy: recv[i] then reads
 * send[j]'s buffer where j is the message of offset -d; the rows of send[j] copy
 * owned cells straight into recv[i]'s ghost cells when they are packed (the two
 * boxes have the same shape, so their rows pair up one to one).
 */
#ifndef HK_HALO_INTERNAL_H
#define HK_HALO_INTERNAL_H

#include "internal/hk_internal.h"
#include "hybridkit/halo.h"
#include "modes/modes_internal.h"

enum { HK_PEER_SELF = 0, HK_PEER_INTRA = 1, HK_PEER_INTER = 2 };

/* boxes whose x-runs are at most this long get one row per z-plane */
#define HK_SHORT_RUN 4

typedef struct hk_msg {
  int offset[3];
  int peer;             /* rank in the halo communicator */
  int kind;             /* HK_PEER_* */
  hk_box_t box;         /* send: owned cells on side offset; recv: ghost cells there */
  size_t count;         /* doubles */
  double *buf;          /* send: my send buffer; recv: where its data arrives (for self:
                           the matching send buffer) */
  int row_begin, row_end; /* its rows in the plan's row table */
} hk_msg_t;

/* the index 0..26 of a neighbour offset in {-1,0,1}^3: the message tag of the exchange
 * and the key that pairs a self message with its opposite */
static inline int hk__offset_index(const int d[3])
{
  return (d[0] + 1) + 3 * (d[1] + 1) + 9 * (d[2] + 1);
}

/* A piece of a message box: `count` x-runs of `len` cells, `stride` apart in the
 * field (consecutive in the buffer).  Boxes with long x-runs get one row per
 * (y, z) line, count 1; boxes with short runs (the x-faces, w cells wide) one row
 * per z-plane covering all its y-lines, so no descriptor is read per cell. */
typedef struct hk_row {
  long long at;         /* field index of the first cell */
  long long stride;     /* between runs (the y stride) */
  int len;              /* cells per run */
  int count;            /* runs */
  int msg;
  double *buf;          /* where the row starts in the message buffer */
  int self;             /* a row of a self message: the send row copies straight into
                           the ghost cells at self_at when packed (no buffer), the
                           receive row has nothing to unpack */
  long long self_at;
} hk_row_t;

struct hk_halo {
  hk_halo_desc_t desc;
  MPI_Comm comm;        /* a duplicate of the cart communicator: halo traffic is apart */
  int rank;
  int nthreads;         /* threads the mode runs with */
  int reserved;         /* communicating threads of multiple-reserved (task modes: 1) */
  int radius;
  int has_nb[3][2];     /* side (dim, -/+) has a neighbour (self included) */
  hk_field_layout_t L;
  int nmsg;
  hk_msg_t *send, *recv;
  hk_row_t *send_rows, *recv_rows;
  int nsend_rows, nrecv_rows;
  double *sendbuf, *recvbuf;
  MPI_Request *sreq, *rreq;
  hk_mode_times_t split; /* hk_halo_begin's times until hk_halo_end folds them */
  hk_halo_stats_t stats;
};

/* ---- exchange.c: the operations the mode engine runs (src/modes), each safe to call
 * inside a parallel region ---- */
/* Pack/unpack rows [first, last) of the send/recv row table. */
void hk__halo_pack_rows(const hk_halo_t *h, double *field, int first, int last);
void hk__halo_unpack_rows(const hk_halo_t *h, double *field, int first, int last);
/* Post / wait for messages i = first, first+stride, ... (Irecv before Isend); they call
 * MPI and return HK_SUCCESS or an error. */
int hk__halo_post(hk_halo_t *h, int first, int stride);
int hk__halo_wait(hk_halo_t *h, int first, int stride);
/* part `part` of `parts` of a box, split along its outermost dimension that is
 * long enough (the same split everywhere, so first touch matches the updates). */
void hk__box_split(const hk_box_t *box, int parts, int part, hk_box_t *out);
int hk__box_empty(const hk_box_t *box);
/* Apply work to part `part` of `parts` of each box of a list (static split). */
void hk__update_boxes(const hk_halo_work_t *work, const hk_box_t *boxes, int nboxes, int parts,
                      int part);
/* Add one exchange's times to the statistics. */
void hk__halo_account(hk_halo_t *h, const hk_mode_times_t *t);

#endif
