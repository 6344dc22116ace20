"""Executes a protocol plan: every task (k, run) runs every method, scored by AC and NMI.

Tasks go to joblib workers, each limited to one BLAS thread so that N workers use N cores and
the numbers do not depend on N. Every finished task is appended to runs.csv at once; a rerun
skips the tasks already recorded.
"""

import _thread
import json
import os
import platform
import signal
import sys
import threading
import time
import warnings
from contextlib import ExitStack, contextmanager
from importlib import metadata
from multiprocessing import resource_tracker
from pathlib import Path

from joblib import Parallel, delayed, parallel_config
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from docfact import atomic, metrics
from docfact.config import Config, dump_yaml, parse_config
from docfact.datasets.stats import duplicate_documents
from docfact.digits import DigitsWarning, deviation
from docfact.errors import ConfigError, ConfigNote, DataError, DocfactError
from docfact.experiment.methods import RUN_FAILURES, Artefacts
from docfact.experiment.plan import Plan, Task, problems, resolve, row_key
from docfact.experiment.results import read_manifest, read_setup, read_timings, table_of
from docfact.experiment.store import FIELDS, Lock, RunStore, check_format, read_records
from docfact.experiment.store import FORMAT as RECORDS_FORMAT


def run(plan: Plan, out: Path, *, jobs: int = -1, fresh: bool = False,
        progress: bool = True, backend: str = "loky", scheduler=None, donors=(), reused=(),
        say=None, named: bool = True) -> Path:
    """Run (or resume) the plan's tasks into folder `out`; return `out`.

    donors: other results folders whose rows of identical methods are taken (shared_rows),
    with the seconds recorded there: rows this table would otherwise have computed.
    reused: folders the same reproduction computes too (a sweep's tables and earlier values):
    their rows are taken in 0 s, counted where they were computed.
    named: the donors were named by the user (--donors): one that cannot be read is said;
    False for those a command gathers itself (the readings' folders).
    backend: "loky" (local processes) or "dask" (a dask.distributed cluster: the scheduler at
    `scheduler`, or a local cluster of `jobs` single-threaded workers).
    progress: a progress bar on stderr, when stderr is a terminal (no frames in logs).
    say: called with one line on what is recorded already and what will be computed.
    """
    reason = deviation()
    if reason:
        warnings.warn(f"{reason}; runs may differ from the committed results in their last "
                      "digits, and some then in their labels", DigitsWarning, stacklevel=2)
    config = plan.config
    _reads_back(config, out)
    if backend == "dask":
        _check_dask(scheduler)  # before any file is written
    corpus = plan.corpus()
    _make_folder(out)
    with Lock(out):
        manifest_path = out / "manifest.json"
        if not (atomic.check_regular(manifest_path) or _holds_records(out / "runs.csv")):
            _not_overwritten(out, dump_yaml(config.raw))
        if fresh:  # the manifest last: a --fresh cut short leaves a folder still the table's
            _owned(config, out)
            for name in (*WRITTEN, "runs.csv", "timings.csv", "manifest.json"):
                atomic.remove(out / name)
        old = _read_manifest(manifest_path)
        if not old and atomic.check_regular(out / "runs.csv") and read_records(
                out / "runs.csv", FIELDS):
            raise ConfigError(f"{out} holds runs but no manifest.json to say which protocol "
                              "computed them; choose --out, or --fresh to discard them")
        digest = plan.data_hash()
        if old:
            if old.get("protocol_hash") != config.protocol_hash():
                _owned(config, out)  # another table's: --fresh would not discard it either
                raise ConfigError(f"{out} holds runs of a different protocol (data, seed, "
                                  "methods or the code of one's own changed); choose --out, "
                                  "or --fresh to discard them (--donors with a copy of the "
                                  "folder keeps the rows of the methods unchanged)")
            check_format(old, out)
            if old.get("data_hash") != digest:
                raise ConfigError(f"{out} holds runs on other contents of the data file; "
                                  "choose --out, or --fresh to discard them")
            held = (old.get("documents"), old.get("classes"))
            if held != (corpus.n_documents, corpus.n_classes):
                raise ConfigError(f"{out} holds runs on {held[0]} documents in {held[1]} classes, "
                                  f"the view now gives {corpus.n_documents} in "
                                  f"{corpus.n_classes}; choose --out, or --fresh to discard them")
        atomic.write_text(out / "config.yaml", dump_yaml(config.raw))
        names = [m.name for m in config.methods]
        store = RunStore(out)
        done = store.load(names)
        X = plan.base_matrix(corpus)
        todo = [(k, r) for k, r in plan.pairs if (k, r) not in done]
        if say is not None:
            say(_progress(len(plan.pairs), len(todo), out))
        started = time.time()
        walls = old.get("wall_seconds", [])
        manifest = _manifest(config, corpus, jobs, digest)
        if todo or not old:  # a resume with nothing left to run leaves the manifest as it was
            _write_manifest(out, manifest, walls)
        taken = shared_rows(config, out, digest, donors, reused, named) if todo else {}
        rows = sum(len(taken.get(key, {})) for key in todo)
        if rows and say is not None:
            say(f"{rows} of their {len(todo) * len(names)} rows (run x method) taken from "
                "other folders: the same documents and settings")
        elif todo and donors and say is not None:
            say(f"no row taken from --donors {', '.join(map(str, donors))}: none holds these "
                "runs' documents with the same settings (or they are an estimator's of one's "
                "own)")
        tasks = (delayed(run_one)(plan, plan.task(X, corpus.y, k, r), taken.get((k, r), {}),
                                  os.getpid() if backend == "loky" else None)
                 for k, r in todo)
        bar = tqdm(total=len(todo), disable=not (progress and todo and sys.stderr.isatty()),
                   unit="run", desc=config.name, dynamic_ncols=True)
        workers = max(1, min(jobs, len(todo))) if jobs > 0 else jobs  # no idle worker started
        with _backend(backend, workers, scheduler):
            with Parallel(n_jobs=workers, return_as="generator_unordered") as parallel:
                for rows, timings in parallel(tasks):
                    store.append(rows, timings)
                    # this session's wall time so far: kept even if the run is cut short
                    _write_manifest(out, manifest, walls + [round(time.time() - started, 1)])
                    bar.update()
        bar.close()
        store.load(names)  # rewrites both files sorted: completion order depends on parallelism
        if todo:
            _write_manifest(out, manifest, walls + [round(time.time() - started, 1)])
    return out


