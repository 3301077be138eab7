#!/usr/bin/env python3
"""Kills `hsg explore` at exact moments and checks that the resume gives the same store.

The resume test (`tests/resume.rs`) kills runs at random times; this driver kills them at
the entry of the Nth call of a system call (strace's fault injection, `signal=KILL`), for
every N until a run completes, then resumes the run to its end and compares its data files
with an uninterrupted run's. With a second stage it first kills a fresh run at one fixed
point (say `fdatasync@2`, before the first checkpoint is durable) and enumerates the kill
points of the run that resumes it. The counts are per thread (strace counts per tracee).

    tests/kill_points.py HSG CASE OUTDIR SYSCALLS            # one kill, then resume
    tests/kill_points.py HSG CASE OUTDIR SYSCALL@N SYSCALLS  # a fixed kill, then the resume's

CASE is 1 to 4, the cases of `tests/resume.rs`; SYSCALLS a comma-separated list such as
`unlink,rename,ftruncate,openat,fsync,fdatasync`. OUTDIR gets `log` (a line a kill point:
`ok`, `FAIL` with the resume's message, or `MISMATCH`) and, for each failure, the directory
as the kill left it (`fail-POINT/`, `mismatch-POINT/`) and the resume's messages. Needs
strace; run it at `nice -n 19` (docs/testing.md, "Kill points").
"""
import filecmp
import os
import shutil
import subprocess
import sys

LEVELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "levels", "sokoban")
# The cases of tests/resume.rs.
CASES = {
    1: ["room3.xsb", "--max-states", "600000"],
    2: ["room4.xsb", "--max-states", "400000", "--threads", "2"],
    3: ["room3.xsb", "--max-depth", "40", "--index-limit", "200000", "--round-candidates", "50000"],
    4: ["room3.xsb", "--hsg-depth", "3", "--max-states", "400000"],
}
# What legitimately differs between two runs of one exploration (tests/util.rs).
SKIP = ["MANIFEST", "meta.sled", "LOCK", "scratch", "hsg"]


def explore_args(hsg, case, store):
    level, *extra = CASES[case]
    return [hsg, "explore", os.path.join(LEVELS, level), "--store", store,
            "--checkpoint-secs", "0.05", *extra]


def killed_at(args, syscall, n):
    """Runs `args` under strace, killed at the entry of the nth `syscall`; its exit code."""
    strace = ["strace", "-f", "-o", "/dev/null", "-e", f"trace={syscall}",
              "-e", f"inject={syscall}:signal=KILL:when={n}"]
    return subprocess.run(strace + args, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def data_files(store):
    return sorted(n for n in os.listdir(store)
                  if not os.path.isdir(os.path.join(store, n))
                  and not any(n.startswith(s) for s in SKIP))


def difference(reference, store):
    names = data_files(reference)
    if names != data_files(store):
        return f"files {names} against {data_files(store)}"
    for name in names:
        if not filecmp.cmp(os.path.join(reference, name), os.path.join(store, name),
                           shallow=False):
            return f"{name} differs"
    return None


class Driver:
    def __init__(self, hsg, case, out):
        self.hsg, self.case, self.out = hsg, case, out
        os.makedirs(out, exist_ok=True)
        self.log = open(os.path.join(out, "log"), "a")
        self.store = os.path.join(out, "run")
        self.reference = os.path.join(out, "reference")
        if not os.path.exists(os.path.join(self.reference, "MANIFEST")):
            shutil.rmtree(self.reference, ignore_errors=True)
            subprocess.run(self.args(self.reference), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)

    def args(self, store):
        return explore_args(self.hsg, self.case, store)

    def say(self, line):
        print(line, file=self.log, flush=True)

    def keep(self, kind, point, before, messages=""):
        """Keeps the directory as the kill left it, and the resume's messages."""
        kept = os.path.join(self.out, f"{kind}-{point}")
        shutil.rmtree(kept, ignore_errors=True)
        os.rename(before, kept)
        with open(kept + ".err", "w") as f:
            f.write(messages)

    def resume_and_compare(self, point):
        before = self.store + ".before"
        shutil.rmtree(before, ignore_errors=True)
        if os.path.exists(self.store):
            shutil.copytree(self.store, before, symlinks=True)
        else:
            os.makedirs(before)
        done = subprocess.run(self.args(self.store), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        messages = done.stderr.decode(errors="replace")
        if done.returncode != 0:
            self.keep("fail", point, before, messages)
            first = messages.strip().splitlines()[:1]
            self.say(f"FAIL {point}: exit {done.returncode}: {first}")
        elif why := difference(self.reference, self.store):
            self.keep("mismatch", point, before, messages)
            self.say(f"MISMATCH {point}: {why}")
        else:
            shutil.rmtree(before, ignore_errors=True)
            self.say(f"ok {point}")

    def every_kill(self, prepare, syscalls, prefix=""):
        for syscall in syscalls.split(","):
            n = 1
            while True:
                prepare()
                point = f"{prefix}{syscall}@{n}"
                if killed_at(self.args(self.store), syscall, n) == 0:
                    self.say(f"end {point}: the run completed")
                    break
                self.resume_and_compare(point)
                n += 1


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    hsg, case, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    driver = Driver(os.path.abspath(hsg), case, out)

    def fresh():
        shutil.rmtree(driver.store, ignore_errors=True)

    if len(sys.argv) == 5:
        driver.every_kill(fresh, sys.argv[4])
    else:
        syscall, n = sys.argv[4].split("@")

        def first_kill():
            fresh()
            if killed_at(driver.args(driver.store), syscall, int(n)) == 0:
                sys.exit(f"{sys.argv[4]}: the first run completed before it")

        driver.every_kill(first_kill, sys.argv[5], prefix=sys.argv[4] + "+")
    driver.say("done")
    shutil.rmtree(driver.store, ignore_errors=True)


if __name__ == "__main__":
    main()
