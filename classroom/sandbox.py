"""How the student's programs run (classroom/grade.py, items.py): the sandbox (a user of its own
per run, a group of its own per student, every leftover process killed after each run), the
limits on a run (no input, a timeout, its output capped), and the harness's token, seed and
verdict file (classroom/grader/verdict.h): only the lines with its run's token in the file that
its judge alone has open are its verdicts.
docs/instructor.md ("The grader's own files") says what is and is not isolated.
"""
import contextlib
import fcntl
import grp
import hashlib
import os
import pwd
import re
import secrets
import shutil
import signal
import stat
import tempfile

from compiled import stop_all
from runs import ROOT, TIMEOUT, gpu_lock, jobs, run, still_trusted

# The ids the students' programs run as, where the grader is root: one group per student
# graded (their out folder is that group's alone, so that one student's programs cannot touch
# another's), one user per run (after the run every process of that user is killed, so that
# nothing a run started outlives it, whatever it did to leave its process group). They are ids
# no account uses (GRADE_UID_BASE, default 45000, and the 2000 after it), each taken with a
# lock file of its own in one folder for the whole machine (id_folder()), so that graders running
# at once never share one, whatever course folder or clone each grades from.
ID_BASE = int(os.environ["GRADE_UID_BASE"]) if os.environ.get("GRADE_UID_BASE", "").isdigit() \
    else 45000
ID_COUNT = 2000
# What a student's run may print: the grader keeps its start and its end, and stops a run that
# prints more than OUTPUT_LIMIT (the item says so).
OUTPUT_HEAD, OUTPUT_TAIL, OUTPUT_LIMIT = 256 << 10, 64 << 10, 8 << 20
# Processes (threads count) one run's user may have at once: a fork bomb stops there. The count
# is per run: a run's user is an id with no process at all when the run starts (zombies count:
# the kernel counts them against the limit until they are reaped; take_id()).
NPROC = 512
# Each run on a machine without a GPU in a PID namespace of its own where the grader can make one
# (root, util-linux's unshare, a kernel and container that allow it; Sandbox.why_not() tries it):
# when the run's first process ends, the kernel kills every process of the namespace and reaps
# them all, so a run leaves no process and no zombie (a zombie whose parent is gone goes to the
# machine's PID 1, which may reap it late: the second gaming review saw 255 of one uid, and later
# runs as that uid could not start their threads). A small shell is the namespace's first process
# (PID 1 ignores signals it has no handler for, which would change how the student's program
# dies); it reports a program killed by signal S as 128 + S, turned back into -S. Where no
# namespace can be made the run goes without, and a uid left with zombies is not taken again
# (take_id()). Not on a GPU: on the H200 (2026-12-03, docs/experiments/runs_2026-12-03/
# kit_h200_run2/) every run under compute-sanitizer stalled when the runs had namespaces, four
# at once, and none had stalled without them earlier that day (kit_h200/). A hypothesis for why:
# compute-sanitizer's front end and its target meet through local TCP ports, and in namespaces
# every run's processes have the same small ids, so concurrent runs may pair up wrongly.
PID_NAMESPACE = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--"]
PID_ONE = ["/bin/sh", "-c", '"$@"; exit $?', "sh"]


# The grader's variables a harness's judge reads (classroom/grader/verdict.h, harness_cpu.c):
# every other GRADE_* is taken out of a run's environment (the fourth gaming review: a part can
# tell it is graded from them), and the harness's child drops these too before any of the
# student's code runs, but GRADE_BIG (the n > 2^31 run's size, which its n shows anyway).
HARNESS_NEEDS = ("GRADE_FD", "GRADE_VERDICT_FD", "GRADE_SEGMENT", "GRADE_BIG",
                 "GRADE_RUN_OWN_UID", "GRADE_RUN_PID_NS", "GRADE_TIMING_MIN_CPUS",
                 "GRADE_SHARE_DEBUG")


def judge_env(cfg, env=None):
    """A harness run's environment with what its judge needs from the grader, not from the
    student's program: the chapter's segment length (classroom/grader/verdict.h)."""
    return dict(env or os.environ, GRADE_SEGMENT=str(cfg.get("segment", 0)))


