#!/usr/bin/env python3
"""The daemon's wakeups, thread by thread (docs/architecture.md#idle-wakeups).

  wakeups.py count PID SECONDS [--poll SECONDS] [--budget FILE]
  wakeups.py sleeps PID NOT_BEFORE [--main-by SECONDS]

count: for every thread of PID and of its children (the device process), the
growth over SECONDS of voluntary_ctxt_switches (the thread went to sleep: one
per wakeup, and load does not add to it) and nonvoluntary_ctxt_switches
(preempted: it grows with the machine's load, not with the daemon's wakeups)
of /proc/PID/task/TID/status, as a table: process, thread (comm), both counts,
voluntary ones per second and per poll interval (--poll).
--budget FILE: lines "PROCESS THREAD-GLOB PER_POLL [EXTRA]": a thread whose
names match may go to sleep at most PER_POLL times per poll interval in the
window (SECONDS / --poll, plus one: a window holds one more poll than its
length in intervals) plus EXTRA; the first line that matches counts; a thread
that matches none may not wake at all. Exit 1 naming every thread over it.

sleeps: what every thread of PID and its children sleeps in now, from
/proc/PID/task/TID/syscall (x86_64 only; reading it, and /proc/PID/mem for a
timeout passed by address, takes root or ptrace rights: else exit 77), and when
it wakes by itself: never (no timeout) or after a deadline. Exit 1 naming every
thread whose deadline comes within NOT_BEFORE seconds: at idle with a long
poll interval, no thread may wake before the next poll. --main-by: the main
loop (thread nvmond of the daemon) must wake by then instead (a deadline it
was given, such as a scheduled start), and no other thread before NOT_BEFORE.
"""
import fnmatch
import os
import platform
import struct
import sys
import time


def processes(pid):
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            pids += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return pids


def read(path):
    with open(path) as f:
        return f.read().strip()


def threads(pid):
    """{(pid, tid): (process comm, thread comm, voluntary, nonvoluntary)}."""
    out = {}
    for p in processes(pid):
        try:
            pcomm = read(f"/proc/{p}/comm")
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                comm = read(f"/proc/{p}/task/{t}/comm")
                v = n = 0
                for line in read(f"/proc/{p}/task/{t}/status").splitlines():
                    if line.startswith("voluntary_ctxt_switches:"):
                        v = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        n = int(line.split()[1])
            except OSError:
                continue
            out[(p, int(t))] = (pcomm, comm, v, n)
    return out


