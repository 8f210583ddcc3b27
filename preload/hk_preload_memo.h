/* preload/hk_preload_memo.h: the per-communicator state of the preload (issue 42): the
 * sampling counters and the memo of the calls the library handed back to MPI (the types and
 * the key's rules: hk_preload_colls.h, "The memo"), found without the attribute look-up.
 * Not a header to include anywhere else: hk_preload.c includes it once, after
 * hk_preload_colls.h, and shares its static state (fast, counts(), st). */

/* comm_state's look-up without the attribute: this thread's last communicator and its
 * state (internal/hk_last_comm.h), state_gen +1 on every free */
static unsigned state_gen;
static HK__LAST_TLS hk__last_comm_t last_state;

static int delete_counters(MPI_Comm comm, int kv, void *value, void *extra)
{
  (void)comm;
  (void)kv;
  (void)extra;
  hk__last_comm_bump(&state_gen);
  free(value);
  return MPI_SUCCESS;
}


/* the sampling counters and the memo of comm (an attribute: every rank of comm
 * advances its counters on the same calls); NULL if the attribute cannot be made */
static comm_state_t *comm_state(MPI_Comm comm)
{
  void *v = NULL;
  int found = 0;
  unsigned now;
  comm_state_t *n = hk__last_comm_get(&last_state, &state_gen, comm, &now);
  if (n)
    return n;
  if (PMPI_Comm_get_attr(comm, st.keyval, &v, &found) == MPI_SUCCESS && found) {
    n = v;
  } else if ((n = calloc(1, sizeof *n)) && PMPI_Comm_set_attr(comm, st.keyval, n) != MPI_SUCCESS) {
    free(n);
    n = NULL;
  }
  if (n)
    hk__last_comm_put(&last_state, comm, n, now);
  return n;
}

/* the memo's key for a call of a predefined type (this thread's type_size cache holds it)
 * and op (or none); 0 when the call cannot be memoised */
static int memo_key(memo_t *m, int kind, long long bytes, MPI_Datatype type, MPI_Datatype stype,
                    int in_place, MPI_Op op)
{
  if (type != fast.type || fast.size <= 0 || (!in_place && stype != type) ||
      (op != MPI_OP_NULL && !predefined_op(op)))
    return 0;
  *m = (memo_t){bytes, type, op, kind, in_place, HK_FALLBACK_NONE};
  return 1;
}

static memo_t *memo_slot(comm_state_t *cs, const memo_t *m, int cls)
{
  return &cs->memo[(unsigned)(m->kind * 7 + cls) % NMEMO];
}

/* the reason an earlier call of the same shape went to MPI, else HK_FALLBACK_NONE */
static int memo_get(comm_state_t *cs, const memo_t *m, int cls)
{
  const memo_t *e = memo_slot(cs, m, cls);
  return e->bytes == m->bytes && e->type == m->type && e->op == m->op && e->kind == m->kind &&
                 e->in_place == m->in_place
             ? e->why
             : HK_FALLBACK_NONE;
}

/* keep the answer of the library when it is one that cannot change on comm: mpi chosen
 * (the tuning table, the environment) or the model's mpi */
static void memo_put(comm_state_t *cs, const memo_t *m, int cls, int why)
{
  if (why != HK_FALLBACK_MODEL && why != HK_FALLBACK_CHOSEN)
    return;
  memo_t *e = memo_slot(cs, m, cls);
  *e = *m;
  e->why = why;
}

static void memo_count(int kind, int why)
{
  tcount_t *n = counts();
  if (why == HK_FALLBACK_MODEL)
    n->kmodel[kind]++;
  else
    n->kchosen[kind]++;
}

