"""How the update loop computes: batched products, float32, products "auto", the cost model,
and the config key that selects them (the defaults keep the committed digits)."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import yaml

from docfact.algorithms import (
    CF,
    CNPCF,
    GNMF,
    LCCF,
    LCF,
    NMF,
    RCF,
    PSPt,
    SymmetricNMF,
    costs,
    knn_graph,
)
from docfact.algorithms.cf import LCCFRule
from docfact.algorithms.engine import dtype, fast_products, minimize, numerics
from docfact.algorithms.kernels import Float32Products, LinearKernel, SparseProduct
from docfact.algorithms.lcf import LCFRule
from docfact.algorithms.nmf import GNMFRule
from docfact.errors import ConfigError
from docfact.experiment.plan import load as load_config
from docfact.experiment.plan import row_key
from docfact.metrics import accuracy
from docfact.report.tables import numerics_words
from tests.synthetic import three_topics
from tests.test_cf import OneStartAtATime
from tests.test_runner import semi_config, small_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data():
    return three_topics(3, n_terms=30, per_class=15, noise=0.3)


def test_the_default_context_is_the_reference():
    assert dtype() is np.float64 and not fast_products()
    with numerics(precision="float32", products="auto"):
        assert dtype() is np.float32 and fast_products()
    assert dtype() is np.float64 and not fast_products()
    with pytest.raises(ValueError, match="precision must be one of"), numerics("float16"):
        pass


def test_gnmf_starts_advanced_together_equal_one_by_one_bit_for_bit(data):
    """The starts' sparse products taken in one product (X, X^T and W read once) sum every
    entry in the order of one start at a time: the same bits, the same chosen start."""
    X, _ = data
    W = knn_graph(X, 5, "binary")
    fits = [minimize(make(GNMFRule(sp.csr_matrix(X), 3, W, lam=10)), n_restarts=5, min_iter=10,
                     max_iter=30, random_state=3) for make in (lambda r: r, OneStartAtATime)]
    assert fits[0].restart == fits[1].restart
    for a, b in zip(fits[0].factors, fits[1].factors, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("make", [
    lambda: NMF(3, random_state=0), lambda: GNMF(3, lam=10, random_state=0),
    lambda: CF(3, random_state=0), lambda: LCCF(3, lam=100, random_state=0),
    lambda: SymmetricNMF(3, random_state=0), lambda: PSPt(3, scale="sums", random_state=0),
    lambda: PSPt(3, scale="sums", ncw=True, diagonal="zero", random_state=0),
    lambda: LCF(3, lam=0.3, random_state=0),
], ids=["NMF", "GNMF", "CF", "LCCF", "HHt", "PSPt", "NC-PSPt-zero", "LCF"])
def test_float32_fits_are_float32_inside_and_agree_with_float64(data, make):
    """In float32 the fit returns float64 factors of the same clustering, its objective within
    float32's resolution of float64's after the same iterations from the same starts."""
    X, y = data
    ref = make()
    V64 = ref.set_params(track_objective=True).fit_transform(X)
    with numerics(precision="float32"):
        fast = make()
        V32 = fast.set_params(track_objective=True).fit_transform(X)
    assert V32.dtype == np.float64
    assert not np.array_equal(V32, V64)  # computed in float32, not float64 again
    assert accuracy(V64.argmax(axis=1), V32.argmax(axis=1)) == 1.0
    np.testing.assert_allclose(fast.objective_[-1], ref.objective_[-1], rtol=1e-4)


def test_float32_rule_holds_its_operators_in_float32(data):
    """The kernel's products, the graph and its degrees are float32 under float32."""
    X, _ = data
    with numerics(precision="float32"):
        rule = LCCFRule(LinearKernel(sp.csr_matrix(X)), 3, knn_graph(X, 5, "cosine"), lam=10)
    U = rule.init(np.random.default_rng(0))[0].astype(np.float32)
    assert rule.K.dot(U).dtype == rule.W.dtype == rule.d.dtype == np.float32


