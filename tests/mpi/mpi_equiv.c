/*
 * mpi_equiv.c — the helper of tests/cli/mpi_equivalence.sh (docs/distributed.md, "The
 * equivalence contract"). Not a CTest program by itself: the shell test launches it with
 * and without mpirun.
 *   mpi_equiv fit ctgan|tvae DATA.csv BATCH EPOCHS OUT
 *       fits with seed 1 and one thread; when started by mpirun with several ranks, data
 *       parallel over MPI (--batch-size is the global batch). Each rank writes its whole
 *       training state (parameters, batch-norm statistics, Adam moments) to OUT.rank<r>.bin.
 *   mpi_equiv team ctgan|tvae DATA.csv BATCH EPOCHS OUT K threads|nccl
 *       the same fit with K ranks that are threads of this process (genesis_team_run): host
 *       sums (threads) or NCCL on the GPU (bench/nccl_run.sh). NCCL ranks all use GPU 0
 *       unless MPI_EQUIV_GPUS=N spreads rank r over GPU r % N; MPI_EQUIV_DEVICE=cuda puts
 *       `fit` and thread ranks on GPU 0 (host-staged sums).
 *   mpi_equiv compare A.bin B.bin ATOL RTOL
 *       exit 0 when, for every array of the state, |a - b| / |b| (L2) <= RTOL and every
 *       |a - b| <= ATOL; prints both per array.
 *   mpi_equiv models A.gen B.gen ATOL RTOL
 *       the same comparison for the weights of two saved model files.
 *   mpi_equiv comm
 *       the communicator on its own (run with 2 or more ranks): all-reduce of known values
 *       (exact in float: small integers), sizes 1, 3, 1000 and 2^20 + 7, on the CPU backend;
 *       broadcast; agree; check_same with equal and with different values. Exit 0 = all ok.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "model.h"

/* A failed rank stops the job (genesis_ctx_abort), unless MPI_EQUIV_NO_ABORT=1: then it
 * returns, as an embedding application might, and the test sees whether its peers come back
 * too (tests/cli/emu_nccl.sh: a rank whose GPU fails must not leave the others waiting). */
static int die(genesis_ctx *ctx, const char *what) {
    fprintf(stderr, "mpi_equiv: rank %d: %s: %s\n", ctx ? genesis_ctx_rank(ctx) : 0, what,
            ctx ? genesis_errmsg(ctx) : "");
    const char *keep = getenv("MPI_EQUIV_NO_ABORT");
    if (ctx && genesis_ctx_world_size(ctx) > 1 && !(keep && !strcmp(keep, "1")))
        genesis_ctx_abort(ctx, 1);
    return 1;
}

#define MAXSEG 16

/* File: segment count, segment lengths (u64 each), then the floats. */
static int write_state(const char *path, const float *x, const size_t *seg, int nseg) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    unsigned long long k = (unsigned long long)nseg, len[MAXSEG], n = 0;
    for (int i = 0; i < nseg; i++) n += len[i] = seg[i];
    int ok = fwrite(&k, sizeof k, 1, f) == 1 && fwrite(len, sizeof len[0], k, f) == k &&
             fwrite(x, sizeof(float), n, f) == n;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

static float *read_state(const char *path, size_t *seg, int *nseg) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned long long k = 0, len[MAXSEG], n = 0;
    float *x = NULL;
    int ok = fread(&k, sizeof k, 1, f) == 1 && k <= MAXSEG && fread(len, sizeof len[0], k, f) == k;
    for (unsigned long long i = 0; ok && i < k; i++) {
        if (len[i] > (1ull << 32)) ok = 0;
        else n += seg[i] = (size_t)len[i];
    }
    if (ok && (x = malloc(n * sizeof(float) + 1)) && fread(x, sizeof(float), n, f) != n) {
        free(x);
        x = NULL;
    }
    fclose(f);
    *nseg = ok ? (int)k : 0;
    return x;
}

typedef struct fit_job {
    const char *kind, *data, *out;
    double batch, epochs;
    genesis_team *team;       /* NULL: MPI when launched with several ranks, else one worker */
    genesis_dist_kind team_kind;
    int rank, rc;
} fit_job;