def gpu_run_env():
    """What every run of a GPU chapter's code gets, the speed item's too (a part that could
    tell the speed run from the others by its environment could do less there, and the radix
    sort's timed sorts are not checked one by one): its device synchronizations sleep rather
    than spin (SCAN_CUDA_BLOCKING_SYNC, common/cuda_util.cu), and its OpenMP work (the
    chapters' data and reference, common/data.c) takes one grade's share of the cores, its idle
    threads asleep. On the H200 on 2026-12-04 a
    batch of GPU grades used 94 minutes of CPU in 6.7 minutes of wall clock on 16 cores without
    them, and 16 minutes for the whole batch in 2.8 minutes with them
    (docs/experiments/kit_cpu.md)."""
    share = max(1, (os.cpu_count() or 1) // jobs(False))
    return {"SCAN_CUDA_BLOCKING_SYNC": "1", "OMP_NUM_THREADS": str(share),
            "OMP_WAIT_POLICY": "passive"}


# The users whose runs are going on now, in every thread of this process (stop_on_signals()).
ACTIVE_UIDS = set()
# The signal that is stopping the grader, once one is (stop_on_signals()): a run killed then is
# "interrupted", the only way a run is (review 3, #1: a program's own SIGKILL is its failure).
STOPPING = []


def stop_on_signals():
    """When the grader is stopped (SIGTERM from `timeout` or a batch system, SIGINT from ^C,
    SIGHUP), kill every run it has going, and the processes of their users, before it exits
    with 128 + the signal: a run must not outlive its grader (on 2026-12-03 four sanitizer runs
    of a stopped grader were still running 22 minutes later). Call it from the main thread."""
    def stop(signum, frame):
        STOPPING.append(signum)
        stop_all()
        for uid in list(ACTIVE_UIDS):
            kill_uid(uid)
        os._exit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, stop)


def uid_processes(uid, zombies=False):
    """The pids of the live processes any of whose user ids is uid (zombies too if `zombies`:
    a zombie does nothing and cannot be killed, but counts against the uid's process limit)."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                fields = dict(l.split(":", 1) for l in f if ":" in l)
        except OSError:
            continue
        if str(uid) in fields.get("Uid", "").split() and \
                (zombies or not fields.get("State", "").strip().startswith(("Z", "X"))):
            pids.append(int(pid))
    return pids


def kill_uid(uid):
    """Kill every process of uid, again until none is left (one may fork while we look)."""
    for _ in range(100):
        pids = uid_processes(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass


# The folders where any user may leave files that outlive a run (the top of each is searched):
# the temporary folders and POSIX shared memory and message queues.
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")


def remove_leftovers(uid):
    """Remove what a run's user left behind after its processes are gone (the fourth gaming
    review, S06: 64 MiB files in /dev/shm and 98 SysV segments of 64 MiB outlived their runs,
    and uids are reused): its files and folders at the top of SHARED_FOLDERS and of $TMPDIR,
    and its System V shared memory, semaphores and message queues (/proc/sysvipc, ipcrm).
    Returns what could not be removed (the grader's own problem, not the student's)."""
    left = []
    for folder in dict.fromkeys(SHARED_FOLDERS + (tempfile.gettempdir(),)):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            try:
                if e.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path)
                else:
                    os.unlink(e.path)
            except FileNotFoundError:
                pass
            except OSError as err:
                left.append(f"{e.path}: {err.strerror}")
    for kind, flag in (("shm", "-m"), ("sem", "-s"), ("msg", "-q")):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                head = f.readline().split()
                rows = [l.split() for l in f]
        except OSError:
            continue
        ident = head[1]  # shmid, semid or msqid
        for r in rows:
            row = dict(zip(head, r))
            if str(uid) in (row.get("uid"), row.get("cuid")):
                status, out = run(["ipcrm", flag, row[ident]])
                if status:
                    left.append(f"System V {kind} {row[ident]}: {out.strip()[:100]}")
    return left


def id_folder():
    """The folder of the ids' lock files, one for the machine (every course folder, clone and
    grader shares it: GRADE_ID_LOCKS, else /run/scan-course-grade-ids as root, else one per
    user in the temporary folder). It must be the grader's user's own, a folder, not a link, and
    writable by no one else; else OSError (the grader then runs no program as another user)."""
    folder = os.environ.get("GRADE_ID_LOCKS") or (
        "/run/scan-course-grade-ids" if os.geteuid() == 0 and os.access("/run", os.W_OK) else
        os.path.join(tempfile.gettempdir(), f"scan-course-grade-ids-{os.geteuid()}"))
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise OSError(f"{folder} is not a folder of the grader's own user that only it may "
                      f"write (remove it, or set GRADE_ID_LOCKS)")
    return folder


def take_id():
    """(an id no account, group or process uses, its lock file held open), or (None, None)."""
    try:
        folder = id_folder()
    except OSError:
        return None, None
    for k in range(ID_COUNT):
        i = ID_BASE + k
        f = open(os.path.join(folder, str(i)), "a")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue
        try:
            pwd.getpwuid(i)
            used = True
        except KeyError:
            try:
                grp.getgrgid(i)
                used = True
            except KeyError:
                used = bool(uid_processes(i, zombies=True))
        if not used:
            return i, f
        f.close()
    return None, None


def oom_kills():
    """The machine's count of processes the out-of-memory killer has killed (/proc/vmstat), or
    None where it cannot be read."""
    try:
        with open("/proc/vmstat") as f:
            return next((int(l.split()[1]) for l in f if l.startswith("oom_kill ")), None)
    except OSError:
        return None


def run_seed(seed, name):
    """The seed of one harness run: a hash of the instructor's seed and the run's name, which
    tells nothing of the seed or of another run's vectors."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{name}".encode()).digest()[:8], "little") >> 1