def test_mixed_rule_takes_the_kernels_products_in_float32_and_keeps_the_rest_float64(data):
    """numerics precision "mixed": K and the factors it multiplies cast to float32 for each
    product, the product given back in float64; the factors, graph and degrees in float64."""
    X, _ = data
    with numerics(precision="mixed"):
        rule = LCCFRule(LinearKernel(sp.csr_matrix(X)), 3, knn_graph(X, 5, "cosine"), lam=10)
    assert isinstance(rule.K.op, Float32Products) and rule.K.op.K.X.dtype == np.float32
    U = rule.init(np.random.default_rng(0))[0]
    KU = rule.K.dot(U)
    assert rule.dtype == KU.dtype == rule.W.dtype == rule.d.dtype == np.float64
    exact = LinearKernel(sp.csr_matrix(X)).dot(U)
    assert not np.array_equal(KU, exact)  # taken in float32
    np.testing.assert_allclose(KU, exact, rtol=1e-5)


def test_lcf_under_mixed_takes_its_kernels_products_in_float32(data):
    """LCF is built on CF and takes numerics precision mixed as CF does: its K's products in
    float32, its factors and diag(K) in float64, the clustering of float64's."""
    X, _ = data
    ref = LCF(3, lam=0.3, max_iter=50, random_state=0)
    V64 = ref.fit_transform(X)
    with numerics(precision="mixed"):
        rule = LCFRule(LinearKernel(sp.csr_matrix(X)), 3, lam=0.3)
        mixed = LCF(3, lam=0.3, max_iter=50, random_state=0)
        V = mixed.fit_transform(X)
    assert isinstance(rule.K.op, Float32Products) and rule.a.dtype == rule.dtype == np.float64
    assert not np.array_equal(V, V64)
    assert accuracy(V64.argmax(axis=1), V.argmax(axis=1)) == 1.0


@pytest.mark.parametrize("make", [
    lambda: SymmetricNMF(3, random_state=0, max_iter=80),
    lambda: PSPt(3, scale="relative", random_state=0, max_iter=80),
    lambda: PSPt(3, scale="relative", ncw=True, diagonal="zero", random_state=0, max_iter=80),
], ids=["HHt", "PSPt", "NC-PSPt-zero"])
def test_affinity_factorizations_under_mixed_take_ws_products_in_float32(data, make):
    """HHt and PSPt take numerics precision mixed as CF's family does: the products with the
    affinity W (its diagonal zeroed or not) in float32, the factors in float64, the clustering
    and the objective of float64's."""
    X, _ = data
    ref = make().set_params(track_objective=True)
    V64 = ref.fit_transform(X)
    with numerics(precision="mixed"):
        mixed = make().set_params(track_objective=True)
        V = mixed.fit_transform(X)
        rule = mixed._rule(LinearKernel(sp.csr_matrix(X)))
    assert isinstance(rule.W.op, Float32Products) and rule.dtype == np.float64
    assert rule.W.dot(rule.init(np.random.default_rng(0))[0]).dtype == np.float64
    assert V.dtype == np.float64 and not np.array_equal(V, V64)
    assert accuracy(V64.argmax(axis=1), V.argmax(axis=1)) == 1.0
    np.testing.assert_allclose(mixed.objective_[-1], ref.objective_[-1], rtol=1e-4)


