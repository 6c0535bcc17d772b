"""The long fuzz run of the book layer: mutated CBZ/CBT/CB7/CBR/PDF/image books, each opened
and read as the reader would, counting what escapes as anything but one spoken sentence.

    nice python scripts/fuzz_books.py --inputs 30000 [--workers 1] [--seed 1] [--keep DIR]

Each worker process takes inputs in turn under a 3 GiB address-space cap; the parent kills
and replaces a worker that gives no answer in ``--timeout`` seconds (a hang, counted). An
input that escapes, hangs, crashes its worker or takes longer than 10 s is kept in
``--keep`` to be replayed. Prints a summary line (the one docs/benchmarks.md quotes).
The CI runs the same seeds and mutations at a small size (tests/fuzz/test_books_fuzz.py).
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import Connection, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fuzz"))

from book_mutations import make_seeds, mutate, try_book

SLOW_S = 10.0


def _worker(conn: Connection, seeds: dict[str, tuple[str, bytes]], base_seed: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    logging.disable(logging.CRITICAL)  # each refused page logs a warning: not what is counted
    names = sorted(seeds)
    others = [data for _, data in seeds.values()]
    with tempfile.TemporaryDirectory() as tmp:
        while True:
            index = conn.recv()
            if index is None:
                return
            rng = random.Random(base_seed * 1_000_003 + index)
            name = rng.choice(names)
            suffix, seed = seeds[name]
            data = mutate(rng, seed, others)
            path = Path(tmp) / f"in{suffix}"
            path.write_bytes(data)
            start = time.perf_counter()
            problem = try_book(path)
            seconds = time.perf_counter() - start
            peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            conn.send((index, name, problem, seconds, peak_mb))


def _replay(seeds: dict[str, tuple[str, bytes]], base_seed: int, index: int) -> tuple[str, bytes]:
    """The input number ``index`` makes (the same draws as in the worker)."""
    names = sorted(seeds)
    others = [data for _, data in seeds.values()]
    rng = random.Random(base_seed * 1_000_003 + index)
    name = rng.choice(names)
    suffix, seed = seeds[name]
    return name + suffix, mutate(rng, seed, others)


def main() -> int:  # noqa: C901 (over the budget before it existed; split it when next changed)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=30_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a worker is called hung")
    parser.add_argument("--keep", type=Path, default=Path("fuzz-findings"))
    args = parser.parse_args()
    seeds = make_seeds()
    ctx = mp.get_context("fork")
    started = time.perf_counter()
    outcomes: Counter[str] = Counter()
    per_seed: Counter[str] = Counter()
    slowest = (0.0, -1)
    peak_mb = 0.0
    findings: list[str] = []

    def keep(index: int, why: str) -> None:
        name, data = _replay(seeds, args.seed, index)
        args.keep.mkdir(parents=True, exist_ok=True)
        out = args.keep / f"{index:07d}-{name}"
        out.write_bytes(data)
        findings.append(f"{out}: {why}")
        print(f"FINDING {out}: {why}", flush=True)

    todo = list(range(args.inputs))
    # each worker: its process, its end of the pipe, and (input, when it was sent) while busy
    Worker = tuple[mp.Process, Connection, tuple[int, float] | None]

    def spawn() -> Worker:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, seeds, args.seed), daemon=True)
        proc.start()
        return proc, parent, None

    def lost(n: int, index: int, why: str, kind: str) -> None:
        proc = workers[n][0]
        if proc.is_alive():
            proc.kill()
        proc.join(1)
        outcomes[kind] += 1
        keep(index, why)
        workers[n] = spawn()

    workers: list[Worker] = [spawn() for _ in range(max(1, args.workers))]
    done = 0
    while done < args.inputs:
        for n, (proc, conn, busy) in enumerate(workers):
            if busy is None and todo:
                index = todo.pop(0)
                conn.send(index)
                workers[n] = (proc, conn, (index, time.perf_counter()))
        ready = wait([conn for _, conn, busy in workers if busy is not None], timeout=1.0)
        for n, (proc, conn, busy) in enumerate(workers):
            if busy is None:
                continue
            if conn in ready:
                try:
                    index, name, problem, seconds, mb = conn.recv()
                except EOFError:
                    lost(n, busy[0], "the worker died", "crash")
                    done += 1
                    continue
                workers[n] = (proc, conn, None)
                done += 1
                per_seed[name] += 1
                peak_mb = max(peak_mb, mb)
                slowest = max(slowest, (seconds, index))
                if problem is not None:
                    outcomes["escape"] += 1
                    keep(index, problem)
                elif seconds > SLOW_S:
                    outcomes["slow"] += 1
                    keep(index, f"took {seconds:.1f} s")
                else:
                    outcomes["ok"] += 1
                if done % 1000 == 0:
                    rate = done / (time.perf_counter() - started)
                    print(f"{done} inputs, {dict(outcomes)}, {rate:.1f}/s", flush=True)
            elif time.perf_counter() - busy[1] > args.timeout:
                lost(n, busy[0], f"no answer in {args.timeout:.0f} s", "hang")
                done += 1
            elif not proc.is_alive():
                lost(n, busy[0], "the worker died", "crash")
                done += 1
    for proc, conn, _ in workers:
        conn.send(None)
        proc.join(5)
    minutes = (time.perf_counter() - started) / 60
    failures = outcomes["escape"] + outcomes["hang"] + outcomes["crash"] + outcomes["slow"]
    print(f"seeds: {dict(sorted(per_seed.items()))}")
    print(
        f"fuzz_books: {done} inputs in {minutes:.1f} min, {failures} failures "
        f"(escaped {outcomes['escape']}, hung {outcomes['hang']}, crashed {outcomes['crash']}, "
        f"over {SLOW_S:.0f} s {outcomes['slow']}); slowest {slowest[0]:.2f} s (input {slowest[1]}), "
        f"peak worker memory {peak_mb:.0f} MB"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
