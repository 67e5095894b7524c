#!/usr/bin/env python3
"""make_wide_table.py — writes wide, high-cardinality benchmark tables (standard library only).

Two shapes, both seeded (the same arguments give the same bytes):

  diabetic  50 columns shaped like UCI "Diabetes 130-US hospitals": 10 numeric columns (counts
            and two measurements with missing values), 37 categorical columns of 2..30 levels
            (demographics, admission codes, 24 medication columns No/Steady/Up/Down, flags),
            three diagnosis columns diag_1..diag_3 of about 700 codes each with Zipf-like
            frequencies (text codes such as "250.83", "V45", "E812"), "?" for missing values,
            and a three-class target `readmitted` (NO, >30, <30) that depends on a few columns.
  wide      200 columns: 60 numeric, 130 categorical of 2..50 levels, 10 of 300..1000
            Zipf-distributed codes, a binary target, about 2% missing cells.

  python3 bench/make_wide_table.py diabetic ROWS [SEED=1] > table.csv
  python3 bench/make_wide_table.py wide ROWS [SEED=1] > table.csv
"""
import bisect
import random
import sys


def zipf_cum(n, s):
    """Cumulative weights of a Zipf(s) law over n ranks."""
    cum, t = [], 0.0
    for k in range(n):
        t += 1.0 / (k + 1) ** s
        cum.append(t)
    return cum


def draw(rng, cum):
    return bisect.bisect_left(cum, rng.random() * cum[-1])


def diag_codes(rng, n):
    """n distinct diagnosis-like codes: numeric ICD-9-like codes, some V and E codes."""
    codes, seen = [], set()
    while len(codes) < n:
        r = rng.random()
        if r < 0.85:
            c = str(rng.randint(1, 999))
            if rng.random() < 0.3:
                c += ".%d" % rng.randint(1, 99)
        elif r < 0.95:
            c = "V%02d" % rng.randint(1, 89)
        else:
            c = "E%d" % rng.randint(800, 999)
        if c not in seen:
            seen.add(c)
            codes.append(c)
    return codes


