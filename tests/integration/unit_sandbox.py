# Exec the rest of argv under the seccomp part of the unit that the daemon's own
# code could trip on: SystemCallFilter=~@resources and ~@privileged with
# SystemCallErrorNumber=EPERM (the sets of systemd 252, x86_64 numbers;
# `systemd-analyze syscall-filter @resources @privileged`, the latter with its
# groups @chown @clock @module @raw-io @reboot @swap expanded; there is no nice()
# on x86_64). capset() is the one the daemon trips on: it drops its
# capabilities by starting again instead (docs/security.md).
import ctypes, os, struct, sys

RESOURCES = {
    "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "setrlimit": 160,
    "sched_setaffinity": 203, "mbind": 237, "set_mempolicy": 238, "ioprio_set": 251,
    "migrate_pages": 256, "move_pages": 279, "sched_setattr": 314,
    "set_mempolicy_home_node": 450,
}
PRIVILEGED = {
    "_sysctl": 156, "acct": 163, "adjtimex": 159, "bpf": 321, "capset": 126, "chown": 92,
    "chroot": 161, "clock_adjtime": 305, "clock_settime": 227, "delete_module": 176,
    "fanotify_init": 300, "fanotify_mark": 301, "fchown": 93, "fchownat": 260,
    "finit_module": 313, "init_module": 175, "ioperm": 173, "iopl": 172,
    "kexec_file_load": 320, "kexec_load": 246, "lchown": 94, "nfsservctl": 180,
    "open_by_handle_at": 304, "pivot_root": 155, "quotactl": 179, "quotactl_fd": 443,
    "reboot": 169, "setdomainname": 171, "setfsuid": 122, "setgroups": 116,
    "sethostname": 170, "setresuid": 117, "setreuid": 113, "settimeofday": 164,
    "setuid": 105, "swapoff": 168, "swapon": 167, "vhangup": 153,
}
AUDIT_ARCH_X86_64 = 0xC000003E
LD_ABS_W, JEQ_K, RET_K = 0x20, 0x15, 0x06
ALLOW, ERRNO_EPERM = 0x7FFF0000, 0x00050000 | 1


def insn(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)


nrs = sorted(set(RESOURCES.values()) | set(PRIVILEGED.values()))
prog = insn(LD_ABS_W, 4)  # seccomp_data.arch
prog += insn(JEQ_K, AUDIT_ARCH_X86_64, 1, 0) + insn(RET_K, ERRNO_EPERM)  # native only
prog += insn(LD_ABS_W, 0)  # seccomp_data.nr
for i, nr in enumerate(nrs):
    prog += insn(JEQ_K, nr, len(nrs) - i, 0)  # to the EPERM return below
prog += insn(RET_K, ALLOW) + insn(RET_K, ERRNO_EPERM)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


libc = ctypes.CDLL(None, use_errno=True)
fprog = SockFprog(len(prog) // 8, prog)
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or \
        libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0):
    sys.exit("seccomp: %s" % os.strerror(ctypes.get_errno()))
os.execv(sys.argv[1], sys.argv[1:])