def test_mixed_keeps_the_entries_that_float32_makes_zeros(data):
    """Why "mixed": a factor's entry that falls below float32's range (1.4e-45) becomes an
    exact zero in float32, which no multiplicative update leaves; with the factors in float64
    it stays a small positive number, as in float64 (bench/MIXED.md on real draws)."""
    X, y = data
    labelled = np.where(np.arange(len(y)) % 5 == 0, y, -1)
    V = {}
    for precision in ("float64", "float32", "mixed"):
        with numerics(precision, "auto"):
            V[precision] = CNPCF(3, lam=10, lam_h=1, p=3, max_iter=300,
                                 random_state=0).fit_transform(X, labelled)
    assert (V["float32"] == 0).any() and (V["float64"] > 0).all() and (V["mixed"] > 0).all()
    assert V["float64"].min() < np.finfo(np.float32).smallest_subnormal
    assert not np.array_equal(V["mixed"], V["float64"])
    np.testing.assert_allclose(V["mixed"], V["float64"], rtol=1e-4)


def formed_kernels(monkeypatch, module) -> list:
    """The shapes of the kernels `module` forms (its DenseKernel built), in order."""
    formed = []

    class Formed(module.DenseKernel):
        def __init__(self, K):
            formed.append(K.shape)
            super().__init__(K)

    monkeypatch.setattr(module, "DenseKernel", Formed)
    return formed


def test_products_auto_forms_the_kernel_for_small_n_with_the_same_fit(data, monkeypatch):
    """The cost model picks the formed K for 45 documents and the fit forms it (45 x 45),
    which the reference products never do; the factors equal the sparse form's to rounding
    (the dense product sums in another order)."""
    from docfact.algorithms import kernels

    formed = formed_kernels(monkeypatch, kernels)
    X, _ = data
    assert costs.kernel_form(sp.csr_matrix(X), 3, 10, 30, 100) == "dense"
    ref = LCCF(3, lam=100, random_state=0).fit_transform(X)
    assert formed == []
    with numerics(products="auto"):
        fast = LCCF(3, lam=100, random_state=0).fit_transform(X)
    assert formed == [(45, 45)]
    np.testing.assert_allclose(fast, ref, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: SymmetricNMF(3, random_state=0, trials=True, max_iter=60),
    lambda: PSPt(3, scale="relative", ncw=True, diagonal="zero", random_state=0, trials=True,
                 max_iter=60),
], ids=["HHt", "NC-PSPt-zero"])
def test_products_auto_forms_the_affinity_for_small_n_with_the_same_fit(data, make,
                                                                         monkeypatch):
    """HHt's and PSPt's W formed (45 x 45, its diagonal zeroed and NC-weighted as the operator
    would be) when the cost model finds it cheaper for their schedule (one product of k columns
    per iteration, the starts one at a time, each to its stop): the fit of the operator's to
    rounding."""
    from docfact.algorithms import kernels

    formed = formed_kernels(monkeypatch, kernels)
    X, _ = data
    assert costs.kernel_form(sp.csr_matrix(X), 3, 10, 30, 60, per_iteration=1, batched=False,
                             trials=True) == "dense"
    ref = make().fit_transform(X)
    assert formed == []
    with numerics(products="auto"):
        fast = make().fit_transform(X)
    assert formed == [(45, 45)]
    np.testing.assert_allclose(fast, ref, rtol=1e-7, atol=1e-10)


def test_fit_products_follows_the_fits_schedule():
    """CF's family: 2 products per iteration, the restart phase's starts in one product; HHt
    and PSPt: 1 per iteration, the starts one at a time, with trials each to the end."""
    X = sp.random(200, 1000, density=0.02, format="csr", random_state=0)
    one = costs.sparse_product(200, 1000, X.nnz, 3)
    batch = costs.sparse_product(200, 1000, X.nnz, 30)
    cf_fit = costs.fit_products("sparse", X, 3, 10, 30, 100)
    assert cf_fit.flops == pytest.approx(2 * 31 * batch.flops + 2 * 69 * one.flops)
    alone = costs.fit_products("sparse", X, 3, 10, 30, 100, per_iteration=1, batched=False)
    assert alone.flops == pytest.approx((10 * 31 + 69) * one.flops)
    trials = costs.fit_products("sparse", X, 3, 10, 30, 100, per_iteration=1, batched=False,
                                trials=True)
    assert trials.bytes == pytest.approx(10 * 100 * one.bytes)