def _reads_back(config: Config, out: Path) -> None:
    """ConfigError unless config.raw, written as out/config.yaml, reads back as `docfact run`
    reads it, with the protocol hash of `config`: a config built in code (a sweep's) leaves a
    folder that can be rerun."""
    where = str(out / "config.yaml")
    if resolve(parse_config(config.raw, where, check=problems)).protocol_hash() != (
            config.protocol_hash()):
        raise ConfigError(f"{where}: config.raw does not describe the methods run")


def _progress(asked: int, todo: int, out: Path) -> str:
    """One line: how many of the runs asked are recorded in `out` already, and what is left."""
    if not todo:
        return (f"{asked} of {asked} runs already recorded in {out}; --fresh or --out to "
                "recompute")
    if todo < asked:
        return f"{asked - todo} of {asked} runs already recorded in {out}; computing {todo}"
    return f"computing {asked} run{'s' * (asked != 1)} into {out}"


def _check_dask(scheduler) -> None:
    """Before a results folder is made: DocfactError without dask.distributed, or when the
    scheduler cannot be reached; ConfigError for a scheduler address that is none (dask's own
    error would be a traceback)."""
    try:
        from distributed.comm import registry
        from distributed.comm.addressing import (
            get_address_host_port,
            normalize_address,
            parse_address,
        )
    except ImportError:
        raise DocfactError("--backend dask needs dask.distributed: pip install 'docfact[dask]'"
                           ) from None
    if scheduler:
        try:
            address = normalize_address(scheduler)
            scheme, _ = parse_address(address)
            registry.get_backend(scheme)  # ucx://, a plugin's: known to dask, no port read here
            if scheme in ("tcp", "tls", "ws", "wss"):
                get_address_host_port(address)
        except ValueError as e:
            raise ConfigError(f"--scheduler {scheduler}: not an address ({e}); write "
                              "tcp://HOST:PORT") from None
        _connect(scheduler).close()


