/*
 * timegan_ckpt.h — TimeGAN's part of resumable training (timegan_ckpt.c), for the model glue
 * (timegan_model.c): the hook of a fit of model m on network t, whose functions timegan_fit
 * calls (no hook when m neither writes nor continues a checkpoint), and the network's
 * training state (all five networks' weights, every Adam's moments and steps, the noise
 * counter, the batch order and its stream) into b.
 */
#ifndef GEN_TIMEGAN_CKPT_H
#define GEN_TIMEGAN_CKPT_H

#include "timegan.h"

void tg_ckpt_attach(genesis_model *m, timegan *t, tg_ckpt_hook *hook);
genesis_status tg_ckpt_save(const genesis_model *m, timegan *t, gen_bytes *b);

#endif /* GEN_TIMEGAN_CKPT_H */
