/*
 * embed.c — a small C program that embeds libgenesis: it learns a CSV table with the default
 * method (genesis_model_kind_default: DDPM; [epochs] passes over the rows), then
 *   1. receives synthetic rows in batches through a callback, printing the first few;
 *   2. pulls the same number of rows as encoded float matrices with the iterator
 *      (genesis_sampler), the way a training tool would feed its own loop, and reports the
 *      mean of the matrices' first column.
 *
 *   cc embed.c $(pkg-config --cflags --libs genesis) -o embed
 *   ./embed data/adult_sample.csv 1000 [epochs]
 */
#include <stdio.h>
#include <stdlib.h>

#include <genesis/genesis.h>

typedef struct summary {
    long long rows;
    int printed;
} summary;

static int on_batch(const genesis_batch *b, void *user) {
    summary *s = user;
    char buf[256];
    for (int64_t r = 0; r < genesis_batch_nrows(b); r++) {
        if (s->printed < 3) {
            for (int c = 0; c < genesis_batch_ncols(b); c++)
                printf("%s%s", c ? "," : "", genesis_batch_text(b, r, c, buf, sizeof buf));
            printf("\n");
            s->printed++;
        }
    }
    s->rows += genesis_batch_nrows(b);
    return 0; /* non-zero would stop sampling early */
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s data.csv rows [epochs]\n", argv[0]);
        return 2;
    }
    genesis_ctx *ctx;
    genesis_table *t = NULL;
    genesis_model *m = NULL;
    summary s = {0, 0};
    if (genesis_ctx_create(&ctx) != GENESIS_OK) return 1;
    genesis_ctx_set_seed(ctx, 42);
    genesis_status st = genesis_table_read_csv(ctx, argv[1], NULL, &t);
    /* the default method (DDPM); epochs as passes over the rows, in its training unit */
    if (st == GENESIS_OK) st = genesis_model_create(ctx, genesis_model_kind_default(), &m);
    genesis_model_kind_info ki;
    double len = 0;
    if (st == GENESIS_OK) st = genesis_model_kind_get_info(genesis_model_get_kind(m), &ki);
    if (st == GENESIS_OK && argc > 3)
        st = genesis_model_epochs_length(m, genesis_table_nrows(t), atof(argv[3]), &len);
    if (st == GENESIS_OK && argc > 3) st = genesis_model_set_param(m, ki.train_param, len);
    if (st == GENESIS_OK) st = genesis_model_fit(m, t, NULL, NULL);
    if (st == GENESIS_OK) st = genesis_model_sample(m, atoll(argv[2]), on_batch, &s);
    /* a pull loop over encoded batches (rows x dim floats, valid until the next call) */
    genesis_sampler *it = NULL;
    long long pulled = 0;
    double first = 0;
    int dim = 0;
    if (st == GENESIS_OK) st = genesis_sampler_create(m, atoll(argv[2]), 1, &it);
    while (st == GENESIS_OK) {
        const float *x;
        int64_t rows;
        st = genesis_sampler_next_encoded(it, &x, &rows, &dim);
        if (st != GENESIS_OK || !x) break;
        for (int64_t r = 0; r < rows; r++) first += x[r * dim];
        pulled += rows;
    }
    genesis_sampler_free(it);
    if (st != GENESIS_OK) {
        fprintf(stderr, "error: %s\n", genesis_errmsg(ctx));
    } else {
        printf("pulled %lld synthetic rows with %d columns\n", s.rows, genesis_table_ncols(t));
        printf("pulled %lld encoded rows of width %d (mean of the first value %.4f)\n", pulled,
               dim, pulled ? first / (double)pulled : 0.0);
    }
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    return st == GENESIS_OK ? 0 : 1;
}