def _connect(scheduler):
    """A dask Client of the scheduler; DocfactError, one line, when it cannot be reached."""
    from dask.distributed import Client

    try:
        return Client(scheduler, timeout="10s")
    except OSError as e:
        raise DocfactError(f"--scheduler {scheduler}: cannot connect ({e})") from None


@contextmanager
def _workers_deaf_to_sigint(workers: bool):
    """Worker processes started here never see SIGINT; Ctrl-C still interrupts this process.

    The terminal (and `timeout -s INT`) sends SIGINT to the whole process group: a worker
    caught while it starts prints the traceback of its interrupted imports, whereas this
    process stops the workers itself as it unwinds. So SIGINT is blocked here while the pool
    works (a blocked signal stays blocked in the processes started meanwhile), and a thread
    waits for it and interrupts the main thread, which unwinds as a Ctrl-C does."""
    if not (workers and hasattr(signal, "pthread_sigmask")
            and threading.current_thread() is threading.main_thread()):
        yield
        return
    # the workers' start launches multiprocessing's resource tracker once, which before
    # Python 3.14 unblocks SIGINT after its launch: launched first, that leaves the block be
    resource_tracker.ensure_running()
    done = threading.Event()

    def wait():
        signal.sigwait({signal.SIGINT})
        if not done.is_set():
            _thread.interrupt_main(signal.SIGINT)

    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    waiter = threading.Thread(target=wait, name="docfact-sigint", daemon=True)
    waiter.start()
    try:
        yield
    finally:
        done.set()
        if waiter.is_alive():
            signal.pthread_kill(waiter.ident, signal.SIGINT)
            waiter.join()
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def _backend(name: str, jobs: int, scheduler):
    """joblib's default process pool, or joblib's dask backend on a dask.distributed cluster
    (its presence and the scheduler's address checked by _check_dask)."""
    if name == "loky":
        with _workers_deaf_to_sigint(jobs != 1):
            yield
        return
    from dask.distributed import Client, LocalCluster

    with ExitStack() as stack:
        if scheduler:
            client = stack.enter_context(_connect(scheduler))
        else:
            workers = jobs if jobs > 0 else os.cpu_count()
            cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1,
                                                       dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        with parallel_config(backend="dask"):
            yield client


def data_notes(X) -> str:
    """What a reader of a run's scores should know about its documents: exact duplicates
    (identical weighted rows, which no method can tell apart), else empty."""
    d = duplicate_documents(X)
    return f"{d} duplicate documents" if d else ""


