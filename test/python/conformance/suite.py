"""Runs the whole OpInfo conformance suite in child processes and collects the results.

See Note [OpInfo conformance] in opinfo_run.py. Each dtype runs in its own
child process (the two run side by side); when a child dies or hangs, the
entry it was running is recorded as `crash` / `hang` and a new child
continues with the next entry, so one bad entry never hides the others.
fp16 runs under the Ascend910B2 preset: its fp16 follows IEEE (inf/NaN), where
the 910A saturates fp16 overflow to ±65504 by design (third_party/ascend_sim/
OPS.md, "fp16 overflow"), which no CPU reference does.
"""
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "opinfo_run.py")
PYTHON = "/usr/bin/python3"
DTYPES = ("float32", "float16")
ENTRY_TIMEOUT_S = 120  # one entry's samples must finish within this [s]
DTYPE_ENV = {"float32": {}, "float16": {"ASCEND_SIM_SOC_VERSION": "Ascend910B2"}}
COMMON_ENV = {"ASCEND_LAUNCH_BLOCKING": "1"}  # errors are raised by the op that caused them


def _entry_count(dtype):
    out = subprocess.run([PYTHON, "-c", f"import sys; sys.path.insert(0, {HERE!r}); import opinfo_run; "
                                        f"print(len(opinfo_run.entries({dtype!r})))"],
                         capture_output=True, text=True, timeout=300, cwd="/tmp", check=True)
    return int(out.stdout.strip().splitlines()[-1])


def run_dtype(dtype):
    """{entry: {"status", "detail", "samples"}} for every entry of `dtype`."""
    total = _entry_count(dtype)
    env = dict(os.environ, **COMMON_ENV, **DTYPE_ENV[dtype])
    results, start = {}, 0
    while start < total:
        proc = subprocess.Popen([PYTHON, RUNNER, "--dtype", dtype, "--start", str(start)], cwd="/tmp", env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        running, last_line = None, [time.monotonic()]
        timer = threading.Thread(target=_watch, args=(proc, last_line), daemon=True)
        timer.start()
        for line in proc.stdout:
            last_line[0] = time.monotonic()
            record = json.loads(line)
            if "start" in record:
                running = record
            else:
                results[record["entry"]] = {k: record[k] for k in ("status", "detail", "samples")}
                running = None
                start = record["index"] + 1
        code = proc.wait()
        if running is None:
            if code != 0 and start < total:
                raise RuntimeError(f"the {dtype} OpInfo runner exited with {code} between entries")
            break
        how = "hang" if getattr(proc, "timed_out", False) else "crash"
        results[running["start"]] = {"status": how, "samples": 0,
                                     "detail": f"the process {'hung' if how == 'hang' else 'died'} "
                                               f"(exit status {code}) while running this entry"}
        start = running["index"] + 1
    return results


def _watch(proc, last_line):
    while proc.poll() is None:
        if time.monotonic() - last_line[0] > ENTRY_TIMEOUT_S:
            proc.timed_out = True
            proc.kill()
            return
        time.sleep(1)


def run_all():
    """{dtype: results} for both dtypes, run side by side."""
    results = {}
    threads = [threading.Thread(target=lambda d=d: results.__setitem__(d, run_dtype(d))) for d in DTYPES]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    missing = [d for d in DTYPES if d not in results]
    if missing:
        raise RuntimeError(f"the OpInfo run for {', '.join(missing)} failed (see the traceback above)")
    return results


if __name__ == "__main__":
    json.dump(run_all(), sys.stdout, indent=1, sort_keys=True)
