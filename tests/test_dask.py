"""The dask.distributed backend: a real local cluster gives the local results, byte for byte."""

from dask.distributed import LocalCluster

from tests.test_runner import run_cli, small_config


def test_dask_cluster_results_equal_local_ones(tmp_path):
    cfg = small_config(tmp_path, runs=2, k=(2, 3))
    assert run_cli("run", cfg, "--out", tmp_path / "local", "--jobs", 1, "--quiet").exit_code == 0
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        res = run_cli("run", cfg, "--out", tmp_path / "dask", "--backend", "dask",
                      "--scheduler", cluster.scheduler_address, "--quiet")
        assert res.exit_code == 0, res.output
    assert (tmp_path / "dask/runs.csv").read_bytes() == (tmp_path / "local/runs.csv").read_bytes()


def test_scheduler_needs_the_dask_backend(tmp_path):
    res = run_cli("run", small_config(tmp_path), "--scheduler", "tcp://127.0.0.1:1",
                  "--out", tmp_path / "o")
    assert res.exit_code == 2 and "--backend dask" in res.output


def test_unreachable_scheduler_is_one_line(tmp_path):
    res = run_cli("run", small_config(tmp_path), "--backend", "dask", "--scheduler",
                  "tcp://127.0.0.1:1", "--out", tmp_path / "o")
    assert res.exit_code == 1 and "cannot connect" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "o").exists()  # said before any file is written


def test_addresses_of_other_transports_are_left_to_dask(monkeypatch):
    """ucx:// (and a plugin's scheme) has no host:port to read here: only the scheme is
    checked before connecting."""
    from docfact.experiment import runner

    reached = []
    monkeypatch.setattr(runner, "_connect", lambda s: reached.append(s) or _Closed())
    for address in ("ucx://host:13337", "tls://host:1", "host:8786"):
        runner._check_dask(address)
    assert reached == ["ucx://host:13337", "tls://host:1", "host:8786"]


class _Closed:
    def close(self):
        pass


def test_a_scheduler_address_that_is_none_is_one_line_before_any_file(tmp_path):
    for address in ("not an address", "tcp://127.0.0.1", "foo://x:1"):
        res = run_cli("run", small_config(tmp_path), "--backend", "dask", "--scheduler", address,
                      "--out", tmp_path / "o")
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output
        assert f"--scheduler {address}: not an address (" in res.output
        assert not (tmp_path / "o").exists()