static int fit_one(fit_job *j) {
    genesis_ctx *ctx = NULL;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 1;
    genesis_ctx_set_seed(ctx, 1);
    genesis_ctx_set_threads(ctx, 1);
    /* NCCL ranks run on their GPU; MPI_EQUIV_DEVICE=cuda puts the others on GPU 0 too */
    const char *dev = getenv("MPI_EQUIV_DEVICE");
    int gpu = (j->team && j->team_kind == GENESIS_DIST_NCCL) || (dev && !strcmp(dev, "cuda"));
    genesis_ctx_set_device(ctx, gpu ? GENESIS_DEVICE_CUDA : GENESIS_DEVICE_CPU, 0);
    if (j->team && j->team_kind == GENESIS_DIST_NCCL) {
        int zero = 0; /* every rank on GPU 0 unless MPI_EQUIV_GPUS says how many to spread over */
        const char *g = getenv("MPI_EQUIV_GPUS");
        int ng = g ? atoi(g) : 1, list[64];
        for (int i = 0; i < 64; i++) list[i] = i;
        genesis_ctx_set_devices(ctx, ng > 1 ? list : &zero, ng > 1 && ng <= 64 ? ng : 1);
    }
    if (!j->team && genesis_dist_launched() &&
        genesis_ctx_set_distributed(ctx, GENESIS_DIST_MPI) != GENESIS_OK)
        return die(ctx, "set_distributed");
    if (j->team && genesis_ctx_join_team(ctx, j->team, j->rank, j->team_kind) != GENESIS_OK)
        return die(ctx, "join_team");
    genesis_csv_options co;
    genesis_csv_options_init(&co);
    if (genesis_table_read_csv(ctx, j->data, &co, &t) != GENESIS_OK) return die(ctx, j->data);
    genesis_model_kind kind = strcmp(j->kind, "tvae") == 0 ? GENESIS_MODEL_TVAE : GENESIS_MODEL_CTGAN;
    if (genesis_model_create(ctx, kind, &m) != GENESIS_OK ||
        genesis_model_set_param(m, GENESIS_P_BATCH_SIZE, j->batch) != GENESIS_OK ||
        genesis_model_set_param(m, GENESIS_P_EPOCHS, j->epochs) != GENESIS_OK)
        return die(ctx, "model");
    const char *apm = getenv("MPI_EQUIV_ALPHA_PER_MODE"); /* TVAE's decoder layout */
    if (kind == GENESIS_MODEL_TVAE && apm &&
        genesis_model_set_param(m, GENESIS_P_ALPHA_PER_MODE, atof(apm)) != GENESIS_OK)
        return die(ctx, "alpha-per-mode");
    const char *gc = getenv("MPI_EQUIV_GRADIENT_CHECKPOINTING"); /* docs/memory.md */
    if (gc && genesis_model_set_param(m, GENESIS_P_GRADIENT_CHECKPOINTING, atof(gc)) != GENESIS_OK)
        return die(ctx, "gradient-checkpointing");
    if (genesis_model_fit(m, t, NULL, NULL) != GENESIS_OK) return die(ctx, "fit");
    float *x = NULL;
    size_t n = 0, seg[MAXSEG];
    int nseg = 0;
    if (gen_model_state(m, &x, &n, seg, &nseg) != GENESIS_OK) return die(ctx, "state");
    char path[4096];
    snprintf(path, sizeof path, "%s.rank%d.bin", j->out, genesis_ctx_rank(ctx));
    int rc = write_state(path, x, seg, nseg);
    if (rc) fprintf(stderr, "mpi_equiv: cannot write %s\n", path);
    else
        printf("mpi_equiv: rank %d of %d (%s) wrote %zu floats to %s\n", genesis_ctx_rank(ctx),
               genesis_ctx_world_size(ctx), genesis_ctx_device_name(ctx), n, path);
    free(x);
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    return rc ? 1 : 0;
}

static int fit(int argc, char **argv) {
    if (argc != 7) return fprintf(stderr, "usage: mpi_equiv fit ctgan|tvae DATA BATCH EPOCHS OUT\n"), 2;
    fit_job j = {argv[2], argv[3], argv[6], atof(argv[4]), atof(argv[5]), NULL, GENESIS_DIST_NONE, 0, 0};
    return fit_one(&j);
}

typedef struct team_args {
    char **argv;
    genesis_dist_kind kind;
} team_args;

