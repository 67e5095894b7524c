#!/usr/bin/env bash
# inspect.sh — `genesis inspect -m model.gen [--json]`: a CTGAN and a DDPM model of
# data/adult_sample.csv are listed with their method, the settings they were fitted with (a
# changed one marked with its default), the sampling settings, and every column with its type,
# levels, modes and point masses; a checkpoint also says how far its fit got (in epochs, or
# iterations for a DDPM checkpoint); --json is one
# valid JSON object holding the same; a missing
# -m, a missing or truncated file and a training setting are errors naming what is wrong.
#
#   bash tests/cli/inspect.sh <genesis-binary> <source-dir> <build-dir>
. "$(dirname "$0")/common.bash" "$@"

SMALL=(-q --threads 1 --seed 3)
section "a CTGAN model"
run fit_ctgan "$G" fit "${SMALL[@]}" --method ctgan -i "$ADULT" -m "$W/c.gen" --epochs 1 --batch-size 100 \
    --generator-dim 32 --discriminator-dim 32 --embedding-dim 16
expect_ok
run inspect_ctgan "$G" inspect -m "$W/c.gen"
expect_ok
T=$W/inspect_ctgan.out
grep -q "a ctgan model" "$T" && pass "[inspect] names the method" || fail "[inspect] no method line: $(head -1 "$T")"
grep -Eq "^  epochs +1 +\(default 300\)" "$T" && pass "[inspect] a changed setting shows its default" \
    || fail "[inspect] no 'epochs 1 (default 300)' line"
grep -Eq "^  pac +10$" "$T" && pass "[inspect] a default setting is listed plainly" || fail "[inspect] no 'pac 10' line"
grep -q "sampling settings" "$T" && grep -Eq "^  clamp-range " "$T" && pass "[inspect] lists the sampling settings" \
    || fail "[inspect] no sampling settings"
ncol=$(grep -cE "^ +[0-9]+  " "$T")
[ "$ncol" = 15 ] && pass "[inspect] lists the 15 columns" || fail "[inspect] lists $ncol columns, want 15"
grep -Eq "capital-gain +continuous, whole numbers; [0-9]+ modes?, point mass at 0" "$T" \
    && pass "[inspect] capital-gain: modes and the point mass at 0" \
    || fail "[inspect] capital-gain line: $(grep capital-gain "$T")"
grep -Eq 'sex +categorical, 2 levels: " Male", " Female"' "$T" \
    && pass "[inspect] sex: both levels, quoted with their leading space" \
    || fail "[inspect] sex line: $(grep ' sex ' "$T")"

run inspect_json "$G" inspect -m "$W/c.gen" --json
expect_ok
if [ -n "$PY" ]; then
    if "$PY" - "$W/inspect_json.out" >"$W/json_check.txt" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"] == "ctgan", d["method"]
assert d["settings"]["epochs"] == {"value": 1, "default": False}, d["settings"]["epochs"]
assert d["settings"]["precision"]["value"] == "fp32"
assert "clamp-range" in d["sampling_settings"]
cols = {c["name"]: c for c in d["columns"]}
assert len(cols) == 15
cg = cols["capital-gain"]
assert cg["type"] == "continuous" and cg["integer"] and 0.0 in cg["point_masses"], cg
assert len(cg["modes"]) >= 1 and abs(sum(m["weight"] for m in cg["modes"]) - 1) < 0.5, cg["modes"]
assert cols["sex"]["levels"] == [" Male", " Female"], cols["sex"]
print("ok", len(cols), "columns")
PY
    then pass "[inspect --json] valid JSON with the settings, modes, point masses and levels"
    else fail "[inspect --json] $(tail -3 "$W/json_check.txt" | tr '\n' ' ')"; fi
else
    grep -q '"method":"ctgan"' "$W/inspect_json.out" && pass "[inspect --json] names the method (no Python to parse it)" \
        || fail "[inspect --json] no method"
fi

section "a DDPM model"
run fit_ddpm "$G" fit "${SMALL[@]}" --method ddpm -i "$ADULT" -m "$W/d.gen" --iterations 20 --generator-dim 32
expect_ok
run inspect_ddpm "$G" inspect -m "$W/d.gen"
expect_ok
grep -q "a ddpm model" "$W/inspect_ddpm.out" && grep -Eq "^  iterations +20 +\(default" "$W/inspect_ddpm.out" &&
    grep -Eq "^  sample-steps " "$W/inspect_ddpm.out" \
    && pass "[inspect ddpm] method, iterations and sample-steps" \
    || fail "[inspect ddpm] $(head -3 "$W/inspect_ddpm.out" | tr '\n' ' ')"

section "a checkpoint"
run fit_ck "$G" fit "${SMALL[@]}" --method ctgan -i "$ADULT" -m "$W/k.gen" --epochs 2 --batch-size 100 \
    --generator-dim 32 --discriminator-dim 32 --checkpoint "$W/ck.gen" --checkpoint-every 1
expect_ok
run inspect_ck "$G" inspect -m "$W/ck.gen"
expect_ok
if grep -Eq "a checkpoint: [12] of 2 epochs done \(genesis fit --resume .*ck.gen continues it\)" "$W/inspect_ck.out" &&
   [ "$(grep -cE "^ +[0-9]+  [a-z-]+ +(continuous|categorical)" "$W/inspect_ck.out")" = 15 ]; then
    pass "[inspect checkpoint] how far the fit got, and the 15 columns"
else
    fail "[inspect checkpoint] $(head -3 "$W/inspect_ck.out" | tr '\n' ' ')"
fi
# a DDPM fit counts iterations, not epochs: its checkpoint says so
run fit_ck_ddpm "$G" fit "${SMALL[@]}" --method ddpm -i "$ADULT" -m "$W/kd.gen" --iterations 20 \
    --batch-size 100 --generator-dim 32 --checkpoint "$W/ckd.gen" --checkpoint-every 10
expect_ok
run inspect_ck_ddpm "$G" inspect -m "$W/ckd.gen"
expect_ok
grep -Eq "a checkpoint: (10|20) of 20 iterations done" "$W/inspect_ck_ddpm.out" \
    && pass "[inspect checkpoint ddpm] counts iterations" \
    || fail "[inspect checkpoint ddpm] $(grep "a checkpoint" "$W/inspect_ck_ddpm.out")"
run inspect_ck_json "$G" inspect -m "$W/ck.gen" --json
grep -Eq '"checkpoint":\{"done":[12],"total":2\}' "$W/inspect_ck_json.out" && pass "[inspect checkpoint --json] done and total" \
    || fail "[inspect checkpoint --json] $(head -c 200 "$W/inspect_ck_json.out")"
run inspect_model_json "$G" inspect -m "$W/c.gen" --json
grep -q '"checkpoint":null' "$W/inspect_model_json.out" && pass "[inspect --json] a model file: checkpoint null" \
    || fail "[inspect --json] no checkpoint:null for a model file"

section "errors"
run no_model "$G" inspect
expect_error 2 "missing -m/--model"
run no_file "$G" inspect -m "$W/none.gen"
expect_error 1 "none.gen"
head -c 100 "$W/c.gen" >"$W/trunc.gen"
run truncated "$G" inspect -m "$W/trunc.gen"
expect_error 1 "trunc.gen" "truncated"
run a_setting "$G" inspect -m "$W/c.gen" --epochs 3
expect_error 2 "--epochs does not apply to 'inspect'"
run help "$G" inspect --help
[ "$RC" = 0 ] && grep -q "genesis inspect -m model.gen" "$W/help.out" && pass "[inspect --help] usage" \
    || fail "[inspect --help] exit $RC"

finish