VERDICT = re.compile(r"\[grader ([0-9a-f]{32})\] ([^\n]*)")
VERDICTS_LIMIT = 1 << 20  # what the grader reads of a run's verdict file


def verdicts(out, token):
    """The harness's verdicts in its verdict file: the texts of the lines with the run's token,
    wherever in a line they start."""
    return [m.group(2).rstrip() for m in VERDICT.finditer(out) if m.group(1) == token]


def shown(out):
    """A harness run's output as the student sees it: no tokens."""
    return re.sub(r"\[grader [0-9a-f]{32}\] ", "", out)


class Sandbox:
    """How the student's programs run. Where the grader is root and setpriv is there: each run
    as a user of its own, in this student's group, in an output folder (out) that is that
    group's alone, while the course, the build, the grader's files and the other students'
    folders stay out of reach; each run in a PID namespace of its own where one can be made
    (PID_NAMESPACE), and after each run every process of its user is killed and what it left
    in the shared folders and System V IPC removed (remove_leftovers()). Else (not
    root, no setpriv, no free id, the programs not reachable, or the GPU not usable by such a
    user) as the grader's own user, with `note` saying why. Either way: no input, its process
    group killed when it ends, its output capped (OUTPUT_LIMIT), no GRADE_* variable in its
    environment but those a harness's judge needs (HARNESS_NEEDS); the grader's programs are
    compared with their hashes (TRUSTED) before each use, and a changed one is in `tampered`."""

    def __init__(self, work, programs, inputs, gpu):
        self.prefix, self.note, self.tampered, self.gpu = [], None, [], gpu
        self.interrupted = []  # the runs killed while the grader itself was being stopped
        self.killed = []  # the runs killed by a SIGKILL the grader did not send: failed
        self.leftovers = []  # what a run's user left that the grader could not remove
        self.gid, self._gid_lock, self.pid_namespace = None, None, []
        self.out = os.path.join(work, "out")
        os.makedirs(self.out, exist_ok=True)
        self.env = {}
        why = self.why_not(work, programs, inputs, gpu)
        if why:
            self.close()
            self.prefix, self.gid, self.env = [], None, {}
            self.note = (f"the student's programs ran as the grader's own user ({why}); the "
                         f"grader's files were checked against their hashes instead")

    def close(self):
        """Give back this student's group id (a later student may take it)."""
        if self._gid_lock:
            self._gid_lock.close()
            self._gid_lock = None

    def why_not(self, work, programs, inputs, gpu):
        if os.geteuid() != 0:
            return "the grader does not run as root, so it cannot run them as another user"
        setpriv = shutil.which("setpriv")
        if not setpriv:
            return "setpriv (util-linux) is not installed"
        self.gid, self._gid_lock = take_id()
        if self.gid is None:
            try:
                where = id_folder()
            except OSError as e:
                return str(e)
            return f"no free id from {ID_BASE} (GRADE_UID_BASE) on, locks in {where}"
        self.prefix = [setpriv]
        if not gpu and shutil.which("unshare") and run(PID_NAMESPACE + ["true"])[0] == 0:
            self.pid_namespace = PID_NAMESPACE
        # this student's folder: their group's alone (another student's runs cannot reach it)
        os.chown(work, 0, self.gid)
        os.chmod(work, 0o750)
        os.chown(self.out, 0, self.gid)
        os.chmod(self.out, 0o770)
        self.env = {"HOME": self.out}
        test = ['for f; do case $f in x:*) [ -x "${f#x:}" ] || { echo "cannot run ${f#x:}"; '
                'exit 1; };; r:*) [ -r "${f#r:}" ] || { echo "cannot read ${f#r:}"; exit 1; };; '
                'w:*) [ -w "${f#w:}" ] || { echo "cannot write ${f#w:}"; exit 1; };; '
                'n:*) [ -w "${f#n:}" ] && { echo "can write ${f#n:}"; exit 1; };; esac; done; '
                'exit 0']
        checks = [f"x:{p}" for p in programs] + [f"r:{p}" for p in inputs] + [f"w:{self.out}"] + \
            [f"n:{p}" for p in [work, ROOT, os.path.join(ROOT, "build")] +
             [os.path.dirname(p) for p in inputs]]
        status, out = self.run(["/bin/sh", "-c", test[0], "sh"] + checks)
        if status:
            return f"such a user {out.strip() or 'cannot reach them'}"
        probe = os.path.join(ROOT, "build", "tests", "cuda_probe")
        if gpu and self.run([probe])[0] != 0:
            return "the GPU is not usable by another user here"
        return None

    def run(self, cmd, env=None, timeout=TIMEOUT, alone=False, pass_fds=()):
        """Run a student's program (or a tool that runs one), as a user of its own when
        sandboxed, GRADE_SEED not in its environment; on a GPU, holding the GPU shared, or
        `alone` (the speed item)."""
        env = {k: v for k, v in (env or os.environ).items()
               if not k.startswith("GRADE_") or k in HARNESS_NEEDS}
        if self.gpu:
            env.update(gpu_run_env())
        env.update(self.env)
        uid, lock, prefix = None, None, []
        if self.prefix:
            uid, lock = take_id()
            if uid is None:
                return 125, f"the grader found no free user id from {ID_BASE} for this run"
            ACTIVE_UIDS.add(uid)
            prefix = (["prlimit", f"--nproc={NPROC}", "--"] if shutil.which("prlimit") else []) + \
                self.pid_namespace + self.prefix + \
                [f"--reuid={uid}", f"--regid={self.gid}", "--clear-groups", "--"] + \
                (PID_ONE if self.pid_namespace else [])
        oom = oom_kills()
        try:
            with gpu_lock(alone) if self.gpu else contextlib.nullcontext():
                status, out = run(prefix + cmd, cwd=self.out, timeout=timeout, env=env,
                                  after=(lambda: kill_uid(uid)) if uid is not None else None,
                                  head=OUTPUT_HEAD, tail=OUTPUT_TAIL, limit=OUTPUT_LIMIT,
                                  pass_fds=pass_fds)
            if self.pid_namespace and prefix and 128 < status < 128 + 65:
                status = 128 - status  # PID_ONE's 128 + S: killed by signal S
            if status == -signal.SIGKILL:
                # run() stops a program at its timeout or output limit as 124, and kills what
                # is left only after the program ended: a SIGKILL is the grader's only when it
                # is being stopped; else the program's own (or the out-of-memory killer's, which
                # the program's own memory may have called): a failed run, which the instructor
                # is told of (killed_by())
                self.killed_by(cmd, "the program", oom)
                out += ("\n(killed by SIGKILL, which the grader did not send: the run failed)"
                        if not STOPPING else "")
            return status, out
        finally:
            if uid is not None:
                kill_uid(uid)
                self.leftovers += remove_leftovers(uid)
                ACTIVE_UIDS.discard(uid)
                lock.close()

    def killed_by(self, cmd, who, oom_before):
        """Note a run killed by SIGKILL: "interrupted" when the grader is being stopped, else
        a failure for the instructor's notes, with the out-of-memory killer's count."""
        what = " ".join(os.path.basename(c) for c in cmd[:1]) + " ".join([""] + cmd[1:4])
        if STOPPING:
            self.interrupted.append(what)
            return
        after = oom_kills()
        oom = (f"; the out-of-memory killer killed {after - oom_before} process(es) on this "
               f"machine while it ran (/proc/vmstat oom_kill): if the machine ran short of "
               f"memory, grade it again (ONLY=)" if oom_before is not None and after is not None
               and after > oom_before else "")
        self.killed.append(f"{what}: {who} was killed by SIGKILL{oom}")

    def harness(self, cmd, seed, name, env=None, alone=False, timeout=TIMEOUT):
        """Run one of the grader's harnesses (linked with the student's code): a fresh token
        and this run's seed (run_seed(seed, name)) go to it through a pipe that only its judge
        reads, a process forked before any of the student's code runs, which never runs it and
        alone prints the verdicts (classroom/grader/verdict.h). Returns
        (status, output without the tokens, the verdicts: the lines with this run's token)."""
        token = secrets.token_hex(16)
        r, w = os.pipe()
        os.write(w, f"{token} {run_seed(seed, name)}\n".encode())
        os.close(w)
        # the verdicts come back in a file of the grader's (unlinked at once, 0600), which only
        # the judge has open, for writing alone: the child closes it before any of the
        # student's code runs, and never sees the token nor the verdicts (review 3, #3)
        # in memory (memfd) where the system has it: a full $TMPDIR must not lose the verdicts
        # (the fourth gaming review, S07)
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("verdicts")
            path = f"/proc/self/fd/{fd}"
        else:
            fd, path = tempfile.mkstemp(prefix="verdicts_")
        oom = oom_kills()
        try:
            vw = os.open(path, os.O_WRONLY | os.O_APPEND)
            if not hasattr(os, "memfd_create"):
                os.unlink(path)
            try:
                # GRADE_RUN_OWN_UID: every process of the run's user is the run's (the judge
                # counts them all while it times: harness_cpu.c); GRADE_RUN_PID_NS: every PID
                # of its namespace is the run's (the judge watches the last one allocated)
                status, out = self.run(cmd, env=dict(env or os.environ, GRADE_FD=str(r),
                                                     GRADE_VERDICT_FD=str(vw),
                                                     GRADE_RUN_OWN_UID="1" if self.prefix
                                                     else "0",
                                                     GRADE_RUN_PID_NS="1" if self.prefix and
                                                     self.pid_namespace else "0"),
                                       alone=alone, pass_fds=(r, vw), timeout=timeout)
            finally:
                os.close(vw)
            os.lseek(fd, 0, os.SEEK_SET)
            said = os.read(fd, VERDICTS_LIMIT).decode(errors="replace")
        finally:
            os.close(r)
            os.close(fd)
        said = verdicts(said, token)
        if any(v.startswith("killed: ") for v in said):
            # the judge's word: the child, which ran the student's code, was killed by SIGKILL
            self.killed_by(cmd, "its child (the student's code)", oom)
        return status, shown(out), [v for v in said if not v.startswith("killed: ")]

    def output_file(self, name, copy_of=None):
        """A file in out for a student's program to write (a copy of copy_of, for in place)."""
        path = os.path.join(self.out, name)
        if os.path.lexists(path):
            os.remove(path)
        if copy_of:
            shutil.copyfile(copy_of, path)
            if self.prefix:
                os.chown(path, 0, self.gid)
                os.chmod(path, 0o660)
        return path

    def intact(self, path):
        """1 if the grader's file at path is as it was made (TRUSTED); else noted in tampered."""
        if still_trusted(path):
            return True
        self.tampered.append(path)
        return False
