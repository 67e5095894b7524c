/*
 * bench_make_table.c — writes the 50-column benchmark table of "training across dataset sizes"
 * (bench/train_sizes.sh): 25 continuous and 25 categorical columns whose joint structure is
 * known exactly, so that a synthetic copy can be checked against it. Rows are streamed: memory
 * does not grow with the row count, and 10M rows (about 3.6 GB of CSV) take about a minute.
 *
 *   bench_make_table ROWS [SEED=1] [OUT.csv|-]      (- or nothing: stdout)
 *
 * The same ROWS and SEED give the same bytes (one xoshiro256** stream seeded by splitmix64, the
 * libm of the machine for exp/log/erfc). The structure below does not depend on the seed.
 *
 * Columns, in file order c01,k01,c02,k02,...,c25,k25. Every row draws three independent
 * latent factors z1, z2, z3 ~ N(0,1) and a latent cluster g in {0,1,2} with probabilities
 * 0.5/0.3/0.2, independent of the z's; every e below is a fresh N(0,1) draw.
 *
 * Continuous:
 *   c01..c05  linear Gaussian: mu + sd*(a.z + sqrt(1-|a|^2) e), loadings a =
 *             c01 (0.9,0,0), c02 (0.8,0.3,0), c03 (-0.6,0,0.5), c04 (0,0.7,0), c05 (0,0,0.9);
 *             mu = 50,100,0,-20,1000; sd = 10,25,1,5,200. So corr(ci,cj) = a_i.a_j exactly:
 *             c01~c02 0.72, c01~c03 -0.54, c02~c03 -0.48, c02~c04 0.21, c03~c05 0.45,
 *             every other pair 0.  4 decimals.
 *   c06..c10  three-mode mixtures by cluster: M[g] + s*(0.5 z2 + 0.866 e), modes M =
 *             c06 (-3,0,4) s 0.6; c07 (10,20,35) s 2; c08 (0,5,-5) s 1; c09 (100,300,200) s 30;
 *             c10 (-1,1,3) s 0.3; weights 0.5/0.3/0.2.  4 decimals.
 *   c11..c15  log-normal: exp(m + s*(b z1 + sqrt(1-b^2) e)), m = 3,5,1,8,0; s = 0.8,1,0.5,1.2,
 *             0.6; b = 0.7,0.5,0.3,-0.5,0 (normal-score correlation with z1; c11~c12 0.35).
 *             4 decimals.
 *   c16..c18  zero-inflated amounts: exactly 0 with probability 0.9 / 0.7 / 0.5 (when
 *             0.6 z3 + 0.8 e < the matching normal quantile), else exp(m + s e), m = 8,6,4,
 *             s = 1,0.8,0.5, 2 decimals.  The zero share rises with z3.
 *   c19       point mass at 40: exactly 40 with probability 0.45, else 40 + 12(0.5 z1 +
 *             0.866 e), 1 decimal.
 *   c20       sentinel: exactly -1 with probability 0.2, else uniform(0,100), 3 decimals.
 *   c21       integer age-like: clamp(round(38 + 13(0.6 z1 + 0.8 e)), 17, 90).
 *   c22       uniform(0,1), independent of everything, 4 decimals.
 *   c23       heavy-tailed Student t, 3 degrees of freedom, independent, 4 decimals.
 *   c24       bimodal by the sign of z2: (z2 > 0 ? 10 : -10) + 2e, 4 decimals.
 *   c25       near copy: 0.5*c04 + 0.2e, so corr(c04,c25) = 2.5/sqrt(6.29) = 0.9968. 4 decimals.
 *
 * Categorical (labels L00, L01, ... where Lq is the q-th most likely level):
 *   Most columns are "ordered probit": u = r*(w.z)/|w| + sqrt(1-r^2) e ~ N(0,1); the normal
 *   line is cut into L intervals whose probabilities are Zipf weights p_q ~ 1/(q+1)^s, so the
 *   marginal of Lq is exactly p_q, and the intervals are placed along u in a fixed shuffled
 *   order (so the level order is not the frequency order). r is the latent correlation with
 *   the driver w.z (r = 0: independent of everything).
 *     col  L   s    driver    r      col  L   s    driver     r
 *     k02  2  1.2   z1       0.8     k12 15  1.2   z1        0.7
 *     k03  2  0     z2       0.5     k13 16  1     z2+z3     0.5
 *     k04  3  1     z3       0.7     k14 20  1     z1        0.3
 *     k05  4  0.5   z1+z2    0.6     k15 24  1.1   z2        0.6
 *     k06  5  1     z2       0.3     k16 30  1     z3        0.4
 *     k07  6  1.5   z3       0.9     k17  5  0.3   -         0
 *     k08  7  0.8   z1       0.4     k18  9  1     z2        0.8
 *     k09  8  1     z1-z3    0.6     k19  3  0     z3        0.95
 *     k10 10  1     z2       0.2     k20 50  1     z1+z2+z3  0.5
 *     k11 12  0.7   z3       0.5     k22 40  0.8   z2        0.6
 *     k24 50  1.1   -        0       k25 12  0     -         0
 *   (s = 0: uniform; k02 is therefore 0.70/0.30, k03 and k19 uniform.)
 *   k01  the cluster g as A/B/C, replaced by a uniform draw in 10% of rows: P = 0.483/0.303/
 *        0.213; it carries the modes of c06..c10.
 *   k21  4 levels G00..G03: the group of k22's interval (intervals 0-9, 10-19, 20-29, 30-39 in
 *        the u order), a deterministic function of k22 (Cramer's V(k21,k22) = 1).
 *   k23  6 levels: u = (-1, 0, 1.2)[g] + e cut at -1.5,-0.5,0.3,1,1.8 (L00 .. L05 in u order);
 *        depends on the cluster only.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers ------------------------------------------------------------------------ */

