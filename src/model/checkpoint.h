/*
 * checkpoint.h — resumable training (src/model/checkpoint.c, docs/checkpoints.md): the safe point a
 * network's fit reports, the reader a resumed fit restores from, and the pieces networks
 * write their training state with. The file format of the training-state section is
 * src/model/model_io.c's.
 */
#ifndef GEN_CHECKPOINT_H
#define GEN_CHECKPOINT_H

#include "model_types.h"

/* A network's fit at a safe point (an epoch boundary; TimeGAN: after an iteration): `done`
 * units of `total` finished, `stop` when the progress callback asked to stop (after the
 * ranks agreed). Writes a checkpoint when one is due (every ckpt_every units, ckpt_minutes
 * minutes, or on stop) and returns GENESIS_OK to go on, GENESIS_ERR_STOPPED (stop, the
 * checkpoint written), GENESIS_ERR_CANCELLED (stop without a checkpoint file) or the write's
 * error. The fit must have no pending random draws: the state vt->train_save writes has to
 * determine the rest of the fit. */
genesis_status gen_ckpt_point(genesis_model *m, int64_t done, int64_t total, int stop);
/* A fit whose safe points are epochs, interrupted after step `step` of `steps` of epoch
 * `unit` (1-based) of `total`: GENESIS_ERR_STOPPED with the state of the last finished epoch
 * written (kept in memory by gen_ckpt_point), GENESIS_ERR_CANCELLED without a checkpoint file
 * or before any epoch of this fit finished, or GENESIS_OK when the last epoch was too short to
 * keep its state: the fit then goes on to the end of this epoch, where gen_ckpt_point stops. */
genesis_status gen_ckpt_stop_within(genesis_model *m, int64_t unit, int64_t total, int64_t step,
                                    int64_t steps);
/* When the model continues a checkpoint (m->resume): a reader over the network's state and
 * the units already done; the fit restores from it right after creating its network.
 * Returns 0 when there is nothing to resume. */
int gen_ckpt_resume_reader(genesis_model *m, gen_reader *r, int64_t *done);
/* Writes/reads a sequential host stream's state (key, stream, counter, buffer, position). */
void gen_ckpt_wr_rng(gen_bytes *b, const gen_rng *r);
genesis_status gen_ckpt_rd_rng(gen_reader *rd, gen_rng *r);
/* Writes a permutation of 0 .. n-1 (u64 n, then n values of `width` 4 or 8 bytes); reads one
 * back into order[n], refusing a length other than n, one past the end, or a repeated or out of
 * range value; `what` names it in the messages ("TVAE row order"). */
void gen_ckpt_wr_perm(gen_bytes *b, const int64_t *order, int64_t n, int width);
genesis_status gen_ckpt_rd_perm(genesis_model *m, gen_reader *r, int64_t *order, int64_t n, int width,
                                const char *what);
/* Writes n floats of backend memory; reads n floats into backend memory (finite checked). */
genesis_status gen_ckpt_wr_dev(const genesis_model *m, gen_bytes *b, const float *dev, size_t n);
genesis_status gen_ckpt_rd_dev(genesis_model *m, gen_reader *r, float *dev, size_t n);

/* Writes/reads n FP16 loss-scaling states (backend memory): scale, clean-step run, skipped
 * steps and the step count (docs/precision.md); only FP16 fits have them. */
void gen_ckpt_wr_amp(const genesis_model *m, gen_bytes *b, const gen_amp *amp, int n);
genesis_status gen_ckpt_rd_amp(genesis_model *m, gen_reader *r, gen_amp *amp, int n);

#endif /* GEN_CHECKPOINT_H */