def shared_rows(config: Config, out: Path, digest, donors=(), reused=(), named=True) -> dict:
    """{(k, run): {method: (record, seconds)}} that this table takes from the table it
    `shares` (the folder of that name beside `out`), the `reused` folders and the `donors`
    folders, the first holding a row winning: the complete runs there, for the methods whose
    records depend on the same inputs (plan.row_key; a data file of the same contents,
    `digest` its data_hash): the RCF paper's tables for t = 2% and 20% print the same
    unsupervised rows, and a sweep's value equal to the table's setting takes the table's
    rows. Folders holding no results it can read give nothing: the rows are then computed,
    the same either way.

    seconds: 0 for a row of the shared table or a reused folder, which the same reproduction
    computes there; for a donor's row (a former copy of this table, a reading), the seconds
    of the first donor that computed it (a donor records 0 for a row it took in turn, or
    the seconds it was given), so that timings.csv holds what computing the table costs. A
    row that every donor holding it took in turn (the folder that computed it gone) is not
    taken: it is computed here, and its cost recorded. A donor that cannot be read gives
    nothing, with a note when `named` (the user named it)."""
    free = ([out.parent / config.shares] if config.shares else []) + [Path(f) for f in reused]
    taken, cost = {}, {}  # cost: None for a free folder's row, else the seconds a donor records
    for folder in free + [Path(f) for f in donors]:
        if folder.resolve() == out.resolve():
            continue
        try:
            rows = _donated(folder, config, digest)
        except DocfactError as e:  # one named as a donor is said; a free one may be anything
            if named and folder not in free:
                warnings.warn(f"donor {folder} not read ({e}): its rows are computed",
                              ConfigNote, stacklevel=2)
            rows = {}
        seconds = _seconds(folder) if rows and folder not in free else {}
        for key, by_method in rows.items():
            for name, row in by_method.items():
                at = (*key, name)
                taken.setdefault(key, {}).setdefault(name, row)
                if cost.get(at, 0.0) == 0.0:  # not taken yet, or the donor took it in turn
                    cost[at] = None if folder in free else seconds.get(at, 0.0)
    return {key: {name: (row, cost[(*key, name)] or 0.0) for name, row in by_method.items()
                  if cost[(*key, name)] != 0.0}
            for key, by_method in taken.items()}


def _seconds(folder: Path) -> dict:
    """{(k, run, method): seconds} of folder's timings.csv (empty when it has none)."""
    try:
        t = read_timings(folder)
    except (OSError, DocfactError):
        return {}
    return {(int(k), int(r), m): float(s)
            for k, r, m, s in zip(t.k, t.run, t.method, t.seconds, strict=True)}


def _donated(folder: Path, config: Config, digest) -> dict:
    """{(k, run): {method: record}} of folder's complete runs for the methods of `config`
    whose row_key is the same there; DocfactError when the folder cannot be read as a
    results folder (no manifest, a config or records that are not docfact's)."""
    try:
        manifest = read_manifest(folder)  # a link or FIFO there refused, never waited on
    except (OSError, ValueError) as e:
        raise DocfactError(f"manifest.json: {getattr(e, 'strerror', None) or e}") from None
    inputs = {"view": config.view, "weighting": config.weighting, "weight_on": config.weight_on,
              "seed": config.seed, "data_hash": digest}
    if any(manifest.get(key) != value for key, value in inputs.items()):
        return {}  # other documents or seed: no row can be the same (read before the config)
    donor = resolve(read_setup(folder)[0])  # DocfactError: not a results folder, or methods
                                            # this docfact no longer has
    # an estimator of one's own is never taken: its code may differ from the donor's
    keys = {m.name: row_key(donor, m) for m in donor.methods if not m.own_code}
    names = {m.name for m in config.methods
             if not m.own_code and keys.get(m.name) == row_key(config, m)}
    if not names:
        return {}
    runs = RunStore(folder).read([m.name for m in donor.methods])  # DocfactError: records
                                                                    # that are not docfact's
    return {key: {row["method"]: row for row in rows if row["method"] in names}
            for key, rows in runs.items()}


def result_folders(root: Path) -> list:
    """The results folders (holding a manifest.json) under `root`, in sorted order."""
    return sorted(p.parent for p in Path(root).rglob("manifest.json"))


