#!/usr/bin/env bash
# dp.sh — differential privacy through the CLI (docs/privacy.md): `--epsilon` fits and
# `genesis inspect` shows the guarantee (and "no formal guarantee" without it); kinds and
# settings DP cannot serve are refused with one clear error; `generate --method ctgan
# --epsilon --delta` writes rows and keeps the guarantee in the model file; TVAE's, DDPM's and
# CTGAN's DP fits give the same model file at 1 and 2 threads; and a membership-inference check
# on data/adult_sample.csv: TVAE is trained on its first 1000 rows (members) without DP (300
# epochs, batch 50: it memorises) and with --epsilon 8, and a distance-to-closest-record
# attack (mia_dcr.py) scores how well a row's distance to the synthetic rows tells members
# from the other 1000 rows. The non-DP model must give the attack an AUC of at least 0.515
# (else the check is not sensitive), the DP model at most 0.525, and the DP model at least
# 0.015 less than the non-DP one (left out when GENESIS_SLOW_TESTS=0: the sanitizer run).
#
#   bash tests/cli/dp.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

SMALL=(-q --threads 1 --seed 3)
section "refusals"
run timegan "$G" fit "${SMALL[@]}" -i "$ADULT" -m "$W/c.gen" --method timegan --epsilon 1
expect_error 2 "--epsilon applies to --method ctgan, tvae or ddpm"
run ctgan_tiny "$G" generate "${SMALL[@]}" -i "$ADULT" -o "$W/c.csv" --method ctgan --epochs 1 \
    --epsilon 0.01 --delta 1e-6
expect_error 2 "too small for the accountant to certify"
run ctgan_pac "$G" fit "${SMALL[@]}" -i "$ADULT" -m "$W/c.gen" --method ctgan --epochs 1 \
    --epsilon 3 --pac 10
expect_error 2 "--pac 10 cannot be used with --epsilon"
run tiny "$G" fit "${SMALL[@]}" -i "$ADULT" -m "$W/t.gen" --method tvae --epochs 1 --epsilon 0.001
expect_error 1 "epsilon"
run bf16 "$G" fit "${SMALL[@]}" -i "$ADULT" -m "$W/t.gen" --method tvae --epochs 1 --epsilon 3 \
    --precision bf16
expect_error 1 "fp32"

