/*
 * seq_nets.c — the core's GRU stack + fully connected head (seq_nets.h): parameter layout in
 * an arena, activation layout, initialisation, forward and backward on the backend's
 * gru_* / linear_* / sigmoid_* operations. Used by the sequence metrics and by TimeGAN.
 */
#include <math.h>
#include <string.h>

#include "seq_nets.h"

size_t gen_seq_net_layout(gen_seq_net *n, int in, int H, int L, int out, int sigmoid, size_t off) {
    memset(n, 0, sizeof *n);
    n->in = in; n->H = H; n->L = L; n->out = out; n->sigmoid = sigmoid; n->off = off;
    size_t c = 0;
    for (int l = 0; l < L; l++) c += gen_gru_weight_floats(l ? H : in, H) + gen_gru_bias_floats(H);
    c += (size_t)out * H + (size_t)out;
    n->count = c;
    return off + c;
}

void gen_seq_net_point(gen_seq_net *n, float *params, float *grads) {
    size_t o = n->off;
    for (int l = 0; l < n->L; l++) {
        size_t w = gen_gru_weight_floats(l ? n->H : n->in, n->H);
        n->W[l] = params + o; n->gW[l] = grads ? grads + o : NULL; o += w;
        n->b[l] = params + o; n->gb[l] = grads ? grads + o : NULL; o += gen_gru_bias_floats(n->H);
    }
    n->fW = params + o; n->gfW = grads ? grads + o : NULL; o += (size_t)n->out * n->H;
    n->fb = params + o; n->gfb = grads ? grads + o : NULL;
}

size_t gen_seq_run_floats(const gen_seq_net *n, int Bmax, int T) {
    size_t BT = (size_t)Bmax * T;
    return (size_t)n->L * BT * 5 * n->H + 2 * BT * n->out;
}

void gen_seq_run_point(gen_seq_run *r, const gen_seq_net *n, float *base, int Bmax, int T) {
    size_t BT = (size_t)Bmax * T;
    memset(r, 0, sizeof *r);
    r->Bmax = Bmax;
    for (int l = 0; l < n->L; l++) {
        r->y[l] = base; base += BT * n->H;
        r->save[l] = base; base += BT * 4 * n->H;
    }
    r->pre = base; base += BT * n->out;
    r->out = base;
}

/* GRU layers (reset-after cell, layout in backend.h): every weight and bias of W_ih, W_hh,
 * b_ih, b_hh from U(-1/sqrt(H), 1/sqrt(H)), PyTorch nn.GRU's initialisation for this cell.
 * Keeping TF1 GRUCell's distribution instead (Glorot-uniform kernels, r/z bias 1) made Stocks
 * materially worse at 1,000 iterations per phase; this init brings Stocks close to the TF1
 * cell's scores but makes Sines' predictive score worse (docs/timegan.md §7). fully_connected heads: Glorot-uniform [H, out], bias 0, as TF1's. */
void gen_seq_net_init(const gen_seq_net *n, float *hp, gen_rng *r) {
    size_t o = n->off;
    int H = n->H;
    float k = 1.0f / sqrtf((float)H);
    for (int l = 0; l < n->L; l++) {
        size_t cnt = gen_gru_weight_floats(l ? H : n->in, H) + gen_gru_bias_floats(H);
        for (size_t i = 0; i < cnt; i++) hp[o + i] = k * (2.0f * (float)gen_rng_uniform(r) - 1.0f);
        o += cnt;
    }
    float lf = sqrtf(6.0f / (float)(H + n->out));
    for (size_t i = 0; i < (size_t)n->out * H; i++)
        hp[o + i] = lf * (2.0f * (float)gen_rng_uniform(r) - 1.0f);
    o += (size_t)n->out * H;
    for (int j = 0; j < n->out; j++) hp[o + j] = 0.0f;
}

void gen_seq_net_forward(gen_backend *be, const gen_seq_net *n, gen_seq_run *r, const float *x, int B, int T) {
    const gen_backend_ops *o = be->ops;
    const float *in = x;
    int C = n->in;
    for (int l = 0; l < n->L; l++) {
        o->gru_forward(be, r->y[l], r->save[l], in, NULL, n->W[l], n->b[l], B, T, C, n->H);
        in = r->y[l];
        C = n->H;
    }
    int BT = B * T;
    o->linear_forward(be, r->pre, n->out, in, n->H, n->fW, n->fb, BT, n->H, n->out);
    if (n->sigmoid) o->sigmoid_forward(be, r->out, r->pre, (size_t)BT * n->out);
}

size_t gen_seq_net_scratch_floats(const gen_seq_net *n, int Bmax, int T) {
    size_t BT = (size_t)Bmax * T;
    return 2 * BT * n->H + BT * n->out + gen_gru_work_floats(Bmax, T, n->H);
}

void gen_seq_net_backward(gen_backend *be, const gen_seq_net *n, gen_seq_run *r, float *dx, const float *dout,
                     const float *x, int B, int T, int wgrad, float *scratch) {
    const gen_backend_ops *o = be->ops;
    size_t BT = (size_t)B * T;
    int H = n->H;
    float *dy[2] = {scratch, scratch + BT * H};
    float *dpre = scratch + 2 * BT * H, *work = dpre + BT * n->out;
    const float *dp = dout;
    if (n->sigmoid) {
        o->zero(be, dpre, BT * n->out);
        o->sigmoid_backward(be, dpre, dout, r->out, BT * n->out);
        dp = dpre;
    }
    o->zero(be, dy[0], BT * H);
    o->linear_backward(be, dy[0], H, wgrad ? n->gfW : NULL, wgrad ? n->gfb : NULL, dp, n->out,
                       r->y[n->L - 1], H, n->fW, (int)BT, H, n->out);
    int cur = 0;
    for (int l = n->L - 1; l >= 0; l--) {
        const float *in = l ? r->y[l - 1] : x;
        int C = l ? H : n->in;
        float *din = l ? dy[1 - cur] : dx;
        if (l) o->zero(be, din, BT * H);
        if (!din && !wgrad) break;
        o->gru_backward(be, din, NULL, wgrad ? n->gW[l] : NULL, wgrad ? n->gb[l] : NULL, work,
                        dy[cur], in, NULL, r->y[l], r->save[l], n->W[l], B, T, C, H);
        cur = 1 - cur;
    }
}