def run_one(plan: Plan, task: Task, taken: dict, main: int | None = None) -> tuple:
    """Every method of the plan on one task: (records, timings). The methods in `taken`
    (name: (record, seconds) of another table, see shared_rows) get that record and time.
    main: the pid of the process that dispatched the task to a local worker process (None on
    dask): the worker ends when that parent has gone (see _end_with_parent).

    Documents that cannot be weighted (no term left on this subset) fail the run for every
    method, recorded with the reason, rather than stopping the table."""
    if main is not None and os.getpid() != main:
        _end_with_parent(main)
    config, k, r, y = plan.config, task.k, task.run, task.y
    with threadpool_limits(1):
        try:
            X, unusable = plan.prepare(task.X), None
        except DataError as e:
            X, unusable = task.X, e
        shared = plan.artefacts(task, X)
        rows, timings = [], []
        notes = data_notes(X)
        for m in config.methods:
            if m.name in taken:
                row, seconds = taken[m.name]
                rows.append(row)
                timings.append({"k": k, "run": r, "method": m.name, "seconds": seconds})
                continue
            t0 = time.process_time()  # CPU seconds: a shared machine does not inflate them
            rec = {"k": k, "run": r, "method": m.name, "n_docs": X.shape[0],
                   "classes": " ".join(map(str, task.classes)), "notes": notes}
            try:
                if unusable is not None:
                    raise unusable
                out, ac = best_of(m, shared, k, plan.seed(task, m.name), y, config.best_of,
                                  config.best_by)
                rec.update(status="ok", ac=ac, nmi=metrics.nmi(y, out["labels"], config.nmi),
                           n_iter=out.get("n_iter"), objective=out.get("objective"))
            except (*RUN_FAILURES, DataError) as e:
                rec.update(status="failed", error=f"{type(e).__name__}: {e}".replace("\n", " "))
            rows.append(rec)
            timings.append({"k": k, "run": r, "method": m.name,
                            "seconds": round(time.process_time() - t0, 4)})
    return rows, timings


_watching = []  # a worker's watchdog thread, once started


def _end_with_parent(main: int) -> None:
    """In a worker process of `main` (loky's workers are its children), start (once) a daemon
    thread that ends the process within half a second of `main` no longer being its parent: a
    main process killed with SIGKILL cannot stop its workers, and loky's keep computing their
    run."""
    if _watching:
        return

    def watch():
        while os.getppid() == main:
            time.sleep(0.5)
        os._exit(1)

    _watching.append(threading.Thread(target=watch, name="docfact-watchdog", daemon=True))
    _watching[0].start()


def best_of(method, artefacts: Artefacts, k: int, seed, y, n: int, by: str = "ac") -> tuple:
    """(clustering, AC) of the method on the run: with n > 1, of the best of n sub-runs seeded
    by seed's children, the first on ties: by "ac" the highest AC (the LCF paper's "10 sub-runs
    from which we chose the best result"), by "objective" the lowest objective of the method's
    own fit (the k-means objective for k-means); with n = 1, of the one run seeded by `seed`."""
    best = None
    # by objective, docfact's factorizations record it after every iteration, so that the
    # last value is the final one (a fixed max_iter keeps only the value at the start's choice)
    tracked = by == "objective" and method.factorizes and not method.own_code
    for s in seed.spawn(n) if n > 1 else [seed]:
        out = method.cluster(artefacts, k, s, **({"track_objective": True} if tracked else {}))
        ac = metrics.accuracy(y, out["labels"])
        score = ac if by == "ac" else -sub_run_objective(method, out)
        if best is None or score > best[2]:
            best = out, ac, score
    return best[:2]


def sub_run_objective(method, out: dict) -> float:
    """The objective a sub-run minimised: the factorization's, or k-means' inertia_ (its
    objective under its metric). plan.problems admits best_by objective only for the methods
    that report one; an estimator of one's own may still set no objective_: DocfactError,
    the table stopped."""
    value = out["objective"] if "objective" in out else out["inertia"]
    if value is None:
        raise DocfactError(f"protocol.best_by: objective: methods.{method.name} "
                           f"({method.algorithm}) sets no objective_ to choose its sub-runs by")
    return float(value)


