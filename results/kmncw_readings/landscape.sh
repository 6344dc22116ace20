#!/bin/sh
# Scores of the KM-NCW readings (results/kmncw_readings/README.md), from the repository root.
# The runs: docfact sweep configs/lccf_tdt2_reference.yaml --param M.form=scaled,ncut,ncut_hollow
#   --by M.n_replicates=1,10 --k 3,5,7,9 --runs 10 --jobs 1 --out results/kmncw_readings/lccf_tdt2/M
# for M = KM-NCW (10 runs) and KM-NCW-poly (form=ncut,ncut_hollow, 5 runs); scaled-1 is the
# committed table (the same seeds); held-out even k: --param M.form=ncut_hollow
#   --by M.n_replicates=1 (and 10 for KM-NCW) --k 2,4,6,8,10 --runs 5
#   --out results/kmncw_readings/lccf_tdt2/heldout/M
R=results/kmncw_readings/lccf_tdt2
RUNS=${RUNS:-5}
for M in KM-NCW KM-NCW-poly; do
  extra=""
  [ $M = KM-NCW ] && extra="scaled-10=$R/$M/form=scaled/n_replicates=10"
  .venv/bin/python -m docfact.report.landscape configs/lccf_tdt2_reference.yaml $R/$M-odd-k.csv \
    --k 3,5,7,9 --runs "$RUNS" --methods $M scaled-1=results/lccf_tdt2_reference $extra \
    ncut-1=$R/$M/form=ncut/n_replicates=1 ncut-10=$R/$M/form=ncut/n_replicates=10 \
    hollow-1=$R/$M/form=ncut_hollow/n_replicates=1 hollow-10=$R/$M/form=ncut_hollow/n_replicates=10
  extra=""
  [ $M = KM-NCW ] && extra="hollow-10=$R/heldout/$M/form=ncut_hollow/n_replicates=10"
  .venv/bin/python -m docfact.report.landscape configs/lccf_tdt2_reference.yaml \
    $R/$M-heldout-even-k.csv --k 2,4,6,8,10 --runs "$RUNS" --methods $M \
    scaled-1=results/lccf_tdt2_reference hollow-1=$R/heldout/$M/form=ncut_hollow/n_replicates=1 $extra
done
