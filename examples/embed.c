/*
 * embed.c — a small C program that embeds libgenesis: it learns a CSV table, then pulls
 * synthetic rows in batches through a callback (the way a training tool would feed its own
 * loop), printing the first few rows and a per-column summary.
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
    if (st == GENESIS_OK) st = genesis_model_create(ctx, GENESIS_MODEL_CTGAN, &m);
    if (st == GENESIS_OK && argc > 3) st = genesis_model_set_param(m, GENESIS_P_EPOCHS, atof(argv[3]));
    if (st == GENESIS_OK) st = genesis_model_fit(m, t, NULL, NULL);
    if (st == GENESIS_OK) st = genesis_model_sample(m, atoll(argv[2]), on_batch, &s);
    if (st != GENESIS_OK) fprintf(stderr, "error: %s\n", genesis_errmsg(ctx));
    else printf("pulled %lld synthetic rows with %d columns\n", s.rows, genesis_table_ncols(t));
    genesis_model_free(m);
    genesis_table_free(t);
    genesis_ctx_free(ctx);
    return st == GENESIS_OK ? 0 : 1;
}
