/* expf_neg_exhaustive.c — gen_expf_neg (src/backend/expf_neg.h) against double exp over every
 * float of (-87, 0]: the largest error in ulp (the float spacing at the exact value).
 *   gcc -O2 -std=c11 -I src/backend expf_neg_exhaustive.c -lm && ./a.out */
#include <math.h>
#include <stdio.h>

#include "expf_neg.h"

int main(void) {
    double worst = 0;
    float wx = 0;
    long n = 0;
    for (uint32_t b = 0x80000000u; b < gen_f32_bits(GEN_EXPF_NEG_MIN); b++) {
        float x = gen_bits_f32(b);
        double ex = exp((double)x);
        int e;
        frexp(ex, &e);
        double d = fabs((double)gen_expf_neg(x) - ex) / ldexp(1.0, e - 24);
        if (d > worst) worst = d, wx = x;
        n++;
    }
    printf("%ld floats of (-87, 0]: at most %.3f ulp (at %.9g)\n", n, worst, wx);
    printf("at -87.5, NaN, -0: %g %g %g\n", gen_expf_neg(-87.5f), gen_expf_neg(NAN),
           gen_expf_neg(-0.0f));
    return 0;
}
