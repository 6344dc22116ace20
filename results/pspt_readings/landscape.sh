#!/bin/sh
# Scores of the PSPt readings (results/pspt_readings/README.md), from the repository root.
# The runs: docfact sweep configs/pspt_tdt2_reference.yaml --param pspt.scale=sums,relative
#   --by pspt.diagonal=keep,zero --k 3,5,7,9 --runs 5 --jobs 1 --out results/pspt_readings/pspt_tdt2
# (literal-keep is the table of this audit's time, now the sensitivity table pspt_tdt2_reference:
# the same seeds give the same draws and starts), and the
# held-out even k: --param pspt.scale=relative --by pspt.diagonal=zero --k 2,4,6,8,10 --runs 5
#   --out results/pspt_readings/pspt_tdt2/heldout
R=results/pspt_readings/pspt_tdt2
RUNS=${RUNS:-3}
HELDOUT_RUNS=${HELDOUT_RUNS:-1}
.venv/bin/python -m docfact.report.landscape configs/pspt_tdt2.yaml $R/landscape-odd-k.csv \
  --k 3,5,7,9 --runs "$RUNS" --methods AA-PSPt,NC-PSPt \
  literal-keep=results/pspt_tdt2_reference sums-keep=$R/scale=sums/diagonal=keep \
  sums-zero=$R/scale=sums/diagonal=zero relative-keep=$R/scale=relative/diagonal=keep \
  relative-zero=$R/scale=relative/diagonal=zero
.venv/bin/python -m docfact.report.landscape configs/pspt_tdt2.yaml $R/heldout-even-k.csv \
  --k 2,4,6,8,10 --runs "${HELDOUT_RUNS:-$RUNS}" --methods AA-PSPt,NC-PSPt \
  literal-keep=results/pspt_tdt2_reference relative-zero=$R/heldout/scale=relative/diagonal=zero
# The baselines on the same draws (the committed table), for the paper's claim PSPt > HHt, AA, NC
for part in "odd-k 3,5,7,9 $RUNS" "even-k 2,4,6,8,10 ${HELDOUT_RUNS:-$RUNS}"; do
  set -- $part
  .venv/bin/python -m docfact.report.landscape configs/pspt_tdt2.yaml $R/baselines-$1.csv \
    --k "$2" --runs "$3" --methods AA,AA-HHt,NC,NC-HHt committed=results/pspt_tdt2_reference
done
# The second held-out round, complete at k = 2-8 only (2 runs: a score needs two)
.venv/bin/python -m docfact.report.landscape configs/pspt_tdt2.yaml $R/heldout-even-k-2-runs.csv \
  --k 2,4,6,8 --runs 2 --methods AA-PSPt,NC-PSPt \
  literal-keep=results/pspt_tdt2_reference relative-zero=$R/heldout/scale=relative/diagonal=zero
.venv/bin/python -m docfact.report.landscape configs/pspt_tdt2.yaml $R/baselines-even-k-2-runs.csv \
  --k 2,4,6,8 --runs 2 --methods AA,AA-HHt,NC,NC-HHt committed=results/pspt_tdt2_reference