def test_rcf_dense_graph_product_takes_every_start_at_once_with_products_auto(data,
                                                                               monkeypatch):
    """RCF's dense W~ times the V of all 10 starts in one product (30 columns) in the restart
    phase with products "auto", one start's 3 after it: the same fit as one start at a time
    to rounding. With the reference products W~ multiplies one start at a time."""
    from docfact.algorithms import cf

    widths, real = [], cf.dot_all

    def spy(A, Ys, B=None):
        widths.append(sum(Y.shape[1] for Y in Ys))
        return real(A, Ys, B)

    monkeypatch.setattr(cf, "dot_all", spy)
    X, y = data
    partial = np.where(np.arange(len(y)) % 5 == 0, y, -1)
    ref = RCF(3, alpha=0.5, random_state=0, max_iter=60).fit_transform(X, partial)
    assert widths == []
    with numerics(products="auto"):
        fast = RCF(3, alpha=0.5, random_state=0, max_iter=60).fit_transform(X, partial)
    assert widths == [30] * 31 + [3] * 29
    np.testing.assert_allclose(fast, ref, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_product_loops_give_the_same_bits(dtype):
    """A Y by the rows of A (CSR) and by the rows of A^T (CSC product on A^T's transpose) add
    each entry's terms in the same order when the indices are sorted: equal bits, for matrices
    and vectors, so SparseProduct may take either; an unsorted A keeps the loop of its rows."""
    rng = np.random.default_rng(0)
    A = sp.random(300, 2000, density=0.02, format="csr", random_state=1, dtype=dtype)
    A.data = (rng.random(A.nnz) * 10.0 ** rng.integers(-4, 4, A.nnz)).astype(dtype)
    At = sp.csr_matrix(A.T)
    assert A.has_sorted_indices and At.has_sorted_indices
    for Y in (rng.random((2000, 7)), rng.random((2000, 40)).astype(dtype), rng.random(2000)):
        Z = Y[:300]
        assert np.array_equal(A @ Y, At.T @ Y) and np.array_equal(At @ Z, A.T @ Z)
        assert np.array_equal(SparseProduct(A, At) @ Y, A @ Y)
        assert np.array_equal(SparseProduct(At, A) @ Z, At @ Z)
    unsorted = sp.csr_matrix((np.array([1.0, 2.0]), np.array([3, 1]), np.array([0, 2])),
                             shape=(1, 4))
    assert not SparseProduct(unsorted, sp.csr_matrix(unsorted.T)).same_order
    assert costs.scatter_is_faster(300, 2000, 10**4)  # the output no larger than Y
    assert costs.scatter_is_faster(2000, 300, 10) and not costs.scatter_is_faster(
        36771, 9394, 100, 4)  # a large output: by the rows of A


def test_cost_model_counts_and_choices():
    """Flops and bytes as costs.py's docstring states; K is never formed above the memory
    bound, and batching the starts costs one pass over the operator, not R."""
    one, ten = costs.sparse_product(100, 50, 1000, 3), costs.sparse_product(100, 50, 1000, 30)
    assert one.flops == 4 * 1000 * 3 and ten.flops == 10 * one.flops
    assert ten.bytes - one.bytes == 2 * 150 * 27 * 8  # only Y and X^T Y grow with the starts
    d = costs.dense_product(100, 3, itemsize=4)
    assert d.flops == 2 * 100 * 100 * 3 and d.bytes == 100 * 100 * 4 + 2 * 100 * 3 * 4
    big = sp.random(int(np.sqrt(costs.MAX_DENSE_BYTES / 8)) + 1, 20, density=0.01, format="csr")
    assert costs.kernel_form(big, 3, 10, 30, 100) == "sparse"


def test_numerics_config_key_selects_the_fast_path_and_keeps_old_hashes(tmp_path):
    """numerics: absent, or at its defaults, leaves the protocol hash (and the committed
    tables) unchanged; set, it reaches the factorizations only, changes their rows' identity,
    and a wrong value is one ConfigError naming the key."""
    base = load_config(semi_config(tmp_path))
    same = load_config(semi_config(tmp_path, name="same",
                                   numerics={"precision": "float64", "products": "reference"}))
    fast = load_config(semi_config(tmp_path, name="fast",
                                   numerics={"precision": "float32", "products": "auto"}))
    assert same.protocol_hash() == base.protocol_hash() != fast.protocol_hash()
    assert all(m.numerics == {"precision": "float32", "products": "auto"}
               for m in fast.methods)
    assert row_key(fast, fast.methods[0]) != row_key(base, base.methods[0])
    # the tables and the report say so
    assert numerics_words(fast) == "; factorizations in float32 (products auto)"
    assert numerics_words(base) == numerics_words(same) == ""
    mixed = load_config(ROOT / "configs" / "rcf_20newsgroups_t20.yaml")  # CNPCF in its own
    assert numerics_words(mixed) == ("; factorizations in float32 (products auto); CNPCF in "
                                     "mixed precision: float32 products, float64 factors "
                                     "(products auto)")
    pspt = load_config(ROOT / "configs" / "pspt_tdt2.yaml")  # the most methods' numerics first
    assert numerics_words(pspt) == ("; factorizations in mixed precision: float32 products, "
                                    "float64 factors (products auto); NMF, NMF-NCW in float32 "
                                    "(products auto)")
    # a clustering method computes the same whatever the numerics: its rows stay shared
    plain = load_config(small_config(tmp_path))
    fast = load_config(small_config(tmp_path, name="fast",
                                    numerics={"precision": "float32", "products": "auto"}))
    shared = {m.name: row_key(fast, m) == row_key(plain, p)
              for m, p in zip(fast.methods, plain.methods, strict=True)}
    assert shared == {"K-means": True, "LSI+K-means": True, "NMF": False, "GNMF": False}
    raw = yaml.safe_load(semi_config(tmp_path).read_text())
    raw["numerics"] = {"precision": "double"}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="numerics"):
        load_config(path)