section "DP-CTGAN's memory estimate counts its pac-1 discriminator"
run est_plain "$G" estimate --device cpu -i "$ADULT" --method ctgan --json
run est_dp "$G" estimate --device cpu -i "$ADULT" --method ctgan --epsilon 3 --json
if [ -n "$PY" ]; then
    r=$("$PY" -c 'import json, sys
p, d = (json.load(open(f)) for f in sys.argv[1:3])
# pac 1: ten times the discriminator inputs per batch row, a first layer a tenth as wide
assert d["activations_per_row"][0] > 2 * p["activations_per_row"][0], (d["activations_per_row"], p["activations_per_row"])
assert d["parameters"][0] < p["parameters"][0], (d["parameters"], p["parameters"])
print("ok")' "$W/est_plain.out" "$W/est_dp.out" 2>&1)
    [ "$r" = ok ] && pass "[estimate --epsilon] the pac-1 discriminator: more activations per row, fewer parameters" ||
        fail "[estimate --epsilon] $r"
fi

section "DP-CTGAN through generate: rows out, the guarantee in the model file"
run ctgan_gen "$G" generate "${SMALL[@]}" -i "$ADULT" -o "$W/ctgan_dp.csv" -n 200 --method ctgan \
    --epochs 2 --epsilon 3 --delta 1e-5 -m "$W/ctgan_dp.gen"
expect_ok
[ "$(wc -l < "$W/ctgan_dp.csv")" -eq 201 ] && pass "[ctgan] 200 rows written" \
    || fail "[ctgan] $(wc -l < "$W/ctgan_dp.csv") lines written, want 201"
run inspect_ctgan "$G" inspect -m "$W/ctgan_dp.gen"
grep -Eq "^privacy: \(([0-9.]+), 1e-05\)-differentially private \(asked for epsilon 3\)" \
    "$W/inspect_ctgan.out" && grep -q "DP-SGD on CTGAN's discriminator only" "$W/inspect_ctgan.out" \
    && pass "[ctgan] inspect shows (epsilon, delta) and the mechanism" \
    || fail "[ctgan] inspect: $(grep -A4 privacy "$W/inspect_ctgan.out")"

section "the same seed gives the same model file at 1 and 2 threads"
for m in tvae ddpm ctgan; do
    len=(--epochs 3); [ $m = ddpm ] && len=(--iterations 30)
    for th in 1 2; do
        run "det_${m}_$th" "$G" fit -q --threads $th --seed 5 -i "$ADULT" -m "$W/det_${m}_$th.gen" \
            --method $m "${len[@]}" --epsilon 3
        expect_ok
    done
    cmp -s "$W/det_${m}_1.gen" "$W/det_${m}_2.gen" && pass "[$m] DP fit: identical files" \
        || fail "[$m] DP fit: the model files differ between 1 and 2 threads"
done

section "membership inference (members: rows 1-1000, non-members: rows 1001-2000)"
if ! slow_tests; then
    echo "  skipped: GENESIS_SLOW_TESTS=0 (the sanitizer run); the attack needs 400 epochs of fits"
    finish
fi
head -1001 "$ADULT" > "$W/mem.csv"
{ head -1 "$ADULT"; tail -n +1002 "$ADULT"; } > "$W/non.csv"
run fit_plain "$G" fit "${SMALL[@]}" -i "$W/mem.csv" -m "$W/plain.gen" --method tvae --epochs 300 \
    --batch-size 50
expect_ok
run fit_dp "$G" fit "${SMALL[@]}" -i "$W/mem.csv" -m "$W/dp.gen" --method tvae --epochs 100 \
    --batch-size 50 --epsilon 8
expect_ok
run inspect_dp "$G" inspect -m "$W/dp.gen"
grep -Eq "^privacy: \(([0-9.]+), 0.001\)-differentially private \(asked for epsilon 8\)" \
    "$W/inspect_dp.out" && pass "[inspect] the DP model shows (epsilon, delta = 1/1000)" \
    || fail "[inspect] no privacy line: $(grep privacy "$W/inspect_dp.out")"
run inspect_plain "$G" inspect -m "$W/plain.gen"
grep -q "privacy: no formal guarantee" "$W/inspect_plain.out" \
    && pass "[inspect] the plain model shows no guarantee" || fail "[inspect] plain model: no privacy line"
for m in plain dp; do
    run "sample_$m" "$G" sample "${SMALL[@]}" -m "$W/$m.gen" -o "$W/$m.csv" -n 1000
    expect_ok
done
if ! python3 -c "import numpy, pandas" 2>/dev/null; then
    echo "  skipped: the attack needs python3 with numpy and pandas"
else
    MIA="$(dirname "$0")/mia_dcr.py"
    a_plain=$(python3 "$MIA" "$W/mem.csv" "$W/non.csv" "$W/plain.csv" | awk '{print $2}')
    a_dp=$(python3 "$MIA" "$W/mem.csv" "$W/non.csv" "$W/dp.csv" | awk '{print $2}')
    echo "  attack AUC: without DP $a_plain, with epsilon 8 $a_dp"
    awk -v a="$a_plain" 'BEGIN { exit !(a >= 0.515) }' \
        && pass "[mia] the attack sees the non-DP model's members (AUC $a_plain >= 0.515)" \
        || fail "[mia] the attack is not sensitive: non-DP AUC $a_plain < 0.515"
    awk -v a="$a_dp" 'BEGIN { exit !(a <= 0.525) }' \
        && pass "[mia] the DP model hides its members (AUC $a_dp <= 0.525)" \
        || fail "[mia] DP model: AUC $a_dp > 0.525"
    awk -v a="$a_plain" -v b="$a_dp" 'BEGIN { exit !(a - b >= 0.015) }' \
        && pass "[mia] DP lowers the attack's AUC by at least 0.015" \
        || fail "[mia] DP AUC $a_dp is not 0.015 below the non-DP $a_plain"
fi
finish