/* one rank of the team (genesis_team_run calls it on its own thread) */
static int fit_rank(genesis_team *team, int rank, void *user) {
    const team_args *a = user;
    fit_job j = {a->argv[2], a->argv[3], a->argv[6], atof(a->argv[4]), atof(a->argv[5]), team,
                 a->kind, rank, 1};
    return fit_one(&j);
}

/* K ranks as threads of this process (genesis_team_run): host sums (threads) or NCCL on the
 * GPU(s). */
static int fit_team(int argc, char **argv) {
    if (argc != 9)
        return fprintf(stderr, "usage: mpi_equiv team ctgan|tvae DATA BATCH EPOCHS OUT K threads|nccl\n"), 2;
    int K = atoi(argv[7]), rcs[64], rc = 0;
    team_args a = {argv, strcmp(argv[8], "nccl") == 0 ? GENESIS_DIST_NCCL : GENESIS_DIST_THREADS};
    if (K < 1 || K > 64 || genesis_team_run(K, fit_rank, &a, rcs) != GENESIS_OK) return 2;
    for (int r = 0; r < K; r++) rc |= rcs[r];
    return rc;
}

/* Per array of the state: largest |a - b|, and the relative L2 distance |a - b| / |b|
 * (float rounding gives ~1e-6; a wrong slice, noise or scale gives ~1). Passes when every
 * array's relative distance is <= rtol and every |a - b| <= atol. */
static const char *seg_name(int nseg, int i) {
    static const char *const ct[] = {"G params", "G batch-norm running stats", "D params",
                                     "G Adam m", "G Adam v", "D Adam m", "D Adam v"};
    static const char *const tv[] = {"params", "Adam m", "Adam v"};
    if (nseg == 7) return ct[i];
    if (nseg == 3) return tv[i];
    if (nseg == 2) return i == 0 ? "G params" : "G batch-norm running stats";
    if (nseg == 1) return "params";
    return "array";
}

static int compare(const float *a, const float *b, const size_t *seg, int nseg, double atol,
                   double rtol) {
    int bad = 0;
    size_t off = 0;
    for (int k = 0; k < nseg; off += seg[k], k++) {
        double max_abs = 0, dd = 0, bb = 0;
        size_t same = 0, at = off;
        for (size_t i = off; i < off + seg[k]; i++) {
            double d = fabs((double)a[i] - (double)b[i]);
            if (!(d <= max_abs)) {
                max_abs = d;
                at = i;
            }
            same += a[i] == b[i];
            dd += d * d;
            bb += (double)b[i] * b[i];
        }
        double rel = bb > 0 ? sqrt(dd / bb) : sqrt(dd);
        int ok = rel <= rtol && max_abs <= atol;
        bad += !ok;
        printf("mpi_equiv: %-27s %8zu floats, %8zu bit-identical, max |a-b| %.3g (%.9g vs %.9g), "
               "|a-b|/|b| %.3g %s\n",
               seg_name(nseg, k), seg[k], same, max_abs, seg[k] ? a[at] : 0.0, seg[k] ? b[at] : 0.0,
               rel, ok ? "ok" : "OUTSIDE TOLERANCE");
    }
    printf("mpi_equiv: %s (tolerance: |a-b|/|b| <= %g per array, |a-b| <= %g)\n",
           bad ? "FAIL" : "pass", rtol, atol);
    return bad ? 1 : 0;
}

static int compare_files(int argc, char **argv) {
    if (argc != 6) return fprintf(stderr, "usage: mpi_equiv compare A B ATOL RTOL\n"), 2;
    size_t sa[MAXSEG], sb[MAXSEG];
    int ka = 0, kb = 0;
    float *a = read_state(argv[2], sa, &ka), *b = read_state(argv[3], sb, &kb);
    if (!a || !b) return fprintf(stderr, "mpi_equiv: cannot read %s or %s\n", argv[2], argv[3]), 1;
    int same_shape = ka == kb;
    for (int i = 0; same_shape && i < ka; i++) same_shape = sa[i] == sb[i];
    if (!same_shape) return fprintf(stderr, "mpi_equiv: the states have different shapes\n"), 1;
    int rc = compare(a, b, sa, ka, atof(argv[4]), atof(argv[5]));
    free(a);
    free(b);
    return rc;
}

