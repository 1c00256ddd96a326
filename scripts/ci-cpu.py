#!/usr/bin/env python3
"""Where a CI run's CPU went, by program and by test file, from Linux process accounting.

The suite is CPU-bound on a two-core machine, so its length is its CPU work over two cores; this says whose
work it is. Every process that ends is written to the accounting file with its CPU time, parent and start
second; a test file's CPU is that of its vitest process and of everything that process started (booksync
processes, Tryton, a Temporal server, a PostgreSQL cluster of its own). Each test file names its process in
the file BOOKSYNC_TEST_PROCESSES names (test/support/record-test-process.ts).

    apt-get install acct                                    # once (Debian)
    accton /var/log/account/pacct                           # before the run; `accton off` after
    BOOKSYNC_TEST_PROCESSES=$PWD/test/.artifacts/test-processes.tsv bash .ci/run
    python3 scripts/ci-cpu.py /var/log/account/pacct test/.artifacts/test-processes.tsv [how many files]

What the shared servers do for the files (the run's PostgreSQL cluster, its Temporal dev server) counts
under the program's total, not under a file. The unit tier's files share their processes: such a process
is listed once, under all its files.
"""

import collections
import os
import subprocess
import sys
import time


def read_accounting(path):
    os.environ["TZ"] = "UTC"
    time.tzset()
    dump = subprocess.run(["dump-acct", path], capture_output=True, text=True, check=True).stdout
    processes = []
    for line in dump.splitlines():
        fields = [f.strip() for f in line.split("|")]
        if len(fields) < 15:
            continue
        processes.append(
            {
                "program": fields[0],
                # utime and stime in clock ticks (AHZ, 100 a second); etime likewise.
                "cpu": (float(fields[2]) + float(fields[3])) / 100,
                "seconds": float(fields[4]) / 100,
                "pid": fields[9],
                "ppid": fields[10],
                "began": time.mktime(time.strptime(fields[14], "%a %b %d %H:%M:%S %Y")),
            }
        )
    return processes


def subtree(process, by_parent):
    """CPU by program of a process and what it started during its life (a reused pid is another process)."""
    cpu = collections.Counter({process["program"]: process["cpu"]})
    end = process["began"] + process["seconds"] + 2
    for child in by_parent.get(process["pid"], []):
        if process["began"] - 1 <= child["began"] <= end:
            cpu.update(subtree(child, by_parent))
    return cpu


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    processes = read_accounting(sys.argv[1])
    shown = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    totals = collections.Counter()
    for p in processes:
        totals[p["program"]] += p["cpu"]
    print(f"CPU seconds by program, every process that ended ({sum(totals.values()):.0f} s in all):")
    for program, cpu in totals.most_common(15):
        print(f"  {cpu:8.0f}  {program}")

    by_parent = collections.defaultdict(list)
    for p in processes:
        by_parent[p["ppid"]].append(p)
    # pid -> {second it started: the files that ran in it} (the unit tier's files share a process).
    recorded = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(sys.argv[2]) as lines:
        for line in lines:
            pid, started, name = line.rstrip("\n").split("\t", 2)
            recorded[pid][int(started)].append(os.path.relpath(name))
    rows = []
    for p in processes:
        # The process a file ran in: its id, started within a second or two of when it says it did.
        starts = recorded.get(p["pid"], {})
        started = next((s for s in starts if abs(s - p["began"]) <= 2), None)
        if started is not None:
            cpu = subtree(p, by_parent)
            rows.append((sum(cpu.values()), p["seconds"], starts.pop(started), cpu))
    rows.sort(key=lambda r: -r[0])
    print(f"\nCPU seconds by test file's process ({len(rows)} processes), with its length:")
    for cpu, seconds, names, programs in rows[:shown]:
        parts = ", ".join(f"{k} {v:.0f}" for k, v in programs.most_common(4) if v >= 1)
        label = names[0] if len(names) == 1 else f"{len(names)} files ({names[0]}, ...)"
        print(f"  {cpu:6.0f} CPU-s {seconds:6.0f} s  {label}  ({parts})")


if __name__ == "__main__":
    main()
