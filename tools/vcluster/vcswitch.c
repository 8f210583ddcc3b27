/* vcswitch: a userspace Ethernet switch with a fixed per-frame delay (tc netem substitute).
 *
 *   vcswitch DELAY_US RATE_MBIT IFNAME NETNS...
 *
 * For every NETNS (a name under /run/netns or /var/run/netns, or a path) it enters that
 * network namespace, opens /dev/net/tun there and creates the TAP device IFNAME
 * (IFF_TAP | IFF_NO_PI), then returns to its own namespace: nothing is created in the
 * namespace vcswitch runs in.  The TAPs are not persistent, so they vanish when vcswitch
 * exits (SIGTERM/SIGINT/SIGHUP: clean exit).  It prints "ready" once all TAPs exist.
 * Addresses, MTU and link state are set by the caller (ip -n NETNS ...).
 *
 * Forwarding: learning switch (unknown and multicast destinations are flooded to all other
 * ports).  Each frame is held DELAY_US microseconds from its arrival; with RATE_MBIT > 0 it is
 * also serialised at that rate per output port (FIFO).  Per-port queue of QLEN frames; when a
 * queue is full vcswitch stops reading (back-pressure into the TAPs' kernel queues).
 *
 * Waiting: by default it sleeps (ppoll with ns timeout, timer slack 1 ns) until the next frame is
 * due.  VCSWITCH_SPIN_US=S: when the next frame is due within S us it busy-waits (with
 * sched_yield) instead -- more precise, but the MPI ranks must then yield too
 * (--mca mpi_yield_when_idle 1).  VCSWITCH_RTPRIO=P (1..99): run SCHED_FIFO at priority P, so a
 * due frame preempts busy-polling ranks (falls back to normal scheduling if refused).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAXPORTS 64
#define FRAME 9216 /* >= MTU 9000 + Ethernet header */
#define QLEN 1024  /* frames per output port */
#define MACS 1024

struct slot {
  uint64_t t; /* departure time, ns (CLOCK_MONOTONIC) */
  uint32_t len;
  unsigned char *buf;
};
struct port {
  int fd;
  const char *ns;
  struct slot *q;
  unsigned head, tail; /* ring: count = tail - head */
  uint64_t next_free;  /* rate pacing */
  unsigned long rx, tx, drop;
};

static struct port ports[MAXPORTS];
static int nports;
static struct {
  unsigned char mac[6];
  int port;
} macs[MACS];
static int nmacs;
static volatile sig_atomic_t stop;

static void on_sig(int s) { (void)s; stop = 1; }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_ns(const char *name) {
  char p[600];
  if (strchr(name, '/')) return open(name, O_RDONLY | O_CLOEXEC);
  snprintf(p, sizeof p, "/run/netns/%s", name);
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(p, sizeof p, "/var/run/netns/%s", name);
    fd = open(p, O_RDONLY | O_CLOEXEC);
  }
  return fd;
}

/* create TAP ifname inside namespace ns; returns its fd or -1 */
static int make_tap(const char *ns, const char *ifname, int selfns) {
  int nsfd = open_ns(ns);
  if (nsfd < 0) {
    fprintf(stderr, "vcswitch: network namespace %s: %s\n", ns, strerror(errno));
    return -1;
  }
  if (setns(nsfd, CLONE_NEWNET) != 0) {
    fprintf(stderr, "vcswitch: setns(%s): %s\n", ns, strerror(errno));
    close(nsfd);
    return -1;
  }
  close(nsfd);
  /* the tun device is bound to the namespace it is opened in */
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "vcswitch: open /dev/net/tun in %s: %s\n", ns, strerror(errno));
  } else {
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
      fprintf(stderr, "vcswitch: TUNSETIFF %s in %s: %s\n", ifname, ns, strerror(errno));
      close(fd);
      fd = -1;
    }
  }
  if (setns(selfns, CLONE_NEWNET) != 0) {
    fprintf(stderr, "vcswitch: cannot return to own namespace: %s\n", strerror(errno));
    exit(1);
  }
  return fd;
}

static unsigned qcount(const struct port *p) { return p->tail - p->head; }

static uint64_t delay_ns, rate_mbit;

static void enqueue(struct port *p, const unsigned char *f, uint32_t len, uint64_t t) {
  if (qcount(p) >= QLEN) { p->drop++; return; }
  uint64_t dep = t + delay_ns;
  if (rate_mbit) {
    if (p->next_free > dep) dep = p->next_free;
    dep += (uint64_t)len * 8000u / rate_mbit; /* serialisation time, ns */
    p->next_free = dep;
  } else if (qcount(p) && p->q[(p->tail - 1) % QLEN].t > dep) {
    dep = p->q[(p->tail - 1) % QLEN].t; /* keep FIFO order */
  }
  struct slot *s = &p->q[p->tail % QLEN];
  memcpy(s->buf, f, len);
  s->len = len;
  s->t = dep;
  p->tail++;
}