def diabetic(rows, seed, out):
    rng = random.Random(seed)
    cats = [  # name, levels, Zipf exponent (skew of the level frequencies)
        ("race", ["Caucasian", "AfricanAmerican", "?", "Hispanic", "Other", "Asian"], 1.6),
        ("gender", ["Female", "Male", "Unknown/Invalid"], 0.2),
        ("age", ["[%d-%d)" % (10 * i, 10 * i + 10) for i in range(10)], 0.0),
        ("admission_type_id", [str(i) for i in range(1, 9)], 1.2),
        ("discharge_disposition_id", [str(i) for i in range(1, 27)], 1.5),
        ("admission_source_id", [str(i) for i in range(1, 18)], 1.4),
        ("payer_code", ["?", "MC", "HM", "SP", "BC", "MD", "CP", "UN", "CM", "OG", "PO", "DM",
                        "CH", "WC", "OT", "MP", "SI", "FR"], 1.3),
        ("medical_specialty", ["?", "InternalMedicine", "Emergency/Trauma", "Family/GeneralPractice",
                               "Cardiology", "Surgery-General", "Nephrology", "Orthopedics",
                               "Orthopedics-Reconstructive", "Radiologist", "Pulmonology",
                               "Psychiatry", "Urology", "ObstetricsandGynecology",
                               "Surgery-Cardiovascular/Thoracic", "Gastroenterology",
                               "Surgery-Vascular", "Surgery-Neuro", "PhysicalMedicineandRehabilitation",
                               "Oncology", "Pediatrics", "Hematology/Oncology", "Neurology",
                               "Pediatrics-Endocrinology", "Otolaryngology", "Endocrinology",
                               "Surgery-Thoracic", "Psychology", "Podiatry", "Hospitalist"], 1.1),
        ("max_glu_serum", ["None", "Norm", ">200", ">300"], 2.5),
        ("A1Cresult", ["None", ">8", "Norm", ">7"], 2.0),
    ]
    meds = ["metformin", "repaglinide", "nateglinide", "chlorpropamide", "glimepiride",
            "acetohexamide", "glipizide", "glyburide", "tolbutamide", "pioglitazone",
            "rosiglitazone", "acarbose", "miglitol", "troglitazone", "tolazamide", "examide",
            "citoglipton", "insulin", "glyburide-metformin", "glipizide-metformin",
            "glimepiride-pioglitazone", "metformin-rosiglitazone", "metformin-pioglitazone",
            "sitagliptin"]
    for i, m in enumerate(meds):  # a few medications have 2 or 3 levels only
        lv = ["No", "Steady", "Up", "Down"][: 2 + (i % 3 != 0) + (i % 2 == 0)]
        cats.append((m, lv, 2.0 if m != "insulin" else 0.5))
    cats.append(("change", ["No", "Ch"], 0.3))
    cats.append(("diabetesMed", ["Yes", "No"], 1.0))
    codes = [diag_codes(rng, 700 + 13 * j) for j in range(3)]
    ccum = [zipf_cum(len(c), 1.05) for c in codes]
    kcum = [zipf_cum(len(lv), s) for _, lv, s in cats]
    header = (["time_in_hospital", "num_lab_procedures", "num_procedures", "num_medications",
               "number_outpatient", "number_emergency", "number_inpatient", "number_diagnoses",
               "weight_kg", "glucose_mgdl"] + [c[0] for c in cats] + ["diag_1", "diag_2", "diag_3"]
              + ["readmitted"])
    assert len(header) == 50  # 10 numeric + 36 categorical + 3 diagnosis codes + target
    out.write(",".join(header) + "\n")
    for _ in range(rows):
        sev = rng.gauss(0.0, 1.0)  # a latent severity shared by several columns
        t = max(1, min(14, int(round(4.4 + 3.0 * (0.6 * sev + 0.8 * rng.gauss(0, 1))))))
        lab = max(1, min(132, int(round(43 + 19.7 * (0.4 * sev + 0.9 * rng.gauss(0, 1))))))
        proc = min(6, int(rng.expovariate(0.75)))
        nmed = max(1, min(81, int(round(16 + 8 * (0.5 * sev + 0.85 * rng.gauss(0, 1))))))
        outp = min(42, int(rng.expovariate(2.7)))
        emer = min(76, int(rng.expovariate(5.0)))
        inp = min(21, int(rng.expovariate(1.6 - 0.3 * max(-1.5, min(1.5, sev)))))
        ndiag = max(1, min(16, int(round(7.4 + 1.9 * rng.gauss(0, 1)))))
        weight = "?" if rng.random() < 0.97 else "%.1f" % (60 + 25 * rng.random() + 10 * rng.gauss(0, 1))
        gluc = "?" if rng.random() < 0.3 else "%.1f" % (140 + 45 * (0.5 * sev + 0.8 * rng.gauss(0, 1)))
        row = [str(t), str(lab), str(proc), str(nmed), str(outp), str(emer), str(inp), str(ndiag),
               weight, gluc]
        for (_, lv, _), cum in zip(cats, kcum):
            row.append(lv[draw(rng, cum)])
        for j in range(3):
            row.append("?" if rng.random() < 0.005 * (j + 1) else codes[j][draw(rng, ccum[j])])
        r = rng.random() - 0.08 * inp - 0.05 * sev
        row.append("NO" if r > 0.46 else ">30" if r > 0.11 else "<30")
        out.write(",".join(row) + "\n")


def wide(rows, seed, out):
    rng = random.Random(seed)
    ncont, ncat, ncode = 60, 130, 10
    cat_levels = [2 + (7 * j) % 49 for j in range(ncat)]
    code_levels = [300 + 77 * j for j in range(ncode)]
    kcum = [zipf_cum(n, 1.0) for n in cat_levels]
    ccum = [zipf_cum(n, 1.1) for n in code_levels]
    header = (["x%02d" % j for j in range(ncont)] + ["k%03d" % j for j in range(ncat)]
              + ["code%d" % j for j in range(ncode)] + ["target"])
    header.pop(ncont + ncat - 1)  # 60 + 129 + 10 + target = 200 columns
    out.write(",".join(header) + "\n")
    for _ in range(rows):
        z = rng.gauss(0.0, 1.0)
        row = []
        for j in range(ncont):
            if rng.random() < 0.02:
                row.append("?")
            elif j % 3 == 0:
                row.append("%d" % int(rng.expovariate(0.2)))
            else:
                row.append("%.3f" % (10 * j + (j % 5 + 1) * (0.5 * z + 0.85 * rng.gauss(0, 1))))
        for j in range(ncat - 1):
            row.append("?" if rng.random() < 0.02 else "L%02d" % draw(rng, kcum[j]))
        for j in range(ncode):
            row.append("?" if rng.random() < 0.02 else "C%d" % draw(rng, ccum[j]))
        row.append("1" if rng.random() < 0.3 + 0.15 * max(-1.0, min(1.0, z)) else "0")
        out.write(",".join(row) + "\n")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("diabetic", "wide"):
        sys.stderr.write(__doc__)
        return 2
    rows = int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    (diabetic if sys.argv[1] == "diabetic" else wide)(rows, seed, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
