"""A pool of long-lived worker subprocesses for the fuzzers.

Each case is one JSON line sent to a worker (`python worker.py KIND`), which
answers one JSON line. A worker killed by a signal, or one that answers
nothing within the timeout, is a crash (or hang): the pool reports it and
starts a fresh worker, so one bad input never stops the run.
"""
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def signal_name(returncode):
    if returncode is None:
        return "HANG"
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"SIG{-returncode}"
    return f"EXIT{returncode}"


class Worker:
    def __init__(self, kind):
        self.kind = kind
        self.proc = None
        self._start()

    def _start(self):
        env = dict(os.environ, PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "worker.py"), self.kind],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, bufsize=0)
        self._buf = b""
        self.history = []  # the cases this process has run, for late crashes
        # Drain stderr so a chatty worker never blocks; keep the tail for reports.
        self.stderr_tail = []
        threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()

    def _drain(self, proc):
        for line in proc.stderr:
            self.stderr_tail.append(line.decode("utf-8", "replace"))
            del self.stderr_tail[:-40]

    def run(self, case, timeout):
        """Returns the worker's answer (a dict), or {"status": "crash", ...}."""
        self.history = self.history[-30:] + [case]
        try:
            self.proc.stdin.write((json.dumps(case) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._died(None)
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.proc.kill()
                self.proc.wait()
                return self._died("HANG")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self.proc.wait()
                    return self._died(signal_name(self.proc.returncode))
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _died(self, sig):
        if sig is None:
            self.proc.wait()
            sig = signal_name(self.proc.returncode)
        time.sleep(0.05)  # let the stderr thread read the fault handler's report
        tail = "".join(self.stderr_tail[-20:])
        history = self.history
        self._start()
        return {"status": "crash", "signal": sig, "stderr": tail, "history": history}

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def run_pool(kind, next_case, on_result, jobs, seconds, max_execs, timeout):
    """Runs cases from next_case() (None: stop) in `jobs` workers until the
    time or execution budget is spent; on_result(case, answer) per case."""
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds
    count = [0]

    def loop():
        worker = Worker(kind)
        try:
            while True:
                with lock:
                    if time.monotonic() >= stop_at or (max_execs and count[0] >= max_execs):
                        return
                    count[0] += 1
                    case = next_case()
                if case is None:
                    return
                answer = worker.run(case, timeout)
                if answer["status"] == "crash" and answer["signal"] == "HANG":
                    # Alone in a fresh process with three times the time: a case
                    # that finishes then was slow (a loaded machine), not hung.
                    fresh = Worker(kind)
                    alone = fresh.run(case, 3 * timeout)
                    fresh.close()
                    if alone["status"] != "crash":
                        answer = {"status": "slow", "detail": f"over {timeout:g} s once, "
                                  f"then {alone['status']} alone within {3 * timeout:g} s"}
                elif answer["status"] == "crash" and len(answer["history"]) > 1:
                    # Alone in a fresh process: is it this case, or damage an
                    # earlier case in the same process left behind?
                    fresh = Worker(kind)
                    alone = fresh.run(case, timeout)
                    fresh.close()
                    if alone["status"] == "crash":
                        answer = alone
                    else:
                        answer["late"] = True
                elif answer["status"] == "mismatch" or (
                        "huge" in case.get("signature", "") and answer["status"] == "ok"):
                    # A wrong size may have left the heap damaged: later cases
                    # get a fresh process, so a crash is blamed on its input.
                    worker.close()
                    worker = Worker(kind)
                with lock:
                    on_result(case, answer)
        finally:
            worker.close()

    threads = [threading.Thread(target=loop) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return count[0]


def fuzz_main(kind, description, make_case, suffix, reproducer_of, argv=None):
    """Shared command line of both fuzzers: runs the pool, saves each new
    crash to crashes/<hash><suffix>, prints the totals; exit 1 on a crash or
    a wrong result (a mismatch)."""
    import argparse
    import hashlib
    import random
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--seed", type=int, default=None, help="random when left out (printed)")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--max-execs", type=int, default=0, help="0: no limit")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=10, help="seconds before a case is a hang")
    p.add_argument("--crash-dir", default=os.path.join(HERE, "crashes"))
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    print(f"{kind} fuzz: seed {seed}, {args.seconds:g} s, {args.jobs} workers", flush=True)
    rng = random.Random(seed)
    stats = {"ok": 0, "rejected": 0, "disagree": 0, "mismatch": 0, "crash": 0, "slow": 0}
    signatures = {}
    mismatches = []

    def on_result(case, answer):
        status = answer["status"]
        stats[status] = stats.get(status, 0) + 1
        if status == "slow":
            print(f"SLOW ({answer['detail']}): {case.get('signature', '')}", flush=True)
        if args.verbose and status in ("mismatch", "disagree"):
            print(f"{status}: {answer['detail'][:300]}", flush=True)
        if status == "mismatch":
            mismatches.append(answer["detail"])
            path = save(case, f"mismatch: {answer['detail'][:200]}")
            print(f"MISMATCH ({answer['detail'][:200]}) -> {path}", flush=True)
        if status == "crash":
            sig = f"{answer['signal']} {case.get('signature', '')}".strip()
            if answer.get("late"):
                # Only after the earlier cases of that process: save them all,
                # the culprit is among them (the last one is where it died).
                sig = f"{sig} (late: only after earlier cases of one process)"
                path = save(case, f"signal: {answer['signal']} (only after the earlier "
                                  f"cases of the same process)", answer["history"])
            else:
                path = save(case, f"signal: {answer['signal']}")
            if sig not in signatures:
                print(f"CRASH {sig} -> {path}", flush=True)
            signatures.setdefault(sig, []).append(path)

    def save(case, header, history=None):
        body = reproducer_of(case, header, history)
        name = hashlib.sha1(body.encode()).hexdigest()[:16] + suffix
        os.makedirs(args.crash_dir, exist_ok=True)
        path = os.path.join(args.crash_dir, name)
        with open(path, "w") as f:
            f.write(body)
        return path

    start = time.monotonic()
    execs = run_pool(kind, lambda: make_case(rng), on_result, args.jobs, args.seconds,
                     args.max_execs, args.timeout)
    took = time.monotonic() - start
    print(f"{kind} fuzz: seed {seed}: {execs} executions in {took:.0f} s, "
          f"{stats['crash']} crashes ({len(signatures)} distinct), {stats['mismatch']} mismatches, "
          f"{stats['rejected']} rejected cleanly, {stats['disagree']} backend disagreements, "
          f"{stats['slow']} slow (not hung)")
    for sig, paths in sorted(signatures.items()):
        print(f"  crash {sig}: {len(paths)}x, e.g. {paths[0]}")
    return 1 if stats["crash"] or stats["mismatch"] else 0
