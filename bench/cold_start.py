#!/usr/bin/env python3
"""Whole-process CPU of a command (user + system, every thread, as the kernel
accounts the finished child: wait4), median of N runs after one warm-up run.
For cold start-up figures (docs/benchmarks.md, issue 11): /usr/bin/time
rounds CPU to 10 ms, too coarse for a 5 ms start-up. (No memory figure: a
spawned child's peak RSS counts the launcher's own memory before exec.)

    python3 bench/cold_start.py -n 50 -- build/medreact --help
"""
import argparse
import os
import statistics
import sys


def run_once(argv):
    devnull = os.open(os.devnull, os.O_RDWR)
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0),
                                        (os.POSIX_SPAWN_DUP2, devnull, 1),
                                        (os.POSIX_SPAWN_DUP2, devnull, 2)])
    os.close(devnull)
    _, status, usage = os.wait4(pid, 0)
    return (usage.ru_utime + usage.ru_stime) * 1e3, os.waitstatus_to_exitcode(status)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=30, help="counted runs (default 30)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not argv:
        parser.error("no command")
    run_once(argv)  # warm-up: page cache
    runs = [run_once(argv) for _ in range(args.n)]
    cpu = sorted(r[0] for r in runs)
    codes = sorted({r[1] for r in runs})
    print(f"cpu ms: min {cpu[0]:.2f}  median {statistics.median(cpu):.2f}  max {cpu[-1]:.2f}   "
          f"exit {codes}   ({args.n} runs: {' '.join(argv)})")


if __name__ == "__main__":
    sys.exit(main())
