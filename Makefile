# docfact: install, test, reproduce.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CONFIG ?= configs/gnmf_tdt2.yaml
JOBS ?= -1
# A local mirror of the public data files, tried before the public addresses (see README).
export DOCFACT_MIRROR ?= $(wildcard $(abspath ../shared/data))

.PHONY: install run test reproduce figures lint bench

install:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'

# A quick table (3 runs at three k, into quick/), printed beside the paper; the full protocol:
# .venv/bin/docfact run $(CONFIG) --out DIR
run:
	$(BIN)/docfact run $(CONFIG) --quick --jobs $(JOBS)

test:
	$(BIN)/python -m pytest -q

lint:
	$(BIN)/ruff check docfact tests bench results

reproduce:
	@for c in configs/*.yaml; do echo "== $$c"; $(BIN)/docfact run $$c --jobs $(JOBS) --quiet || exit $$?; done
	$(MAKE) figures
	$(BIN)/docfact report

# LCCF Figs. 1-3 on both corpora, and the graph weights of Eq. 8 against GNMF's (3 runs per k for
# the sweeps, under the reference code's reading: lccf_*_reference; resumable like the tables);
# LCF's lambda and SparseNMF's unstated sparseness (3 runs at k = 3, 6, 9); LCF Fig. 5 (the bases
# on three 2-D Gaussians); PSPt's eta (3 runs at k = 3, 6, 9); RCF Fig. 3 (20NG: the labelled
# fraction by the links propagated, 3 runs per k), Figs. 1 and 2 (TDT2 and Reuters, all 30 and 13
# classes, 10 runs) and Figs. 4-6 (alpha, p, lambda on TDT2 at k = 9 and on Reuters at k = 5, 20
# runs, as the paper); GNMF's LSI dimension (10 runs per k; 10 and 20 with 50); RCF TDT2's
# KMeans with one setting changed at a time (starts, replicates, distance: at k = 9 on 30 draws,
# and at k = 24 to 30 on the table's draws).
figures:
	@for c in lccf_tdt2_reference lccf_reuters_reference; do \
	  $(BIN)/docfact plot convergence configs/$$c.yaml --k 10 --methods NMF,CF,LCCF || exit $$?; \
	  $(BIN)/docfact sweep configs/$$c.yaml --param LCCF.lambda=1,10,100,1000,10000 \
	    --baselines KM,NMF,CF --runs 3 --jobs $(JOBS) > /dev/null || exit $$?; \
	  $(BIN)/docfact sweep configs/$$c.yaml --param LCCF.p=1,3,5,7,9,11,15,19 \
	    --baselines KM,NMF,CF --runs 3 --jobs $(JOBS) > /dev/null || exit $$?; \
	  $(BIN)/docfact sweep configs/$$c.yaml --param LCCF.weight=binary,cosine \
	    --baselines KM,NMF,CF --runs 3 --jobs $(JOBS) > /dev/null || exit $$?; \
	done
	@for c in lcf_yale_reference lcf_orl_reference; do \
	  $(BIN)/docfact sweep configs/$$c.yaml --param LCF.lambda=0,0.1,0.3,1,3 --baselines NMF \
	    --k 3,6,9 --runs 3 --jobs $(JOBS) > /dev/null || exit $$?; \
	done
	$(BIN)/docfact sweep configs/lcf_yale_reference.yaml --param SparseNMF.sparseness_V=0.3,0.5,0.7 \
	  --k 3,6,9 --runs 3 --jobs $(JOBS) > /dev/null
	$(BIN)/docfact plot anchors > /dev/null
	@for c in pspt_tdt2_reference pspt_reuters_reference; do \
	  $(BIN)/docfact sweep configs/$$c.yaml --param pspt.eta=0.8,0.99,0.999,1 \
	    --k 3,6,9 --runs 3 --jobs $(JOBS) > /dev/null || exit $$?; \
	done
	$(BIN)/docfact sweep configs/rcf_20newsgroups_t2_reference.yaml \
	  --param protocol.labelled=0.02,0.05,0.1,0.15,0.2 --by RCF.links=must,cannot,both \
	  --baselines LCCF --runs 3 --jobs $(JOBS) > /dev/null
	@for c in gnmf_tdt2 gnmf_reuters; do \
	  $(BIN)/docfact sweep configs/$$c.yaml --param LSI+K-means.dimension=5,10,20,50,100 \
	    --baselines K-means --runs 10 --jobs $(JOBS) --out results/$$c/lsi_dimension \
	    > /dev/null || exit $$?; \
	  $(BIN)/docfact sweep configs/$$c.yaml --param LSI+K-means.dimension=10,20 \
	    --baselines K-means --runs 50 --jobs $(JOBS) --out results/$$c/lsi_dimension/runs50 \
	    > /dev/null || exit $$?; \
	done
	$(call rcf_figures,rcf_reuters_t2_reference,13,5,2 4 6 8 10)
	$(call rcf_figures,rcf_tdt2_t2_reference,30,9,1 3 5 7 9)
	@for p in KMeans.n_replicates=1,10 KMeans.init=random,k-means++ KMeans.metric=cosine,euclidean; do \
	  $(BIN)/docfact sweep configs/rcf_tdt2_t2_reference.yaml --param $$p --k 9 --runs 30 \
	    --jobs $(JOBS) --out results/rcf_tdt2_t2_reference/draws_k9 > /dev/null || exit $$?; \
	  $(BIN)/docfact sweep configs/rcf_tdt2_t2.yaml --param $$p --k 24,27,30 --runs 10 \
	    --jobs $(JOBS) --out results/rcf_tdt2_t2/kmeans_large_k > /dev/null || exit $$?; \
	done

comma := ,
space := $(subst ,, )
# RCF Fig. 1 or 2 (config $(1): the labelled fraction on all $(2) classes, 10 runs) and Figs. 4-6
# (alpha, p over the values $(4), lambda at k = $(3), t = 2% and 20%, 20 runs, as the paper).
define rcf_figures
	$(BIN)/docfact sweep configs/$(1).yaml --param protocol.labelled=0.05,0.1,0.25 \
	  --baselines KMeans,CF,LCCF --k $(2) --runs 10 --jobs $(JOBS) \
	  --out results/$(1)/constraints > /dev/null
	@for s in RCF.alpha=0.1,0.3,0.5,0.7,0.9 RCF.p=$(subst $(space),$(comma),$(4)) \
	  RCF.lambda=1,10,100,1000,10000; do \
	  $(BIN)/docfact sweep configs/$(1).yaml --param $$s --by protocol.labelled=0.02,0.2 \
	    --baselines LCCF --k $(3) --runs 20 --jobs $(JOBS) > /dev/null || exit $$?; \
	done
endef

bench:
	$(BIN)/python bench/bench.py --repeat 5 --out bench/RESULTS.md
	$(BIN)/python bench/scaling.py --out bench/SCALING.md