def count(args):
    poll = budget = None
    if "--poll" in args:
        i = args.index("--poll")
        poll = float(args[i + 1])
        del args[i : i + 2]
    if "--budget" in args:
        i = args.index("--budget")
        budget = args[i + 1]
        del args[i : i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    pid, secs = int(args[0]), float(args[1])
    t0 = threads(pid)
    time.sleep(secs)
    t1 = threads(pid)
    rows = []
    for key, (pcomm, comm, v, n) in sorted(t1.items()):
        v0, n0 = t0.get(key, (pcomm, comm, 0, 0))[2:]
        rows.append((pcomm, comm, key[1], v - v0, n - n0))
    polls = secs / poll if poll else None
    print("| process | thread | tid | voluntary | nonvoluntary | voluntary/s |"
          + (" per poll |" if polls else ""))
    print("|---|---|---|---|---|---|" + ("---|" if polls else ""))
    tv = tn = 0
    for pcomm, comm, tid, v, n in rows:
        tv += v
        tn += n
        print(f"| {pcomm} | {comm} | {tid} | {v} | {n} | {v / secs:.2f} |"
              + (f" {v / polls:.2f} |" if polls else ""))
    print(f"| all | all | | {tv} | {tn} | {tv / secs:.2f} |"
          + (f" {tv / polls:.2f} |" if polls else ""))
    if not budget:
        return 0
    rules = []
    with open(budget) as f:
        for line in f:
            w = line.split("#")[0].split()
            if w:
                rules.append((w[0], w[1], float(w[2]), float(w[3]) if len(w) > 3 else 0.0))
    bad = []
    for pcomm, comm, tid, v, n in rows:
        allowed = 0.0
        for rp, rt, per_poll, extra in rules:
            if fnmatch.fnmatchcase(pcomm, rp) and fnmatch.fnmatchcase(comm, rt):
                allowed = per_poll * ((polls or 0) + 1) + extra
                break
        if v > allowed:
            bad.append(f"thread {comm} of {pcomm} (tid {tid}) woke {v} times in {secs:g} s, "
                       f"allowed {allowed:g}")
    for b in bad:
        print("over budget: " + b)
    return 1 if bad else 0


# x86_64 system call numbers of the sleeps a thread of the daemon may be in.
NR = {0: "read", 7: "poll", 23: "select", 35: "nanosleep", 45: "recvfrom", 47: "recvmsg",
      61: "wait4", 202: "futex", 230: "clock_nanosleep", 232: "epoll_wait",
      270: "pselect6", 271: "ppoll", 281: "epoll_pwait", 426: "io_uring_enter",
      441: "epoll_pwait2"}
FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_CLOCK_REALTIME = 0, 9, 256


def timespec(pid, addr):
    """The struct timespec at @addr in @pid's memory, in seconds."""
    with open(f"/proc/{pid}/mem", "rb") as f:
        f.seek(addr)
        sec, nsec = struct.unpack("qq", f.read(16))
    return sec + nsec / 1e9


def sleep_of(pid, tid):
    """(what, seconds until it wakes by itself or None for never), or None while it runs."""
    line = read(f"/proc/{pid}/task/{tid}/syscall")
    if line == "running" or line.startswith("-1"):
        return None
    w = line.split()
    nr, a = int(w[0]), [int(x, 16) for x in w[1:7]]
    name = NR.get(nr, f"system call {nr}")
    ms = lambda v: None if v >= 0x80000000 else v / 1000  # an int: -1 is forever
    if nr == 7:
        return name, ms(a[2] & 0xffffffff)
    if nr in (232, 281):
        return name, ms(a[3] & 0xffffffff)
    if nr in (271, 441):
        return name, timespec(pid, a[2] if nr == 271 else a[3]) if a[2 if nr == 271 else 3] else None
    if nr == 202:
        op = a[1] & 127
        if op not in (FUTEX_WAIT, FUTEX_WAIT_BITSET) or not a[3]:
            return name, None
        t = timespec(pid, a[3])
        if op == FUTEX_WAIT:
            return name, t
        now = time.time() if a[1] & FUTEX_CLOCK_REALTIME else time.clock_gettime(time.CLOCK_MONOTONIC)
        return name, t - now
    if nr == 35:
        return name, timespec(pid, a[0])
    if nr == 230:
        t = timespec(pid, a[2])
        if a[1] & 1:  # TIMER_ABSTIME
            t -= time.clock_gettime(a[0])
        return name, t
    if nr in (23, 270):
        # The relative timeout asked for (the kernel writes what is left only on return):
        # a timeval for select, a timespec for pselect6.
        if not a[4]:
            return name, None
        t = timespec(pid, a[4])
        return name, (int(t) + (t - int(t)) * 1e3 if nr == 23 else t)
    return name, None


def sleeps(args):
    main_by = None
    if "--main-by" in args:
        i = args.index("--main-by")
        main_by = float(args[i + 1])
        del args[i : i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    pid, not_before = int(args[0]), float(args[1])
    if platform.machine() != "x86_64":
        print("SKIP: the system call numbers here are x86_64's")
        return 77
    bad, rows = [], []
    for p in processes(pid):
        pcomm = read(f"/proc/{p}/comm")
        for t in sorted(os.listdir(f"/proc/{p}/task"), key=int):
            comm = read(f"/proc/{p}/task/{t}/comm")
            s = None
            for _ in range(50):  # a thread caught running: look again
                try:
                    s = sleep_of(p, t)
                except PermissionError:
                    print("SKIP: /proc/PID/task/TID/syscall needs root or ptrace rights")
                    return 77
                if s:
                    break
                time.sleep(0.02)
            if not s:
                bad.append(f"thread {comm} of {pcomm} (tid {t}) never sleeps")
                continue
            what, left = s
            if isinstance(left, str):
                bad.append(f"thread {comm} of {pcomm} (tid {t}) sleeps in {what} with {left}")
                left = None
            rows.append(f"| {pcomm} | {comm} | {t} | {what} | "
                        + ("never" if left is None else f"in {left:.1f} s") + " |")
            if main_by is not None and p == pid and int(t) == pid:  # the main thread
                if left is None or left > main_by:
                    bad.append(f"the main loop (tid {t}) sleeps in {what} "
                               + ("without a deadline" if left is None
                                  else f"until {left:.3f} s from now")
                               + f", past its deadline in {main_by:g} s")
            elif left is not None and left < not_before:
                bad.append(f"thread {comm} of {pcomm} (tid {t}) sleeps in {what} until "
                           f"{left:.3f} s from now, before the next poll ({not_before:g} s)")
    print("| process | thread | tid | sleeps in | wakes by itself |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    for b in bad:
        print("wakes early: " + b)
    return 1 if bad else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("count", "sleeps"):
        sys.exit(__doc__)
    return (count if sys.argv[1] == "count" else sleeps)(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
