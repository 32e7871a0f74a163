#!/usr/bin/env python3
"""A/B of two builds of the CPU plugin on this machine: xd-bench runs once per build per round,
alternating which goes first, each build's plugin picked by XD_PLUGIN_PATH; per workload the
median over the rounds of each round's median time and of its fraction of that run's copy.
Rounds alternate because this machine's speed drifts over seconds (docs/performance.md).

Usage: bench/cpu_ab.py ROUNDS DIR_A DIR_B -- XD_BENCH_ARGS...
  DIR_A, DIR_B: folders holding a libxd_plugin_cpu.so each (e.g. copies of two builds').
  XD_BENCH_ARGS: as for xd-bench, without --backend and --json (this script adds them).
Run it from the repository root with build/default built; take the build lock
(flock /tmp/xd-build.lock ...) so nothing else runs meanwhile.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main(argv):
    if "--" not in argv or argv.index("--") != 4:
        sys.exit(__doc__)
    rounds, dirs, bench = int(argv[1]), argv[2:4], argv[5:]
    if rounds < 1 or not all(os.path.isfile(os.path.join(d, "libxd_plugin_cpu.so")) for d in dirs):
        sys.exit("ROUNDS must be >= 1 and each DIR must hold libxd_plugin_cpu.so")
    times = [{}, {}]
    copies = [[], []]
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for i in ([0, 1] if r % 2 == 0 else [1, 0]):
                out = os.path.join(tmp, f"{i}.json")
                env = dict(os.environ, XD_PLUGIN_PATH=os.path.abspath(dirs[i]))
                subprocess.run(["build/default/bin/xd-bench", "--backend", "cpu", "--json", out] + bench,
                               env=env, check=True, stdout=subprocess.DEVNULL)
                with open(out) as f:
                    data = json.load(f)
                copy = data["devices"][0]["copy_gbps"]
                copies[i].append(copy)
                for row in data["results"]:
                    if row["status"] == "ok":
                        times[i].setdefault((row["op"], row["dtype"]), []).append(
                            (row["median_ms"], row["gbps"] / copy, row["kernels"]))
    print(f"{rounds} rounds; copy GB/s (medians): A {statistics.median(copies[0]):.1f}, "
          f"B {statistics.median(copies[1]):.1f}")
    print(f"{'op':18} {'dtype':6} {'A ms':>9} {'A %copy':>8} {'B ms':>9} {'B %copy':>8} {'B/A':>6}  B kernels")
    for key in times[0]:
        if key not in times[1]:
            continue
        a, b = times[0][key], times[1][key]
        ams, bms = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
        afr, bfr = statistics.median(x[1] for x in a), statistics.median(x[1] for x in b)
        print(f"{key[0]:18} {key[1]:6} {ams:9.3f} {100 * afr:7.0f}% {bms:9.3f} {100 * bfr:7.0f}% "
              f"{bms / ams:6.2f}  {','.join(b[-1][2])}")


if __name__ == "__main__":
    main(sys.argv)
