/*
 * timegan_ckpt.c — TimeGAN's part of resumable training (src/model/checkpoint.c,
 * docs/checkpoints.md). The safe points are the ends of iterations of the three phases
 * (docs/algorithms.md §S5): there the fit's whole state is every network's weights (E and D
 * included, which the model file leaves out), each of the five Adams' moments and step
 * counts, the noise counter, the batch order (the kept permutation next_batch draws from)
 * and its host stream. The unit is the iteration counted over the phases: iteration i of
 * phase p is number (p - 1) x iterations + i. Kept apart from the training loop (timegan.c
 * calls the hook's restore once and its after after each iteration, tg_ckpt_restore and
 * tg_ckpt_after here, through the function pointers tg_ckpt_attach sets) and from the model glue
 * (timegan_model.c attaches the hook and names tg_ckpt_save in its vtable).
 */
#include <string.h>

#include "checkpoint.h"
#include "model_io.h"
#include "timegan_ckpt.h"

/* floats of optimiser s's moments */
static size_t adam_count(const timegan *t, int s) {
    int a, b;
    tg_step_nets((tg_step)s, &a, &b);
    return t->net[b].off + t->net[b].count - t->net[a].off;
}

static genesis_status tg_ckpt_restore(timegan *t, int64_t *perm, int64_t N, gen_rng *rng,
                                      int64_t iters, int *phase, int64_t *it);
static genesis_status tg_ckpt_after(timegan *t, int phase, int64_t it, int64_t iters,
                                    const int64_t *perm, int64_t N, const gen_rng *rng, int stop);

void tg_ckpt_attach(genesis_model *m, timegan *t, tg_ckpt_hook *hook) {
    memset(hook, 0, sizeof *hook);
    hook->m = m;
    hook->restore = tg_ckpt_restore;
    hook->after = tg_ckpt_after;
    t->ck = (m->ckpt_path || m->resume) ? hook : NULL;
}

genesis_status tg_ckpt_save(const genesis_model *m, timegan *t, gen_bytes *b) {
    const tg_ckpt_hook *h = t->ck;
    GEN_RETURN_IF(!h || !h->perm || !t->grads, m->ctx, GENESIS_ERR_STATE,
                  "TimeGAN is not training; no training state");
    /* the divergence check and D's step count (on the device) before anything is written */
    GEN_TRY(timegan_sync(t, (int)((h->done - 1) / (h->iters > 0 ? h->iters : 1)) + 1,
                         (h->done - 1) % (h->iters > 0 ? h->iters : 1) + 1));
    GEN_TRY(gen_ckpt_wr_dev(m, b, t->params, t->count));
    for (int s = 0; s < TG_NSTEPS; s++) {
        GEN_TRY(gen_ckpt_wr_dev(m, b, t->m[s], adam_count(t, s)));
        GEN_TRY(gen_ckpt_wr_dev(m, b, t->v[s], adam_count(t, s)));
        gen_wr_u64(b, (uint64_t)t->t[s]);
    }
    gen_wr_u64(b, t->noise_off);
    gen_wr_u64(b, (uint64_t)h->done);
    gen_ckpt_wr_rng(b, h->rng);
    gen_ckpt_wr_perm(b, h->perm, h->N, 8);
    return GENESIS_OK;
}

static genesis_status tg_ckpt_restore(timegan *t, int64_t *perm, int64_t N, gen_rng *rng, int64_t iters,
                               int *phase, int64_t *it) {
    genesis_model *m = t->ck->m;
    gen_reader r;
    int64_t done = 0;
    *phase = 1;
    *it = 1;
    if (!gen_ckpt_resume_reader(m, &r, &done)) return GENESIS_OK;
    if (done > 3 * iters) return gen_rd_fail(&r, "more iterations done than the fit has");
    GEN_TRY(gen_ckpt_rd_dev(m, &r, t->params, t->count));
    for (int s = 0; s < TG_NSTEPS; s++) {
        uint64_t k;
        GEN_TRY(gen_ckpt_rd_dev(m, &r, t->m[s], adam_count(t, s)));
        GEN_TRY(gen_ckpt_rd_dev(m, &r, t->v[s], adam_count(t, s)));
        GEN_TRY(gen_rd_u64(&r, &k));
        if (k > ((uint64_t)1 << 50)) return gen_rd_fail(&r, "TimeGAN step counts are out of range");
        t->t[s] = (int64_t)k;
    }
    t->be->ops->upload(t->be, t->tdev, t->t, sizeof t->t); /* the counts live there */
    uint64_t again;
    GEN_TRY(gen_rd_u64(&r, &t->noise_off));
    GEN_TRY(gen_rd_u64(&r, &again));
    if (again != (uint64_t)done) return gen_rd_fail(&r, "TimeGAN's iteration disagrees with the checkpoint's");
    GEN_TRY(gen_ckpt_rd_rng(&r, rng));
    GEN_TRY(gen_ckpt_rd_perm(m, &r, perm, N, 8, "TimeGAN's batch order"));
    if (r.pos != r.len) return gen_rd_fail(&r, "unexpected bytes after TimeGAN's training state");
    *phase = (int)(done / iters) + 1; /* 4 when every iteration is done */
    *it = done % iters + 1;
    return GENESIS_OK;
}

static genesis_status tg_ckpt_after(timegan *t, int phase, int64_t it, int64_t iters, const int64_t *perm,
                             int64_t N, const gen_rng *rng, int stop) {
    tg_ckpt_hook *h = t->ck;
    h->done = (int64_t)(phase - 1) * iters + it;
    h->iters = iters;
    h->perm = perm;
    h->N = N;
    h->rng = rng;
    return gen_ckpt_point(h->m, h->done, 3 * iters, stop);
}
