/*
 * tests/parity/parity.h — the backend parity test (test_backend_parity): every operation of the
 * CUDA backend against the CPU reference, one file per backend family (tests/parity/<family>.c,
 * the families of backend.h) and the runner in main.c. What a family file defines: its
 * operations (pt_op: setup and run) and its cases (pt_family_<family>); the harness and the
 * shared buffer helpers are declared here.
 */
#ifndef GEN_PARITY_H
#define GEN_PARITY_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "diffusion.h"
#include "test_util.h"

#define PT_GUARD 32
#define PT_MAXBUF 12
#define PT_SENTINEL 0x7FA5A5A5u /* a signalling-NaN pattern no operation produces */
#define PT_NBK 3                /* cpu, cuda, cuda again */

/* PT_SCRATCH: an operation's scratch (backend.h says when), guarded but not compared */
enum { PT_IN, PT_OUT, PT_ACC, PT_SCRATCH };

typedef struct pt_buf {
    const char *name;
    size_t n;
    int role, is_int;
    int bits; /* compared bit for bit (16-bit values, two to a word) */
    int dbl;  /* doubles, two words each: compared as doubles (TimeGAN's losses) */
    uint32_t *host; /* initial contents */
    void *dev[PT_NBK];
    uint32_t *res[PT_NBK]; /* downloaded with guards */
} pt_buf;

typedef struct pt_env pt_env;

/* One operation under test: its name (as in backend.h; the mixed-precision and loss-scaled
 * variants carry a suffix), what d[] means, the tolerance |gpu - cpu| <= atol + rtol |cpu|,
 * setup (declares the buffers from the case's d[]) and run (calls the operation on backend
 * be, whose copy of buffer i is P(e, k, i)). */
typedef struct pt_op {
    const char *name, *dims;
    double atol, rtol;
    void (*setup)(pt_env *e);
    void (*run)(pt_env *e, gen_backend *be, int k);
} pt_op;

/* One case: an operation and its shape/variant. */
typedef struct pt_case {
    const pt_op *op;
    int d[6];
} pt_case;

/* A family's cases (tests/parity/<family>.c), named as in backend.h. */
typedef struct pt_family {
    const char *name;
    const pt_case *cases;
    int ncases;
} pt_family;

struct pt_env {
    const pt_case *c;
    int idx;
    int nbuf;
    pt_buf b[PT_MAXBUF];
    gen_act_span spans[16];
    int nspans, W;
    gen_recon_span rspans[16]; /* tvae_recon: the layout's loss spans, and r's stride */
    int ldr;
    int iret[PT_NBK];
    int has_iret;
};

/* The operations' shorthands: the backend's table, and the case's d[k]. */
#define OPS(be) ((be)->ops)
#define D(k) (e->c->d[k])

/* ---- buffers and shared setups (main.c) ---- */
/* ---- buffers ------------------------------------------------------------------------------ */

int pt_add(pt_env *e, const char *name, size_t n, int role, float lo, float hi);
int32_t *pt_add_int(pt_env *e, const char *name, size_t n);
float *pt_host(pt_env *e, int i);
/* Sprinkles NaN, +-Inf, +-0 and huge/tiny values over buffer i (every 5th element). */
void pt_specials(pt_env *e, int i);
float *P(pt_env *e, int bk, int i);
int32_t *PI(pt_env *e, int bk, int i);
/* Span layouts: W = end of the last span. */
void pt_layout(pt_env *e, int which);
/* ---- mixed precision (docs/precision.md): the same products with be->precision set ----
 * Both backends round the same FP32 operands to the same TF32/BF16/FP16 values (round to
 * nearest even, src/backend/precision.h), and the product of two such values is exact in FP32 (at
 * most 2 x 11 significant bits), so the results differ only by FP32 summation order: the
 * FP32 tolerances apply (|d| <= gamma_K u32 sum|a||b|, u32 = 2^-24, inside atol 2e-4 +
 * rtol 1e-4 for these |a|, |b| <= 1 and K <= 1025). A backend that did not round would be
 * off by about u sqrt(K) |a||b| (u = 2^-8 bf16, 2^-11 tf32 and fp16), outside it for
 * K >= 17; the CUDA side uses cublasGemmEx (16-bit operands converted by k_to_half, or FP32
 * with CUBLAS_COMPUTE_32F_FAST_TF32), the CPU side sgemm on rounded copies. */
void pt_prec(gen_backend *be, int prec);
/* ---- 16-bit stored activations (docs/precision.md, "Memory"): the ops that read or write
 * BF16/FP16 values (prec 2 bf16, 3 fp16). A 16-bit buffer holds its values two to a word;
 * outputs are compared bit for bit (both backends round the same FP32 values with the same
 * routine of precision.h, and ReLU is exact). The products read stored values that are
 * already in the format, so only the FP32 summation order differs: the tolerances of the
 * mixed-precision products. */

/* A buffer of n 16-bit values in the format prec: random values in [lo, hi] rounded to it,
 * with specials (NaN, +-Inf, +-0, values that round to zero or overflow fp16) when asked */
int pt_add_half(pt_env *e, const char *name, size_t n, int role, float lo, float hi,
                       int prec, int specials);
uint16_t *PH(pt_env *e, int bk, int i);
/* element-wise: n, specials? */
void su_ew2(pt_env *e);

/* ---- the families, in the order the runner numbers their cases ---- */
extern const pt_family pt_family_memory;
extern const pt_family pt_family_batch;
extern const pt_family pt_family_dense;
extern const pt_family pt_family_elementwise;
extern const pt_family pt_family_norm;
extern const pt_family pt_family_output;
extern const pt_family pt_family_random;
extern const pt_family pt_family_optimiser;
extern const pt_family pt_family_graph;
extern const pt_family pt_family_gan;
extern const pt_family pt_family_vae;
extern const pt_family pt_family_diffusion;
extern const pt_family pt_family_gru;
extern const pt_family pt_family_tgloss;
extern const pt_family pt_family_privacy;
extern const pt_family pt_family_ddpm_noise;

#endif /* GEN_PARITY_H */
