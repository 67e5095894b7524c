/*
 * ddpm_dp.c — DP-SGD's clipped gradient for the TabDDPM denoiser (docs/privacy.md), the step
 * the model glue's DP fit (ddpm_model.c) calls instead of ddpm_forward_backward. The
 * denoiser is linear layers joined by row-wise functions (ReLU, SiLU, the sinusoidal
 * timestep embedding, the label embedding's lookup, per-row losses; no batch norm), so row
 * b's gradient has the squared norm
 *   sum over linear layers (||x_b||^2 + 1) ||g_b||^2  +  ||dlemb_b||^2
 * (the label embedding's gradient of one row is one row of it). The backward pass below is
 * ddpm.c's with those terms added (dp_sqnorm_acc) as each layer's output gradient appears.
 * Clipping then scales each row of the loss gradient dout by min(1, C / norm_b): the
 * backward pass is linear in dout's rows and every function between layers acts on one row,
 * so a second backward pass from the scaled dout gives sum_b min(1, C / norm_b) grad_b.
 * Losses are per row (the scales of a batch of one), so each row's gradient is its own.
 */
#include "ddpm.h"

/* ddpm.c's backward pass from act.dout; sq (B floats) != NULL: the per-row squared gradient
 * norms are added to it. Gradients are added to d->grads (zeroed by the caller). */
static void dp_backward(ddpm *d, int B, float *sq) {
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    ddpm_acts *a = &d->act;
    ddpm_tensors *p = &d->p, *g = &d->g;
    int E = d->E, H = d->H, D = d->D, L = d->L;
    if (sq) o->dp_sqnorm_acc(be, sq, a->h[L - 1], H, H, a->dout, D, D, B);
    o->zero(be, a->dA, (size_t)B * H);
    o->linear_backward(be, a->dA, H, g->oW, g->ob, a->dout, D, a->h[L - 1], H, p->oW, B, H, D);
    for (int l = L - 1; l >= 0; l--) {
        o->zero(be, a->dB, (size_t)B * H);
        o->relu_backward(be, a->dB, a->dA, a->h[l], (size_t)B * H);
        const float *in = l ? a->h[l - 1] : a->h0;
        int inw = l ? H : E;
        if (sq) o->dp_sqnorm_acc(be, sq, in, inw, inw, a->dB, H, H, B);
        o->zero(be, a->dA, (size_t)B * inw);
        o->linear_backward(be, a->dA, inw, g->W[l], g->b[l], a->dB, H, in, inw, p->W[l], B, inw, H);
    }
    if (sq) o->dp_sqnorm_acc(be, sq, a->xt, D, D, a->dA, E, E, B);
    o->linear_backward(be, NULL, 0, g->pW, g->pb, a->dA, E, a->xt, D, p->pW, B, D, E);
    if (d->K) {
        o->zero(be, a->dB, (size_t)B * E);
        o->silu_backward(be, a->dB, a->dA, a->lab, (size_t)B * E);
        if (sq) o->dp_sqnorm_acc(be, sq, a->dB, E, 0, a->dB, E, E, B); /* one row of lemb */
        o->label_embed_backward(be, g->lemb, a->dB, d->y, B, d->K, E);
    }
    if (sq) o->dp_sqnorm_acc(be, sq, a->e1s, E, E, a->dA, E, E, B);
    o->zero(be, a->dB, (size_t)B * E);
    o->linear_backward(be, a->dB, E, g->tW2, g->tb2, a->dA, E, a->e1s, E, p->tW2, B, E, E);
    o->zero(be, a->dA, (size_t)B * E);
    o->silu_backward(be, a->dA, a->dB, a->e1, (size_t)B * E);
    if (sq) o->dp_sqnorm_acc(be, sq, a->temb, E, E, a->dA, E, E, B);
    o->linear_backward(be, NULL, 0, g->tW1, g->tb1, a->dA, E, a->temb, E, p->tW1, B, E, E);
}

void ddpm_dp_clip_rows(ddpm *d, int B, float gscale, float mscale, float *sum, float *sq,
                       float *s, float clip, float *loss) {
    gen_backend *be = d->be;
    const gen_backend_ops *o = be->ops;
    ddpm_acts *a = &d->act;
    ddpm_forward(d, B);
    o->zero(be, a->dout, (size_t)B * d->D);
    o->ddpm_loss(be, a->loss, a->dout, a->out, a->x0, a->xt, a->noise, a->coef, B, d->D,
                 d->spans, d->nspans, gscale, mscale);
    if (loss) o->accumulate(be, loss, a->loss, 2);
    o->zero(be, d->grads, d->count);
    o->zero(be, sq, (size_t)B);
    dp_backward(d, B, sq);
    o->dp_clip_factors(be, s, sq, B, clip);
    o->dp_scale_rows(be, a->dout, d->D, s, B, d->D);
    o->zero(be, d->grads, d->count);
    dp_backward(d, B, NULL);
    o->accumulate(be, sum, d->grads, (int)d->count);
}