def test_mixed_precision_is_for_the_factorizations_of_a_kernel(tmp_path):
    """numerics precision mixed: taken by the CF family and the affinity factorizations (a row
    of its own), said in the report, and refused in one line for another factorization; a
    clustering method ignores numerics as always."""
    base = load_config(semi_config(tmp_path))
    mixed = load_config(semi_config(tmp_path, name="mixed",
                                    numerics={"precision": "mixed", "products": "auto"}))
    assert all(row_key(mixed, m) != row_key(base, b)
               for m, b in zip(mixed.methods, base.methods, strict=True))
    assert numerics_words(mixed) == ("; factorizations in mixed precision: float32 products, "
                                     "float64 factors (products auto)")
    path = tmp_path / "mixed.yaml"
    plain = yaml.safe_load(small_config(tmp_path).read_text())
    plain["numerics"] = {"precision": "mixed"}
    path.write_text(yaml.safe_dump(plain))
    with pytest.raises(ConfigError, match=r"\(methods\.GNMF\): numerics precision mixed is "
                       r"for the factorizations of a kernel or affinity \(CF and the methods "
                       r"built on it, HHt, PSPt\), not gnmf: use float32 or float64$"):
        load_config(path)
    plain["methods"] = {"PSPt": {"algorithm": "pspt", "eta": 0.8, "numerics": {
        "precision": "mixed"}}, "HHt": {"algorithm": "hht", "numerics": {"precision": "mixed"}}}
    plain.pop("published", None)
    path.write_text(yaml.safe_dump(plain))
    assert sorted(m.name for m in load_config(path).methods) == ["HHt", "PSPt"]
