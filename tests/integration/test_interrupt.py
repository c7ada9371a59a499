"""Ctrl-C and SIGTERM at every stage: children stopped, temporaries removed."""
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (CONFIG, HANG, LANES, PERFGATE, RepoTest,  # noqa: E402
                     TWICE, processes)


class Interrupt(RepoTest):
    def test_sigint_stops_the_child_and_removes_temporaries(self):
        self.base_repo()
        self.commit({"src/sum.c": HANG})
        before = os.listdir(self.pgtmp)
        proc = subprocess.Popen(
            [PERFGATE, "compare", "HEAD~1", "HEAD", "--timeout", "120s"],
            cwd=self.repo, env=dict(os.environ, TMPDIR=self.pgtmp),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Wait until the hanging head is running (its temporaries exist).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not os.listdir(self.pgtmp):
            time.sleep(0.05)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)
        self.assertEqual(os.listdir(self.pgtmp), before)


    def test_sigterm_while_building_in_parallel(self):
        # A compiler that takes its time: the signal comes while both build
        # workers wait on one.  The run ends, its workers and their
        # compilers with it, and nothing is left behind.
        config = CONFIG + "".join(
            "  - {name: s%d, problem: reduce_sum, sources: [src/sum.c], "
            "cflags: [-DN%d], cases: [{n: 100}]}\n" % (i, i) for i in range(3))
        self.base_repo(config=config)
        self.commit({"src/sum.c": LANES})
        cc = os.path.join(self.tmp, "slowcc")
        # (The compiler writes nothing outside its box: it is seen by the
        # sleep it runs.)
        mark = self._mark()
        with open(cc, "w") as f:
            f.write("#!/bin/sh\ncase \"$*\" in *-shared*) "
                    "sleep %s;; esac\nexec cc \"$@\"\n" % mark)
        os.chmod(cc, 0o755)
        proc = self._start("HEAD~1", "HEAD", "-j", "2",
                           env=dict(os.environ, TMPDIR=self.pgtmp, CC=cc))
        self.assertTrue(self._wait_for_sleep(mark), "no build started")
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(os.listdir(self.pgtmp), [])
        # No compiler outlives it.
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True,
                            text=True).stdout
        self.assertNotIn(cc, ps)

    def test_the_temporaries_of_the_tools_it_ran_go_with_it(self):
        # A compiler that leaves a temporary in $TMPDIR (as cc's cc*.s and
        # valgrind's vgdb pipes do) and is then ended by a SIGTERM to
        # perfgate: nothing is left in the user's TMPDIR.
        self.base_repo()
        self.commit({"src/sum.c": LANES})
        cc = os.path.join(self.tmp, "leavingcc")
        mark = self._mark()
        with open(cc, "w") as f:
            f.write("#!/bin/sh\ncase \"$*\" in *-shared*) "
                    "mktemp \"${TMPDIR:-/tmp}/ccXXXXXX.s\" >/dev/null && "
                    "sleep %s;; esac\nexec cc \"$@\"\n" % mark)
        os.chmod(cc, 0o755)
        proc = self._start("HEAD~1", "HEAD",
                           env=dict(os.environ, TMPDIR=self.pgtmp, CC=cc))
        self.assertTrue(self._wait_for_sleep(mark), "no build started")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(os.listdir(self.pgtmp), [])

    def _mark(self):
        """A sleep's duration of this test's own (about 16 minutes)."""
        return "985.%d" % (os.getpid() * 1000 + int(time.time()) % 1000)

    def _wait_for_sleep(self, mark):
        """Whether a `sleep MARK` started within a minute."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if processes(lambda c: c == b"sleep\x00%s\x00" % mark.encode()):
                return True
            time.sleep(0.05)
        return False

    def _start(self, *args, env=None, **kw):
        return subprocess.Popen(
            [PERFGATE, "compare", *args], cwd=self.repo,
            env=env or dict(os.environ, TMPDIR=self.pgtmp),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)

    def test_sigterm_while_reading_a_config_from_a_fifo(self):
        # open() of a FIFO nobody writes blocks: the signal interrupts it.
        self.base_repo()
        fifo = os.path.join(self.out, "config.fifo")
        os.mkfifo(fifo)
        proc = self._start("--config", fifo, "HEAD", "HEAD")
        self.assertTrue(self._opening_fifo(proc.pid), "never opened the FIFO")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)

    def test_work_that_cannot_see_the_signal_is_ended(self):
        # A FIFO opened for writing and never written: read() is retried
        # after the signal, so perfgate cannot unwind by itself.  It still
        # ends within seconds, temporaries removed.
        self.base_repo()
        fifo = os.path.join(self.out, "config.fifo")
        os.mkfifo(fifo)
        proc = self._start("--config", fifo, "HEAD", "HEAD")
        writer = os.open(fifo, os.O_WRONLY)
        try:
            self.assertTrue(self._holds(proc.pid, fifo), "never read it")
            start = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
            took = time.monotonic() - start
        finally:
            os.close(writer)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)
        self.assertLess(took, 30)

    @staticmethod
    def _opening_fifo(pid):
        """Whether `pid` comes to wait in open() for a FIFO's writer (its
        wchan; where the kernel hides it, in the openat system call)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{pid}/wchan") as f:
                    wchan = f.read()
                with open(f"/proc/{pid}/syscall") as f:
                    call = f.read().split()[:1]
            except OSError:
                return False
            if wchan == "wait_for_partner" or (
                    wchan in ("", "0") and call in (["257"], ["56"])):
                return True
            time.sleep(0.02)
        return False

    @staticmethod
    def _holds(pid, path):
        """Whether `pid` comes to have `path` open."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                return False
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                        return True
                except OSError:
                    pass
            time.sleep(0.02)
        return False

    def _runs_under(self, name):
        """Processes whose command line names the directory `name`: each
        its pid, state, parent and command line, for a failure to show."""
        found = []
        for pid in processes(lambda cmdline: name.encode() in cmdline):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue  # gone since
            found.append("%d %s ppid %s: %s" % (pid, stat[0], stat[1], cmd))
        return found

    def test_a_killed_run_leaves_nothing_for_long(self):
        # SIGKILL cannot be caught: the run's directory stays, and the next
        # run removes it, as it names an owner that is gone.  Directories
        # of live runs, of other programs and without an owner are kept.
        self.base_repo()
        self.commit({"src/sum.c": HANG})
        proc = self._start("HEAD~1", "HEAD", "--timeout", "120s")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not os.listdir(self.pgtmp):
            time.sleep(0.05)
        time.sleep(1.0)
        killed = os.listdir(self.pgtmp)
        self.assertEqual(len(killed), 1, killed)
        proc.kill()
        proc.communicate(timeout=30)
        self.assertEqual(os.listdir(self.pgtmp), killed)
        # Its hanging child, in a process group of its own, died with it.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self._runs_under(killed[0]):
            time.sleep(0.1)
        self.assertEqual(self._runs_under(killed[0]), [])
        keep = ["perfgate-nowner", "perfgate-live01", "other-dir"]
        for name in keep:
            os.mkdir(os.path.join(self.pgtmp, name))
        with open(f"/proc/{os.getpid()}/stat") as f:
            started = f.read().rsplit(")", 1)[1].split()[19]
        with open(os.path.join(self.pgtmp, "perfgate-live01",
                               ".perfgate-owner"), "w") as f:
            f.write(f"{os.getpid()} {started}\n")
        self.commit({"src/sum.c": TWICE})
        proc = self._start("HEAD~1", "HEAD", "--noise-floor", "50%")
        out, err = proc.communicate(timeout=300)
        self.assertIn(proc.returncode, (0, 1), err)
        self.assertEqual(sorted(os.listdir(self.pgtmp)), sorted(keep))


if __name__ == "__main__":
    unittest.main()