static void forward(int in, const unsigned char *f, uint32_t len, uint64_t t) {
  if (len < 14) return;
  const unsigned char *dst = f, *src = f + 6;
  int i, out = -1;
  if (!(src[0] & 1)) { /* learn the source address */
    for (i = 0; i < nmacs && memcmp(macs[i].mac, src, 6); i++) {}
    if (i == nmacs && nmacs < MACS) { memcpy(macs[i].mac, src, 6); nmacs++; }
    if (i < MACS) macs[i].port = in;
  }
  if (!(dst[0] & 1))
    for (i = 0; i < nmacs; i++)
      if (!memcmp(macs[i].mac, dst, 6)) { out = macs[i].port; break; }
  if (out == in) return;
  if (out >= 0) { enqueue(&ports[out], f, len, t); return; }
  for (i = 0; i < nports; i++)
    if (i != in) enqueue(&ports[i], f, len, t);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: vcswitch DELAY_US RATE_MBIT(0=unlimited) IFNAME NETNS...\n");
    return 2;
  }
  char *end;
  double d = strtod(argv[1], &end);
  if (*end || d < 0 || d > 10e6) { fprintf(stderr, "vcswitch: bad DELAY_US '%s'\n", argv[1]); return 2; }
  delay_ns = (uint64_t)(d * 1000.0 + 0.5);
  rate_mbit = strtoull(argv[2], &end, 10);
  if (*end) { fprintf(stderr, "vcswitch: bad RATE_MBIT '%s'\n", argv[2]); return 2; }
  const char *ifname = argv[3];
  if (strlen(ifname) >= IFNAMSIZ) { fprintf(stderr, "vcswitch: interface name too long\n"); return 2; }
  nports = argc - 4;
  if (nports > MAXPORTS) { fprintf(stderr, "vcswitch: at most %d namespaces\n", MAXPORTS); return 2; }
  const char *e = getenv("VCSWITCH_SPIN_US");
  uint64_t spin_ns = e ? (uint64_t)(atof(e) * 1000.0) : 0;
  e = getenv("VCSWITCH_RTPRIO");
  int rtprio = e ? atoi(e) : 0;

  sigset_t block, orig;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGHUP);
  sigprocmask(SIG_BLOCK, &block, &orig);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sig;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sigdelset(&orig, SIGTERM);
  sigdelset(&orig, SIGINT);
  sigdelset(&orig, SIGHUP);

  int selfns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (selfns < 0) { perror("vcswitch: /proc/self/ns/net"); return 1; }
  for (int i = 0; i < nports; i++) {
    ports[i].ns = argv[4 + i];
    ports[i].fd = make_tap(argv[4 + i], ifname, selfns);
    if (ports[i].fd < 0) return 1; /* TAPs made so far vanish with us */
    ports[i].q = calloc(QLEN, sizeof(struct slot));
    unsigned char *bufs = malloc((size_t)QLEN * FRAME); /* touched only as used */
    if (!ports[i].q || !bufs) { fprintf(stderr, "vcswitch: out of memory\n"); return 1; }
    for (int j = 0; j < QLEN; j++) ports[i].q[j].buf = bufs + (size_t)j * FRAME;
  }
  close(selfns);
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  if (rtprio > 0) {
    struct sched_param sp = {.sched_priority = rtprio};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
      fprintf(stderr, "vcswitch: SCHED_FIFO %d refused (%s); normal scheduling\n", rtprio, strerror(errno));
  }
  printf("vcswitch: %d ports %s, delay %.3f us, rate %llu Mbit/s%s, spin %.0f us, rtprio %d\nready\n",
         nports, ifname, delay_ns / 1000.0, (unsigned long long)rate_mbit, rate_mbit ? "" : " (unlimited)",
         spin_ns / 1000.0, rtprio);
  fflush(stdout);

  struct pollfd pfd[MAXPORTS];
  static unsigned char rxbuf[FRAME];
  while (!stop) {
    uint64_t now = now_ns(), next = UINT64_MAX;
    int room = 1;
    for (int i = 0; i < nports; i++) {
      struct port *p = &ports[i];
      while (qcount(p) && p->q[p->head % QLEN].t <= now) {
        struct slot *s = &p->q[p->head % QLEN];
        if (write(p->fd, s->buf, s->len) == (ssize_t)s->len) p->tx++; else p->drop++;
        p->head++;
      }
      if (qcount(p) && p->q[p->head % QLEN].t < next) next = p->q[p->head % QLEN].t;
      if (qcount(p) >= QLEN) room = 0;
      pfd[i].fd = p->fd;
      pfd[i].events = room ? POLLIN : 0;
      pfd[i].revents = 0;
    }
    if (!room)
      for (int i = 0; i < nports; i++) pfd[i].events = 0;
    struct timespec ts, *tsp = NULL;
    int spinning = 0;
    if (next != UINT64_MAX) {
      uint64_t w = next > now ? next - now : 0;
      if (w <= spin_ns) { w = 0; spinning = 1; }
      else w -= spin_ns; /* wake up early, busy-wait the rest */
      ts.tv_sec = (time_t)(w / 1000000000ull);
      ts.tv_nsec = (long)(w % 1000000000ull);
      tsp = &ts;
    }
    int n = ppoll(pfd, (nfds_t)nports, tsp, &orig);
    if (n < 0) {
      if (errno == EINTR) continue;
      perror("vcswitch: ppoll");
      return 1;
    }
    if (n == 0) {
      if (spinning) sched_yield();
      continue;
    }
    for (int i = 0; i < nports; i++) {
      if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
        fprintf(stderr, "vcswitch: %s: device gone (namespace deleted?)\n", ports[i].ns);
        stop = 1;
        break;
      }
      if (!(pfd[i].revents & POLLIN)) continue;
      for (int k = 0; k < 64; k++) { /* drain a batch, keep room for a flood */
        int full = 0;
        for (int j = 0; j < nports; j++) if (qcount(&ports[j]) >= QLEN) full = 1;
        if (full) break;
        ssize_t r = read(ports[i].fd, rxbuf, sizeof rxbuf);
        if (r <= 0) break;
        ports[i].rx++;
        forward(i, rxbuf, (uint32_t)r, now_ns());
      }
    }
  }
  for (int i = 0; i < nports; i++)
    fprintf(stderr, "vcswitch: %s rx %lu tx %lu drop %lu\n", ports[i].ns, ports[i].rx, ports[i].tx, ports[i].drop);
  return 0;
}
