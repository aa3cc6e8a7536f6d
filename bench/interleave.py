#!/usr/bin/env python3
"""Whole-process CPU of several commands run in turn, one run of each per
round, so that a loaded machine's drift falls on all of them alike (issue 22:
the run store's cost in a one-shot chat, docs/benchmarks.md). For each
command: min / median / max CPU (user + system, every thread: wait4), and
the median of its per-round difference from the first command.

    python3 bench/interleave.py -n 100 -- 'build/medreact chat ... --no-store Q' \\
        'build/medreact chat ... --store /tmp/runs.sqlite Q'

Each command is one shell-quoted string (split with shlex).
"""
import argparse
import shlex
import statistics

from cold_start import run_once


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=50, help="rounds (default 50)")
    parser.add_argument("commands", nargs="+", help="commands, each one quoted string")
    args = parser.parse_args()
    commands = [shlex.split(c) for c in args.commands if c != "--"]
    for argv in commands:
        run_once(argv)  # warm-up: page cache
    cpu = [[] for _ in commands]
    for _ in range(args.n):
        for i, argv in enumerate(commands):
            ms, code = run_once(argv)
            if code != 0:
                raise SystemExit(f"exit {code}: {' '.join(argv)}")
            cpu[i].append(ms)
    for i, argv in enumerate(commands):
        runs = sorted(cpu[i])
        line = f"[{i}] cpu ms: min {runs[0]:.2f}  median {statistics.median(runs):.2f}  max {runs[-1]:.2f}"
        if i > 0:
            diff = statistics.median(b - a for a, b in zip(cpu[0], cpu[i]))
            line += f"   median of (this - [0]) per round: {diff:+.2f}"
        print(line + f"   ({' '.join(argv)[:100]})")


if __name__ == "__main__":
    main()
