# the train / holdout split of the three public tables (80 / 20, shuffled with seed 0)
import pandas as pd
for name in ["bank", "males", "chile"]:
    df = pd.read_csv(f"/work/tables/{name}.csv").sample(frac=1.0, random_state=0)
    n = int(len(df) * 0.8)
    df.iloc[:n].to_csv(f"{name}_train.csv", index=False)
    df.iloc[n:].to_csv(f"{name}_hold.csv", index=False)
