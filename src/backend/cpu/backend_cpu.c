/*
 * backend_cpu.c — the CPU reference backend: the table of gen_backend_ops (backend.h) filled
 * with the operations of the family files beside it (memory.c, batch.c, dense.c,
 * elementwise.c, norm.c, output.c, random.c, optimiser.c, graph.c, gan.c, vae.c, diffusion.c, ddpm_noise.c,
 * gru.c, tgloss.c, privacy.c; declared in cpu_internal.h), and the backend's creation. Every operation
 * is a plain loop, with OpenBLAS's cblas_sgemm as the GEMM fast path (tests/test_layers_grad.c
 * checks it against gen_gemm_reference). The CPU backend is the specification the CUDA
 * backend is compared with (tests/parity/). Formulas: torch.nn semantics as in
 * docs/algorithms.md §T6; derivations of the backward passes in docs/layers.md.
 */
#include <cblas.h>

#include "cpu_internal.h"

static void cpu_destroy(gen_backend *be) { free(be); }

static void cpu_thread_attach(gen_backend *be) {
    (void)be;
    openblas_set_num_threads(1); /* per calling thread in OpenBLAS's OpenMP build */
}

static const gen_backend_ops cpu_ops = {
    .name = "cpu",
    .host_memory = 1,
    /* memory (memory.c) */
    .alloc = gen_cpu_alloc,
    .free = gen_cpu_free,
    .upload = gen_cpu_copy,
    .download = gen_cpu_copy,
    .zero = gen_cpu_zero,
    .copy2d = gen_cpu_copy2d,
    .host_alloc = gen_cpu_host_alloc,
    .host_free = gen_cpu_host_free,
    /* batch (batch.c) */
    .gather_rows = gen_cpu_gather_rows,
    .onehot_rows = gen_cpu_onehot_rows,
    .gather_onehot_rows = gen_cpu_gather_onehot_rows,
    .accumulate = gen_cpu_accumulate,
    /* dense (dense.c) */
    .gemm = gen_cpu_gemm,
    .linear_forward = gen_cpu_linear_forward,
    .linear_backward = gen_cpu_linear_backward,
    .linear_act_forward = gen_cpu_linear_act_forward,
    .linear1_forward = gen_cpu_linear1_forward,
    .linear1_backward_act = gen_cpu_linear1_backward_act,
    .linear_sparse_forward = gen_cpu_linear_sparse_forward,
    .to_half = gen_cpu_to_half,
    .linear_forward_h = gen_cpu_linear_forward_h,
    .linear_backward_h = gen_cpu_linear_backward_h,
    /* elementwise (elementwise.c) */
    .relu_forward = gen_cpu_relu_forward,
    .relu_backward = gen_cpu_relu_backward,
    .leaky_relu_forward = gen_cpu_leaky_relu_forward,
    .leaky_relu_backward = gen_cpu_leaky_relu_backward,
    .mul = gen_cpu_mul,
    .mul_acc = gen_cpu_mul_acc,
    .ledger_add = gen_cpu_ledger_add,
    .act_backward_bias = gen_cpu_act_backward_bias,
    .leaky_slope_mask = gen_cpu_leaky_slope_mask,
    .mul_rowvec = gen_cpu_mul_rowvec,
    .sum = gen_cpu_sum,
    .clamp = gen_cpu_clamp,
    .any_nonfinite = gen_cpu_any_nonfinite,
    .relu_forward_h = gen_cpu_relu_forward_h,
    .relu_backward_h = gen_cpu_relu_backward_h,
    /* norm (norm.c) */
    .batchnorm_forward = gen_cpu_batchnorm_forward,
    .batchnorm_forward_eval = gen_cpu_batchnorm_forward_eval,
    .batchnorm_update_running = gen_cpu_batchnorm_update_running,
    .linear_bn_relu_forward = gen_cpu_linear_bn_relu_forward,
    .relu_bn_backward = gen_cpu_relu_bn_backward,
    .batchnorm_backward = gen_cpu_batchnorm_backward,
    .batchnorm_stats = gen_cpu_batchnorm_stats,
    .batchnorm_apply = gen_cpu_batchnorm_apply,
    .batchnorm_backward_sums = gen_cpu_batchnorm_backward_sums,
    .batchnorm_backward_apply = gen_cpu_batchnorm_backward_apply,
    /* output (output.c) */
    .activate_forward = gen_cpu_activate_forward,
    .activate_backward = gen_cpu_activate_backward,
    .cross_entropy_rows = gen_cpu_cross_entropy_rows,
    /* random (random.c) */
    .fill_normal = gen_cpu_fill_normal,
    .fill_uniform = gen_cpu_fill_uniform,
    .dropout_forward = gen_cpu_dropout_forward,
    .lrelu_dropout_forward = gen_cpu_lrelu_dropout_forward,
    .normal_onehot_rows = gen_cpu_normal_onehot_rows,
    .linear_lrelu_dropout_forward = gen_cpu_linear_lrelu_dropout_forward,
    /* optimiser (optimiser.c) */
    .adam = gen_cpu_adam,
    .adam_dev = gen_cpu_adam_dev,
    .adam_dev_end = gen_cpu_adam_dev_end,
    .adamw = gen_cpu_adamw,
    .amp_scale = gen_cpu_amp_scale,
    .amp_unscale = gen_cpu_amp_unscale,
    /* graph (graph.c; graph_begin/end/launch/free stay NULL: the CPU records nothing) */
    .select_block = gen_cpu_select_block,
    .step_advance = gen_cpu_step_advance,
    /* gan (gan.c) */
    .interpolate_groups = gen_cpu_interpolate_groups,
    .interpolate_uniform = gen_cpu_interpolate_uniform,
    .gp_penalty = gen_cpu_gp_penalty,
    .colsum_acc = gen_cpu_colsum_acc,
    /* vae (vae.c) */
    .reparam_forward = gen_cpu_reparam_forward,
    .reparam_backward = gen_cpu_reparam_backward,
    .reparam_backward_bias = gen_cpu_reparam_backward_bias,
    .kl_normal = gen_cpu_kl_normal,
    .tvae_recon = gen_cpu_tvae_recon,
    /* diffusion (diffusion.c) */
    .silu_forward = gen_cpu_silu_forward,
    .silu_backward = gen_cpu_silu_backward,
    .timestep_embed = gen_cpu_timestep_embed,
    .ddpm_loss = gen_cpu_ddpm_loss,
    .scale = gen_cpu_scale,
    .label_embed = gen_cpu_label_embed,
    .label_embed_backward = gen_cpu_label_embed_backward,
    .ema_update = gen_cpu_ema_update,
    .ddpm_sample_init = gen_cpu_ddpm_sample_init,
    .ddpm_reverse_step = gen_cpu_ddpm_reverse_step,
    /* ddpm_noise (ddpm_noise.c) */
    .ddpm_noise = gen_cpu_ddpm_noise,
    /* gru (gru.c) */
    .sigmoid_forward = gen_cpu_sigmoid_forward,
    .sigmoid_backward = gen_cpu_sigmoid_backward,
    .gru_forward = gen_cpu_gru_forward,
    .gru_backward = gen_cpu_gru_backward,
    /* tgloss (tgloss.c) */
    .mse_loss = gen_cpu_mse_loss,
    .bce_logits = gen_cpu_bce_logits,
    .moments_loss = gen_cpu_moments_loss,
    .adam_tf1_gated = gen_cpu_adam_tf1_gated,
    .take_rows = gen_cpu_take_rows,
    /* privacy (privacy.c) */
    .dp_sqnorm_acc = gen_cpu_dp_sqnorm_acc,
    .dp_clip_factors = gen_cpu_dp_clip_factors,
    .dp_scale_rows = gen_cpu_dp_scale_rows,
    .dp_noise = gen_cpu_dp_noise,
    /* the backend itself */
    .destroy = cpu_destroy,
    .thread_attach = cpu_thread_attach,
};

genesis_status gen_backend_cpu_create(genesis_ctx *ctx, int threads, gen_backend **out) {
    gen_backend *be = calloc(1, sizeof *be);
    GEN_RETURN_IF(!be, ctx, GENESIS_ERR_NOMEM, "out of memory creating the CPU backend");
    be->ops = &cpu_ops;
    be->ctx = ctx;
    be->threads = threads > 0 ? threads : gen_ctx_threads(ctx);
    openblas_set_num_threads(1); /* gen_cpu_gemm threads over fixed tiles itself */
    *out = be;
    return GENESIS_OK;
}

void gen_backend_free(gen_backend *be) {
    if (be) be->ops->destroy(be);
}