typedef struct rng {
    uint64_t s[4];
    int have_spare;
    double spare;
} rng;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
    r->have_spare = 0;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_u64(rng *r) { /* xoshiro256** */
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* uniform in (0,1): never exactly 0 or 1 */
static double rng_unif(rng *r) { return ((double)(rng_u64(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static double rng_gauss(rng *r) { /* Box-Muller, both values used */
    if (r->have_spare) {
        r->have_spare = 0;
        return r->spare;
    }
    double u1 = rng_unif(r), u2 = rng_unif(r);
    double rad = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
    r->spare = rad * sin(th);
    r->have_spare = 1;
    return rad * cos(th);
}

static double norm_cdf(double x) { return 0.5 * erfc(-x * 0.7071067811865476); }

/* ---- the structure ------------------------------------------------------------------------- */

enum { NCONT = 25, NCAT = 25, MAXL = 50 };

typedef struct probit_spec {
    int col;            /* 1-based kNN */
    int levels;
    double s;           /* Zipf exponent */
    double w[3], r;     /* driver and latent correlation */
} probit_spec;

static const probit_spec PROBIT[] = {
    {2, 2, 1.2, {1, 0, 0}, 0.8},   {3, 2, 0, {0, 1, 0}, 0.5},     {4, 3, 1, {0, 0, 1}, 0.7},
    {5, 4, 0.5, {1, 1, 0}, 0.6},   {6, 5, 1, {0, 1, 0}, 0.3},     {7, 6, 1.5, {0, 0, 1}, 0.9},
    {8, 7, 0.8, {1, 0, 0}, 0.4},   {9, 8, 1, {1, 0, -1}, 0.6},    {10, 10, 1, {0, 1, 0}, 0.2},
    {11, 12, 0.7, {0, 0, 1}, 0.5}, {12, 15, 1.2, {1, 0, 0}, 0.7}, {13, 16, 1, {0, 1, 1}, 0.5},
    {14, 20, 1, {1, 0, 0}, 0.3},   {15, 24, 1.1, {0, 1, 0}, 0.6}, {16, 30, 1, {0, 0, 1}, 0.4},
    {17, 5, 0.3, {0, 0, 0}, 0},    {18, 9, 1, {0, 1, 0}, 0.8},    {19, 3, 0, {0, 0, 1}, 0.95},
    {20, 50, 1, {1, 1, 1}, 0.5},   {22, 40, 0.8, {0, 1, 0}, 0.6}, {24, 50, 1.1, {0, 0, 0}, 0},
    {25, 12, 0, {0, 0, 0}, 0},
};
enum { NPROBIT = (int)(sizeof PROBIT / sizeof PROBIT[0]) };

typedef struct probit_col {
    double wz[3];        /* r * w / |w| */
    double noise;        /* sqrt(1 - r^2) */
    double cut[MAXL];    /* upper bound of interval b (in u order), as a normal CDF value */
    int rank[MAXL];      /* frequency rank (the label) of interval b */
    int levels;
} probit_col;

static probit_col PC[NCAT + 1]; /* by column number; only the probit ones are filled */

static void build_structure(void) {
    for (int i = 0; i < NPROBIT; i++) {
        const probit_spec *sp = &PROBIT[i];
        probit_col *pc = &PC[sp->col];
        double n = sqrt(sp->w[0] * sp->w[0] + sp->w[1] * sp->w[1] + sp->w[2] * sp->w[2]);
        for (int f = 0; f < 3; f++) pc->wz[f] = n > 0 ? sp->r * sp->w[f] / n : 0;
        pc->noise = sqrt(1 - sp->r * sp->r);
        pc->levels = sp->levels;
        double p[MAXL], tot = 0;
        for (int q = 0; q < sp->levels; q++) tot += p[q] = pow(q + 1.0, -sp->s);
        /* a fixed shuffle of the ranks along u (depends on the column number only) */
        for (int b = 0; b < sp->levels; b++) pc->rank[b] = b;
        uint64_t st = 0xC0FFEEull + (uint64_t)sp->col;
        for (int b = sp->levels - 1; b > 0; b--) {
            int j = (int)(splitmix64(&st) % (uint64_t)(b + 1));
            int t = pc->rank[b];
            pc->rank[b] = pc->rank[j];
            pc->rank[j] = t;
        }
        double c = 0;
        for (int b = 0; b < sp->levels; b++) pc->cut[b] = c += p[pc->rank[b]] / tot;
        pc->cut[sp->levels - 1] = 2.0; /* everything left */
    }
}

/* ---- output -------------------------------------------------------------------------------- */

typedef struct outbuf {
    FILE *f;
    char buf[1 << 20];
    size_t n;
} outbuf;

static int out_flush(outbuf *o) {
    if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n) return -1;
    o->n = 0;
    return 0;
}

/* v with `dec` decimals, trailing zeros dropped ("12.5", "40", "-0.0031") */
static void out_num(outbuf *o, double v, int dec) {
    static const double P10[] = {1, 10, 100, 1000, 10000};
    double a = fabs(v) * P10[dec];
    if (!(a < 9e15)) { /* not reached by this table; kept for safety */
        o->n += (size_t)snprintf(o->buf + o->n, 32, "%.6g", v);
        return;
    }
    uint64_t x = (uint64_t)llround(a);
    if (x == 0) {
        o->buf[o->n++] = '0';
        return;
    }
    char tmp[32];
    int k = 0, d = dec;
    while (d > 0 && x % 10 == 0) { /* drop trailing zeros of the fraction */
        x /= 10;
        d--;
    }
    for (int i = 0; i < d; i++) {
        tmp[k++] = (char)('0' + x % 10);
        x /= 10;
    }
    if (d > 0) tmp[k++] = '.';
    do {
        tmp[k++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    if (v < 0) tmp[k++] = '-';
    while (k) o->buf[o->n++] = tmp[--k];
}

static void out_label(outbuf *o, char prefix, int q) {
    o->buf[o->n++] = prefix;
    o->buf[o->n++] = (char)('0' + q / 10);
    o->buf[o->n++] = (char)('0' + q % 10);
}

/* ---- one row --------------------------------------------------------------------------------- */

static void make_row(rng *r, double c[NCONT + 1], int dec[NCONT + 1], int k[NCAT + 1]) {
    static const double LIN[5][3] = {{0.9, 0, 0}, {0.8, 0.3, 0}, {-0.6, 0, 0.5}, {0, 0.7, 0}, {0, 0, 0.9}};
    static const double LIN_MU[5] = {50, 100, 0, -20, 1000}, LIN_SD[5] = {10, 25, 1, 5, 200};
    static const double MIX_M[5][3] = {{-3, 0, 4}, {10, 20, 35}, {0, 5, -5}, {100, 300, 200}, {-1, 1, 3}};
    static const double MIX_S[5] = {0.6, 2, 1, 30, 0.3};
    static const double LN_M[5] = {3, 5, 1, 8, 0}, LN_S[5] = {0.8, 1, 0.5, 1.2, 0.6};
    static const double LN_B[5] = {0.7, 0.5, 0.3, -0.5, 0};
    static const double ZI_Q[3] = {1.2815515655446004, 0.5244005127080407, 0.0}; /* Phi^-1(.9,.7,.5) */
    static const double ZI_M[3] = {8, 6, 4}, ZI_S[3] = {1, 0.8, 0.5};
    static const double K23_OFF[3] = {-1, 0, 1.2}, K23_CUT[5] = {-1.5, -0.5, 0.3, 1, 1.8};

    double z[3] = {rng_gauss(r), rng_gauss(r), rng_gauss(r)};
    double ug = rng_unif(r);
    int g = ug < 0.5 ? 0 : ug < 0.8 ? 1 : 2;

    for (int j = 0; j < 5; j++) {
        const double *a = LIN[j];
        double n2 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
        c[1 + j] = LIN_MU[j] + LIN_SD[j] * (a[0] * z[0] + a[1] * z[1] + a[2] * z[2] + sqrt(1 - n2) * rng_gauss(r));
        dec[1 + j] = 4;
    }
    for (int j = 0; j < 5; j++) {
        c[6 + j] = MIX_M[j][g] + MIX_S[j] * (0.5 * z[1] + 0.8660254037844386 * rng_gauss(r));
        dec[6 + j] = 4;
    }
    for (int j = 0; j < 5; j++) {
        double b = LN_B[j];
        c[11 + j] = exp(LN_M[j] + LN_S[j] * (b * z[0] + sqrt(1 - b * b) * rng_gauss(r)));
        dec[11 + j] = 4;
    }
    for (int j = 0; j < 3; j++) {
        double w = 0.6 * z[2] + 0.8 * rng_gauss(r), e = rng_gauss(r);
        c[16 + j] = w < ZI_Q[j] ? 0.0 : exp(ZI_M[j] + ZI_S[j] * e);
        dec[16 + j] = 2;
    }
    {
        double u = rng_unif(r), e = rng_gauss(r);
        c[19] = u < 0.45 ? 40.0 : 40 + 12 * (0.5 * z[0] + 0.8660254037844386 * e);
        dec[19] = 1;
        u = rng_unif(r);
        double v = rng_unif(r);
        c[20] = u < 0.2 ? -1.0 : 100 * v;
        dec[20] = 3;
        double age = floor(38 + 13 * (0.6 * z[0] + 0.8 * rng_gauss(r)) + 0.5);
        c[21] = age < 17 ? 17 : age > 90 ? 90 : age;
        dec[21] = 0;
        c[22] = rng_unif(r);
        dec[22] = 4;
        double e0 = rng_gauss(r), e1 = rng_gauss(r), e2 = rng_gauss(r), e3 = rng_gauss(r);
        c[23] = e0 / sqrt((e1 * e1 + e2 * e2 + e3 * e3) / 3.0);
        dec[23] = 4;
        c[24] = (z[1] > 0 ? 10 : -10) + 2 * rng_gauss(r);
        dec[24] = 4;
        c[25] = 0.5 * c[4] + 0.2 * rng_gauss(r);
        dec[25] = 4;
    }

    /* categorical */
    k[1] = rng_unif(r) < 0.1 ? (int)(rng_unif(r) * 3) : g;
    for (int i = 0; i < NPROBIT; i++) {
        int col = PROBIT[i].col;
        const probit_col *pc = &PC[col];
        double u = pc->wz[0] * z[0] + pc->wz[1] * z[1] + pc->wz[2] * z[2] + pc->noise * rng_gauss(r);
        double F = norm_cdf(u);
        int b = 0;
        while (F >= pc->cut[b]) b++;
        k[col] = col == 22 ? b : pc->rank[b]; /* k22 keeps its interval for k21; mapped below */
    }
    k[21] = k[22] / 10;
    k[22] = PC[22].rank[k[22]];
    {
        double u = K23_OFF[g] + rng_gauss(r);
        int b = 0;
        while (b < 5 && u >= K23_CUT[b]) b++;
        k[23] = b;
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: bench_make_table ROWS [SEED=1] [OUT.csv|-]\n"
                        "writes the 50-column benchmark table (structure: bench/README.md)\n");
        return argc < 2 ? 2 : 0;
    }
    char *end;
    long long rows = strtoll(argv[1], &end, 10);
    if (*end || rows < 0) {
        fprintf(stderr, "bench_make_table: ROWS must be a whole number >= 0\n");
        return 2;
    }
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    const char *path = argc > 3 ? argv[3] : "-";
    static outbuf o;
    o.f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
    if (!o.f) {
        perror(path);
        return 1;
    }
    build_structure();
    rng r;
    rng_seed(&r, seed);
    for (int j = 1; j <= NCONT; j++) {
        o.n += (size_t)sprintf(o.buf + o.n, "%sc%02d,k%02d", j > 1 ? "," : "", j, j);
    }
    o.buf[o.n++] = '\n';
    double c[NCONT + 1];
    int dec[NCONT + 1], k[NCAT + 1];
    for (long long i = 0; i < rows; i++) {
        make_row(&r, c, dec, k);
        for (int j = 1; j <= NCONT; j++) {
            if (j > 1) o.buf[o.n++] = ',';
            out_num(&o, c[j], dec[j]);
            o.buf[o.n++] = ',';
            if (j == 1) {
                o.buf[o.n++] = (char)('A' + k[1]);
            } else {
                out_label(&o, j == 21 ? 'G' : 'L', k[j]);
            }
        }
        o.buf[o.n++] = '\n';
        if (o.n > sizeof o.buf - 4096 && out_flush(&o)) {
            perror(path);
            return 1;
        }
    }
    if (out_flush(&o) || (o.f != stdout ? fclose(o.f) : fflush(o.f))) {
        perror(path);
        return 1;
    }
    return 0;
}