def _owned(config: Config, out: Path) -> None:
    """ConfigError if folder `out` holds another table's runs, by its manifest: neither resumed
    nor discarded by --fresh (an unreadable manifest is no table's: --fresh is its remedy). By
    name only: a folder of a reading or a quick run holds a config named as its table."""
    owner = table_of(out)
    if owner not in (None, config.name):
        raise ConfigError(f"{out} holds the runs of table {owner!r}, not {config.name!r}; "
                          "choose another --out")


def _read_manifest(path: Path) -> dict:
    """The manifest of a folder's earlier sessions, {} for a new folder."""
    if not atomic.check_regular(path):
        return {}
    try:
        return read_manifest(path.parent)
    except (ValueError, RecursionError) as e:
        raise DocfactError(f"{path}: not a docfact manifest ({e}); choose --out, or "
                           "--fresh to discard it") from None


# What a table writes beside its records (runs.csv and timings.csv have checks of their own).
WRITTEN = ("config.yaml", "tables.md", "ac.csv", "nmi.csv", "k.png", "k.svg")


def _holds_records(path: Path) -> bool:
    """Whether `path` holds docfact's run records (a folder that lost its manifest.json: its
    own refusal says so); False for a file of someone else's or without records."""
    try:
        return atomic.check_regular(path) and bool(read_records(path, FIELDS))
    except DocfactError:
        return False


def _not_overwritten(out: Path, config_text: str) -> None:
    """ConfigError for a file a table would write in a folder that has no manifest.json nor
    runs.csv, so none of docfact's (a user's own config.yaml in `--out .`): never
    overwritten, even with --fresh. A config.yaml as this table writes it is its own, a run
    cut short before its manifest."""
    for name in WRITTEN:
        path = out / name
        if not atomic.check_regular(path):
            continue
        if name == "config.yaml":
            try:
                if path.read_text(encoding="utf-8") == config_text:
                    continue
            except (OSError, UnicodeDecodeError):
                pass
        raise ConfigError(f"{path} is not docfact's (the folder has no manifest.json) and "
                          "would be overwritten; choose another --out")


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        atomic.probe_writable(out)
    except OSError as e:
        raise ConfigError(f"{out}: not a writable folder ({e.strerror})") from None


def _versions() -> dict:
    """The versions that produced the records."""
    return {pkg: metadata.version(pkg) for pkg in
            ("docfact", "numpy", "scipy", "scikit-learn", "joblib")}


def _manifest(config: Config, corpus, jobs: int, digest) -> dict:
    """What produced these results: config, data (`digest`: its data_hash), seed, versions,
    machine."""
    return {
        "config": config.name,
        "title": config.title,
        "protocol_hash": config.protocol_hash(),
        "records": RECORDS_FORMAT,
        "data_hash": digest,
        "view": config.view,
        "weighting": config.weighting,
        "weight_on": config.weight_on,
        "documents": int(corpus.n_documents),
        "classes": int(corpus.n_classes),
        "seed": config.seed,
        "k": list(config.k),
        "runs": config.runs,
        **({"best_of": config.best_of} if config.best_of > 1 else {}),
        **({"best_by": config.best_by} if config.best_of > 1 and config.best_by != "ac" else {}),
        **({"labelled": config.labelled} if config.labelled is not None else {}),
        **({"constraints": config.constraints} if config.constraints != "labelled" else {}),
        **({"class_rule": config.classes} if config.classes != "random" else {}),
        **({"shares": config.shares} if config.shares else {}),
        "python": platform.python_version(),
        "versions": _versions(),
        "cores": os.cpu_count(),
        "jobs": jobs,
    }


def _write_manifest(out: Path, manifest: dict, walls: list) -> None:
    """The manifest with the wall time of each session that computed runs (seconds)."""
    atomic.write_text(out / "manifest.json",
                      json.dumps({**manifest, "wall_seconds": walls}, indent=2) + "\n")

