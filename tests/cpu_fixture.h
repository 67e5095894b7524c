/*
 * cpu_fixture.h — the Check fixture shared by the gradient tests: a context and a
 * single-threaded CPU backend (`be`, `ctx`), made before each test and freed after it.
 */
#ifndef GEN_CPU_FIXTURE_H
#define GEN_CPU_FIXTURE_H

#include <check.h>

#include "backend.h"

static gen_backend *be;
static genesis_ctx *ctx;

static void setup(void) {
    genesis_ctx_create(&ctx);
    ck_assert_int_eq(gen_backend_cpu_create(ctx, 1, &be), GENESIS_OK);
}
static void teardown(void) {
    gen_backend_free(be);
    genesis_ctx_free(ctx);
}

#endif /* GEN_CPU_FIXTURE_H */