static int compare_models(int argc, char **argv) {
    if (argc != 6) return fprintf(stderr, "usage: mpi_equiv models A.gen B.gen ATOL RTOL\n"), 2;
    genesis_ctx *ctx = NULL;
    genesis_model *ma = NULL, *mb = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 1;
    genesis_ctx_set_device(ctx, GENESIS_DEVICE_CPU, 0);
    if (genesis_model_load(ctx, argv[2], &ma) != GENESIS_OK) return die(ctx, argv[2]);
    if (genesis_model_load(ctx, argv[3], &mb) != GENESIS_OK) return die(ctx, argv[3]);
    float *a = NULL, *b = NULL;
    size_t na = 0, nb = 0, sa[MAXSEG], sb[MAXSEG];
    int ka = 0, kb = 0;
    if (gen_model_state(ma, &a, &na, sa, &ka) != GENESIS_OK ||
        gen_model_state(mb, &b, &nb, sb, &kb) != GENESIS_OK)
        return die(ctx, "state");
    if (na != nb || ka != kb) return fprintf(stderr, "mpi_equiv: the models have different shapes\n"), 1;
    int rc = compare(a, b, sa, ka, atof(argv[4]), atof(argv[5]));
    free(a);
    free(b);
    genesis_model_free(ma);
    genesis_model_free(mb);
    genesis_ctx_free(ctx);
    return rc;
}

static int comm_test(void) {
    genesis_ctx *ctx = NULL;
    gen_backend *be = NULL;
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 1;
    if (genesis_ctx_set_distributed(ctx, GENESIS_DIST_MPI) != GENESIS_OK) return die(ctx, "set_distributed");
    gen_comm *c = ctx->comm;
    int K = c->size, r = c->rank, bad = 0;
    if (gen_backend_cpu_create(ctx, 1, &be) != GENESIS_OK) return die(ctx, "backend");
    size_t sizes[] = {1, 3, 1000, ((size_t)1 << 20) + 7};
    for (int s = 0; s < 4; s++) {
        size_t n = sizes[s];
        float *x = malloc(n * sizeof(float));
        if (!x) return die(ctx, "malloc");
        for (size_t i = 0; i < n; i++) x[i] = (float)((r + 1) * (int)(i % 100) - (int)i % 7);
        if (gen_comm_allreduce_sum(c, be, x, n) != GENESIS_OK) return die(ctx, "allreduce");
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++) {
            /* sum over ranks q of (q + 1) * (i % 100) - i % 7 */
            float want = (float)((K * (K + 1) / 2) * (int)(i % 100) - K * ((int)i % 7));
            wrong += x[i] != want;
        }
        if (wrong) fprintf(stderr, "mpi_equiv comm: rank %d: all-reduce of %zu floats: %zu wrong\n", r, n, wrong);
        bad += wrong != 0;
        free(x);
    }
    double v = r == 0 ? 42.5 : -1.0;
    if (c->ops->broadcast_host(c, &v, sizeof v, 0) != GENESIS_OK || v != 42.5) bad++;
    if (gen_comm_agree(c, 0) != 0 || gen_comm_agree(c, r == K - 1) != 1 || gen_comm_agree(c, 1) != K) bad++;
    if (gen_comm_check_same(c, "a value", 7.0) != GENESIS_OK) bad++;
    genesis_status st = gen_comm_check_same(c, "the answer", r == 1 ? 41.0 : 42.0);
    if (st != GENESIS_ERR_DATA || !strstr(genesis_errmsg(ctx), "the answer")) bad++;
    if (r == 1) printf("mpi_equiv comm: rank 1's mismatch message: %s\n", genesis_errmsg(ctx));
    if (c->reduce_calls != 4) bad++;
    int total = gen_comm_agree(c, bad != 0);
    if (r == 0)
        printf("mpi_equiv comm: %d ranks: all-reduce (4 sizes), broadcast, agree, check_same: %s\n", K,
               total ? "FAILED" : "ok");
    gen_backend_free(be);
    genesis_ctx_free(ctx);
    return total ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "comm")) return comm_test();
    if (argc >= 2 && !strcmp(argv[1], "fit")) return fit(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "team")) return fit_team(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "compare")) return compare_files(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "models")) return compare_models(argc, argv);
    fprintf(stderr, "usage: mpi_equiv fit|compare|models ...\n");
    return 2;
}
