"""The box around the pull request's code, and what it contains: process
chains, the network, files outside, a killed perfgate."""
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import (MEASURED, PERFGATE, RepoTest, SERIAL, TWICE,  # noqa: E402
                     fixture, processes)


def box_works():
    """Whether bubblewrap can make a box on this machine."""
    if not shutil.which("bwrap"):
        return False
    return subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all",
                           "--", "true"], capture_output=True).returncode == 0

# The head's build command, which tries everything a hostile pull request
# would: write the base's tree (making the base not build), the runner's
# GITHUB_ENV, a file in $HOME and the user's repository, and reach the
# network.  Each try may fail; the build goes on either way.
ATTACK = fixture("attack")

# A chain of processes, each in a session of its own (setsid), each
# starting the next: deeper than any sweep one level at a time.  The last
# one says so in the tree; every one sleeps for MARK seconds.
CHAIN = fixture("chain")

# A project's library: the function timed calls into another file.
LIB_ADD = fixture("lib_add.c")

LIB_SUM = fixture("lib_sum.c")

# A head that attacks the run from its own code (issue 49's finding 4).
FORGER = fixture("forger.c")
# Forks up to N processes that wait, says how many it got, and ends them.
BOMB = fixture("bomb.c")

MAKEFILE = fixture("Makefile")

PROJECT_CONFIG = fixture("project.yml")

# What CI systems put in a job's environment: none of it may reach the
# pull request's code, or through what it prints, the comment.
SECRETS = {"GITHUB_TOKEN": "ghs_pg49token", "ACTIONS_RUNTIME_TOKEN":
           "pg49runtime", "CI_JOB_TOKEN": "pg49jobtoken",
           "AWS_SECRET_ACCESS_KEY": "pg49awssecret"}


def passing(config, *names):
    """A project config whose settings let `names` through the box."""
    return config.replace("min_rounds: 5}", "min_rounds: 5, pass_env: [%s]}"
                          % ", ".join(names))


class Contain(RepoTest):
    """Every process perfgate starts stays perfgate's: none outlives it,
    none writes into the user's tree by a relative path, and the compiler
    is limited as the measuring child is."""

    def test_a_daemon_started_by_user_code_is_ended(self):
        daemon = SERIAL.replace("#include <stddef.h>", """#include <stddef.h>
#include <unistd.h>
#include <stdio.h>""").replace("{\n", """{
    static int started;
    if (!started) {
        started = 1;
        if (fork() == 0) {
            setsid();
            if (fork() == 0)
                execlp("sleep", "sleep", "MARK", (char *)NULL);
            _exit(0);
        }
        FILE *f = fopen("wrote-here.txt", "w");
        if (f)
            fclose(f);
    }
""", 1)
        # A mark of this run's own: a daemon another run left is not ours.
        self.mark = "987.%d" % (os.getpid() * 1000 + int(time.time()) % 1000)
        daemon = daemon.replace("MARK", self.mark)
        self.base_repo()
        self.commit({"src/sum.c": daemon})
        # The harness checks that the repository is untouched: the file
        # written by a relative path lands in perfgate's scratch directory.
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "50%")
        self.assertIn(r.code, (0, 1), r.stderr)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.sleepers():
            time.sleep(0.1)
        self.assertEqual(self.sleepers(), [])

    def test_user_code_cannot_write_results_by_accident(self):
        # A head twice as slow that writes lines shaped like perfgate's own
        # report (a 100x improvement) to fd 3, where perfgate-measure's
        # channel was, and to every other descriptor it did not open.
        forger = TWICE.replace("#include <stddef.h>", """#include <stddef.h>
#include <string.h>
#include <unistd.h>""").replace("{\n", """{
    static int forged;
    if (!forged) {
        static const char lie[] =
            "case 0 100.0 1.0 0 1 0 0 -0.99 -0.98\\n"
            "case 1 100.0 1.0 0 1 0 0 -0.99 -0.98\\n";
        forged = 1;
        for (int fd = 3; fd < 1024; fd++)
            if (write(fd, lie, strlen(lie)) < 0) {
            }
    }
""", 1)
        self.base_repo()
        self.commit({"src/sum.c": forger})
        r = self.perfgate("HEAD~1", "HEAD")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("sum")
        self.assertEqual(b["status"], "regression", b)
        self.assertGreater(b["change"], 0.3)

    def forge(self, attack, *args):
        """A head twice as slow as its base that attacks the run from its
        own code (fixtures/forger.c): the result."""
        self.base_repo()
        self.commit({"src/sum.c": FORGER.replace("#define ATTACK 'x'",
                                                 "#define ATTACK '%s'" % attack)})
        return self.perfgate("HEAD~1", "HEAD", *args)

    def test_the_head_cannot_report_for_the_run(self):
        # With the run's token from the spec, lines claiming a 100x
        # improvement and the end of the run to every descriptor (the
        # report channel among them, when both sides shared a process),
        # then an exit: read as a pass on the landed main.
        r = self.forge("x")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("sum")
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"), b)
        self.assertIn("exited with status 0 before finishing", b["message"])

    @unittest.skipUnless(shutil.which("valgrind"), "valgrind is not installed")
    def test_the_head_cannot_report_for_a_counted_run(self):
        # The same attack on a count, which is the verdict under --measure
        # instructions: read as a pass on the landed main.
        r = self.forge("x", "--measure", "instructions")
        b = r.bench("sum")
        if b["status"] == "skipped" and "AddressSanitizer" in b["message"]:
            self.skipTest(b["message"])
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        self.assertEqual((b["status"], b["side"]), ("crashed", "head"), b)

    @unittest.skipUnless(os.uname().machine == "x86_64", "patches x86-64 code")
    def test_the_head_cannot_slow_the_base_down(self):
        # Every copy of the base's code patched to run 20 times its work:
        # the head, twice as slow as the base, read as an improvement when
        # both shared a process.
        r = self.forge("s")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("sum")
        self.assertEqual(b["status"], "regression", b)
        self.assertGreater(b["change"], 0.3)

    def test_the_head_cannot_blame_the_base(self):
        # A head that reports the base incorrect while both are checked in
        # one process: the base alone is right, so the failure is the
        # head's (it passed as "fixed" on the landed main).
        r = self.forge("b")
        self.assertEqual(r.code, 1, r.stdout + r.stderr)
        b = r.bench("sum")
        self.assertEqual((b["status"], b["side"]), ("incorrect", "head"), b)
        self.assertIn("failed only beside the head's code", b["message"])

    def sleepers(self):
        return processes(lambda cmdline: cmdline == b"sleep\x00%s\x00"
                         % self.mark.encode())

    def fake_compiler(self, body):
        """A compiler that runs `body` for the solution (src/sum.c) and is
        the real one for the problem."""
        cc = os.path.join(self.out, "cc.sh")
        with open(cc, "w") as f:
            f.write('#!/bin/sh\ncase "$*" in *src/sum.c*) ;; '
                    '*) exec cc "$@" ;; esac\n' + body)
        os.chmod(cc, 0o755)
        return cc

    def test_the_compiler_is_limited(self):
        self.base_repo()
        cc = self.fake_compiler("grep 'Max address space' /proc/self/limits"
                                "\nexit 1\n")
        r = self.perfgate("HEAD", "HEAD", env={"CC": cc})
        self.assertEqual(r.bench("sum")["status"], "build_failed")
        log = r.bench("sum")["log"]
        self.assertIn("Max address space", log)
        self.assertNotIn("unlimited", log)

    def test_a_build_cannot_fill_the_disk_through_its_tmpdir(self):
        # Finding 9: 4 GB written to the box's TMPDIR landed on the
        # machine's disk.  In the box it is a tmpfs of 1 GiB.
        if not box_works():
            self.skipTest("bubblewrap cannot make a box here")
        self.base_repo()
        cc = self.fake_compiler('head -c 1100M /dev/zero > "$TMPDIR/fill" '
                                '|| exit 1\nexit 0\n')
        r = self.perfgate("HEAD", "HEAD", env={"CC": cc})
        b = r.bench("sum")
        self.assertEqual(b["status"], "build_failed", b)
        self.assertIn("No space left on device", b["log"])

    def bomb(self, *args):
        """A compiler that forks up to 600 processes that wait, says how
        many it got, and ends them all, the box capped at 300: the result
        and that count."""
        self.base_repo()
        cc = self.fake_compiler(
            "cat > \"$TMPDIR/bomb.c\" <<'EOF'\n" + BOMB + "EOF\n"
            'cc -o "$TMPDIR/bomb" "$TMPDIR/bomb.c" || exit 1\n'
            'exec "$TMPDIR/bomb" 600\n')
        # One build at a time: perfgate's boxes share the cap.
        r = self.perfgate("HEAD", "HEAD", "--jobs", "1", *args,
                          env={"CC": cc, "PERFGATE_MAX_PROCESSES": "300"})
        b = r.bench("sum")
        self.assertEqual(b["status"], "build_failed", b)
        forked = re.search(r"forked (\d+)", b["log"] or "")
        self.assertIsNotNone(forked, b)
        return r, int(forked.group(1))

    def test_a_fork_bomb_is_capped_in_the_box(self):
        # Finding 10: a build's processes were capped only by the user's
        # own limit (96,364 here), so a fork bomb held the machine.  In
        # the box they are capped (4,096 unless PERFGATE_MAX_PROCESSES
        # says otherwise: a pids cgroup as root, RLIMIT_NPROC for other
        # users), where the machine allows it.
        if not box_works():
            self.skipTest("bubblewrap cannot make a box here")
        r, forked = self.bomb()
        box = r.json["sandbox"]
        if box["max_processes"] is None:
            self.skipTest("not capped here: " + box["processes_why_not"])
        self.assertEqual(box["max_processes"], 300)
        self.assertIn(box["processes_capped_by"], ("cgroup", "rlimit"))
        self.assertGreater(forked, 50)
        self.assertLess(forked, 300)

    def test_without_the_box_the_bomb_gets_all_it_asks(self):
        # The control: unboxed, the same bomb gets its 600 (where the
        # user's own limit allows them).
        soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
        if os.getuid() != 0 and soft != resource.RLIM_INFINITY and \
                soft < 20000:
            self.skipTest("this user may not run 600 processes more")
        r, forked = self.bomb("--sandbox", "off")
        self.assertEqual(forked, 600)
        self.assertFalse(r.json["sandbox"]["boxed"])
        self.assertNotIn("max_processes", r.json["sandbox"])

    def test_the_compiler_gets_ten_times_the_timeout(self):
        self.base_repo()
        cc = self.fake_compiler("exec sleep 120\n")
        start = time.monotonic()
        r = self.perfgate("HEAD", "HEAD", "--timeout", "1s", env={"CC": cc})
        self.assertLess(time.monotonic() - start, 100)
        self.assertIn("did not finish src/sum.c within 10 s",
                      r.bench("sum")["message"])


class Box(RepoTest):
    """The revisions' code runs in bubblewrap: it writes its own tree and
    nothing else, reaches no network, and every process it starts ends
    with its run.  Without a box the run says so once, and --sandbox
    require makes that an error."""

    def setUp(self):
        super().setUp()
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)
        self.github_env = os.path.join(self.out, "github_env")
        open(self.github_env, "w").close()
        self.mark = "986.%d" % (os.getpid() * 1000 + int(time.time()) % 1000)

    def need_box(self):
        if not box_works():
            self.skipTest("bubblewrap cannot make a box here")

    def attack(self, *args, env=None):
        """The attack, with a listener for its connection: the result and
        how many connections reached it."""
        # (The test's own variables let through, so that the box's walls,
        # not an empty environment, are what stops the attack.)
        config = passing(PROJECT_CONFIG, "PG_TEST_REPO", "PG_TEST_PORT",
                         "GITHUB_ENV")
        self.commit({"perfgate.yml": config % ("'sh attack.sh'",
                                               "build/libsum.a"),
                     "Makefile": MAKEFILE, "lib/add.c": LIB_ADD,
                     "lib/sum.c": LIB_SUM, "attack.sh": ATTACK}, "base")
        self.commit({"lib/sum.c": LIB_SUM + "/* the head */\n"})
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.settimeout(0.2)
        full = dict(HOME=self.home, GITHUB_ENV=self.github_env,
                    PG_TEST_PORT=str(server.getsockname()[1]), **(env or {}))
        return self.listened(server, args, full)

    def listened(self, server, args, env):
        """perfgate compare HEAD~1 HEAD ARGS in ENV, with `server`
        listening: the result, and how many connections reached it."""
        try:
            r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                              *args, env=env)
            reached = 0
            while True:
                try:
                    server.accept()[0].close()
                    reached += 1
                except OSError:
                    break
        finally:
            server.close()
        return r, reached

    def test_a_build_command_reaches_nothing_outside_its_tree(self):
        self.need_box()
        r, reached = self.attack(env={"PG_TEST_REPO": self.repo})
        b = r.bench()
        self.assertIn(b["status"], MEASURED, b.get("message"))
        # Boxed, with nothing held out.
        box = r.json["sandbox"]
        self.assertTrue(box["boxed"], box)
        for said in ("why_not", "held_env"):
            self.assertNotIn(said, box)
        with open(self.github_env) as f:
            self.assertEqual(f.read(), "")
        self.assertEqual(os.listdir(self.home), [])
        self.assertEqual(reached, 0)
        # (the harness checked that the repository is untouched)

    def test_without_the_box_the_same_build_reaches_all_of_it(self):
        # The control: the attack works where nothing holds it, so the
        # test above tests the box.
        r, reached = self.attack("--sandbox", "off")
        b = r.bench()
        self.assertEqual(b["status"], "build_failed", b)
        self.assertIn("base side", b["message"])
        with open(self.github_env) as f:
            self.assertIn("LD_PRELOAD", f.read())
        self.assertEqual(os.listdir(self.home), ["pwned"])
        self.assertEqual(reached, 1)
        self.assertFalse(r.json["sandbox"]["boxed"])
        self.assertIn("--sandbox off", r.json["sandbox"]["why_not"])
        self.assertEqual(r.markdown.count("ran outside the box"), 1)

    def leak(self, *args, config=PROJECT_CONFIG, env=None):
        """A build command that prints its environment and fails, with a
        CI job's secrets set: what its output carries into the report."""
        self.commit({"perfgate.yml": config % (
            "'env | grep -e TOKEN -e SECRET -e ^PATH= -e ^PG_TEST; "
            "echo home=$HOME; exit 3'", "build/libsum.a"),
            "Makefile": MAKEFILE, "lib/add.c": LIB_ADD,
            "lib/sum.c": LIB_SUM}, "base")
        self.commit({"lib/sum.c": LIB_SUM + "/* the head */\n"})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%", *args,
                          env=dict(SECRETS, HOME=self.home, **(env or {})))
        b = r.bench()
        self.assertEqual(b["status"], "build_failed", b)
        return r, b["message"] + r.markdown + r.stdout + r.stderr

    def test_secrets_in_the_environment_stay_outside(self):
        self.need_box()
        r, said = self.leak()
        self.assertIn("exit status 3", said)
        for value in list(SECRETS.values()) + [self.home]:
            self.assertNotIn(value, said)
        # What it does see, and what to do about what it does not.
        self.assertIn("PATH=", said)
        self.assertIn("home=" + self.pgtmp, said)
        self.assertIn("pass_env: in settings lets others through", said)

    def test_without_the_box_the_secrets_are_printed(self):
        # The control: the same build prints all of them where nothing
        # holds it, so the test above tests the box.
        r, said = self.leak("--sandbox", "off")
        for value in list(SECRETS.values()) + [self.home]:
            self.assertIn(value, said)

    def reach(self, *args):
        """A build command that connects to a unix socket of the machine's
        (a listener of the test's, in a directory the run needs: one on
        PATH) and reads a key in $HOME (a home outside /tmp, so that it
        is hidden as a home), then fails: how many connections reached
        the listener, and what the report carries."""
        work = os.path.join(os.path.dirname(os.path.abspath(PERFGATE)),
                            "box-test-%d" % os.getpid())
        home = os.path.join(work, "home")
        os.makedirs(os.path.join(home, ".ssh"))
        self.addCleanup(shutil.rmtree, work, True)
        with open(os.path.join(home, ".ssh", "id_pg49"), "w") as f:
            f.write("pg49-private-key\n")
        sock_dir = os.path.join(self.tmp, "sockets")
        os.makedirs(sock_dir)
        path = os.path.join(sock_dir, "daemon.sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen(8)
        server.settimeout(0.2)
        config = passing(PROJECT_CONFIG, "PG_TEST_SOCK", "PG_TEST_KEY")
        self.commit({"perfgate.yml": config % (
            "'python3 -c \"import socket, sys; s = socket.socket("
            "socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\\\"hi\\\")\" "
            "$PG_TEST_SOCK; cat $PG_TEST_KEY; exit 3'", "build/libsum.a"),
            "Makefile": MAKEFILE, "lib/add.c": LIB_ADD,
            "lib/sum.c": LIB_SUM}, "base")
        self.commit({"lib/sum.c": LIB_SUM + "/* the head */\n"})
        env = {"HOME": home, "PG_TEST_SOCK": path,
               "PG_TEST_KEY": os.path.join(home, ".ssh", "id_pg49"),
               "PATH": sock_dir + os.pathsep + os.environ["PATH"]}
        r, reached = self.listened(server, args, env)
        b = r.bench()
        self.assertEqual(b["status"], "build_failed", b)
        return reached, b["message"] + r.markdown + r.stdout + r.stderr

    def test_the_machines_sockets_and_homes_are_out_of_reach(self):
        self.need_box()
        reached, said = self.reach()
        self.assertEqual(reached, 0)
        self.assertIn("FileNotFoundError", said)
        self.assertNotIn("pg49-private-key", said)
        self.assertIn("exit status 3", said)

    def test_without_the_box_the_socket_and_the_key_are_reached(self):
        # The control: the same build reaches both where nothing holds it.
        reached, said = self.reach("--sandbox", "off")
        self.assertGreaterEqual(reached, 1)
        self.assertIn("pg49-private-key", said)

    def solution_leak(self, *args):
        """A head whose solution prints the job's token and aborts: what
        the measuring child's crash carries into the report."""
        self.base_repo()
        self.commit({"src/sum.c": """#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
void solution(const float *in, float *out, size_t n)
{
    const char *t = getenv("GITHUB_TOKEN");
    (void)in; (void)n;
    fprintf(stderr, "token=%s home=%s\\n", t ? t : "none", getenv("HOME"));
    fflush(stderr);
    out[0] = 0;
    abort();
}
"""})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%", *args,
                          env=dict(SECRETS, HOME=self.home))
        b = r.bench()
        self.assertEqual(b["status"], "crashed", b)
        self.assertEqual(b["side"], "head", b)
        return b["message"] + r.markdown + r.stdout + r.stderr

    def test_a_solution_cannot_print_the_token(self):
        self.need_box()
        said = self.solution_leak()
        self.assertIn("token=none", said)
        self.assertNotIn(SECRETS["GITHUB_TOKEN"], said)
        self.assertNotIn(self.home, said)
        # The control: without the box it can.
        said = self.solution_leak("--sandbox", "off")
        self.assertIn("token=" + SECRETS["GITHUB_TOKEN"], said)

    def test_pass_env_lets_a_variable_through(self):
        self.need_box()
        r, said = self.leak(config=passing(PROJECT_CONFIG, "PG_TEST_PASSED"),
                            env={"PG_TEST_PASSED": "let-through"})
        self.assertIn("PG_TEST_PASSED=let-through", said)
        self.assertNotIn(SECRETS["GITHUB_TOKEN"], said)

    def test_a_changes_own_pass_env_lets_no_token_in(self):
        # The head's config names the job's token; the base's does not:
        # a pull request may not let a secret into its own box.
        self.need_box()
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'env | grep -e TOKEN; exit 3'", "build/libsum.a"),
            "Makefile": MAKEFILE, "lib/add.c": LIB_ADD,
            "lib/sum.c": LIB_SUM}, "base")
        self.commit({"perfgate.yml": passing(PROJECT_CONFIG, "GITHUB_TOKEN")
                     % ("'env | grep -e TOKEN; exit 3'", "build/libsum.a"),
                     "lib/sum.c": LIB_SUM + "/* the head */\n"})
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          env=dict(SECRETS, HOME=self.home))
        said = r.bench()["message"] + r.markdown + r.stdout + r.stderr
        self.assertNotIn(SECRETS["GITHUB_TOKEN"], said)
        self.assertEqual(r.json["sandbox"]["held_env"], "GITHUB_TOKEN")
        self.assertIn("pass_env: GITHUB_TOKEN not let into the box", r.stdout)
        self.assertIn("pass\\_env: GITHUB\\_TOKEN not let into the box",
                      r.markdown)
        # The invoker may: --pass-env is the job's own choice.
        r = self.perfgate("HEAD~1", "HEAD", "--noise-floor", "60%",
                          "--pass-env", "GITHUB_TOKEN",
                          env=dict(SECRETS, HOME=self.home))
        self.assertIn(SECRETS["GITHUB_TOKEN"],
                      r.bench()["message"] + r.markdown + r.stdout)
        r = self.perfgate("HEAD~1", "HEAD", "--pass-env", "HOME")
        self.assertEqual(r.code, 2)
        self.assertIn("--pass-env HOME", r.stderr)

    def chain(self, *args):
        """A build command that leaves a setsid chain of 2,000 processes
        behind: none may outlive the run."""
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'setsid sh chain.sh 2000 %s & i=0; while [ ! -e deep ] && "
            "[ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; make'"
            % self.mark, "build/libsum.a"),
            "Makefile": MAKEFILE, "lib/add.c": LIB_ADD, "lib/sum.c": LIB_SUM,
            "chain.sh": CHAIN}, "base")
        r = self.perfgate("HEAD", "HEAD", "--noise-floor", "60%", *args,
                          timeout=600)
        self.assertIn(r.code, (0, 1), r.stderr)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.sleepers():
            time.sleep(0.1)
        self.assertEqual(len(self.sleepers()), 0)
        return r

    def sleepers(self):
        return processes(lambda cmdline: cmdline == b"sleep\x00%s\x00"
                         % self.mark.encode())

    def filler(self, *args):
        """A build that writes 199 MB into its tree on a disk of 200 MB
        (a tmpfs of the test's own), then waits and fails: the build's
        message."""
        mnt = os.path.join(self.tmp, "small")
        os.makedirs(mnt)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200m",
                           "tmpfs", mnt], capture_output=True).returncode:
            self.skipTest("no disk of 200 MB can be mounted here (root "
                          "mounts a tmpfs)")
        self.addCleanup(subprocess.run, ["umount", "-l", mnt])
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'head -c 199M /dev/zero > fill; sleep 5; exit 1'",
            "build/libsum.a")}, "base")
        r = self.perfgate("HEAD", "HEAD", *args, env={"TMPDIR": mnt})
        b = r.bench()
        self.assertEqual(b["status"], "build_failed", b)
        return b["message"]

    def test_a_build_that_fills_the_disk_is_ended(self):
        # Finding 9, the rest: a build writes into its own tree, on the
        # machine's disk.  A boxed run is ended once the disk it writes to
        # is down to its floor (here 5% of 200 MB), within 100 ms.
        self.need_box()
        self.assertIn("the build command was ended as it filled the disk "
                      "it writes to", self.filler())

    def test_without_the_box_the_disk_fills(self):
        self.assertIn("the build command failed (exit status 1)",
                      self.filler("--sandbox", "off"))

    def test_a_setsid_chain_of_2000_ends_with_the_run(self):
        self.need_box()
        self.chain()

    def test_a_setsid_chain_of_2000_ends_without_the_box_too(self):
        self.chain("--sandbox", "off")

    def test_a_killed_perfgate_takes_the_box_along(self):
        self.need_box()
        self.commit({"perfgate.yml": PROJECT_CONFIG % (
            "'setsid sleep %s & exec sleep %s'" % (self.mark, self.mark),
            "build/libsum.a")}, "base")
        proc = subprocess.Popen(
            [PERFGATE, "compare", "HEAD", "HEAD"], cwd=self.repo,
            env=dict(os.environ, TMPDIR=self.pgtmp), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(self.sleepers()) < 2:
            time.sleep(0.05)
        self.assertEqual(len(self.sleepers()), 2)
        proc.kill()
        proc.communicate(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.sleepers():
            time.sleep(0.1)
        self.assertEqual(self.sleepers(), [])

    def test_no_box_is_said_once_and_require_refuses(self):
        self.base_repo()
        fake = os.path.join(self.out, "bwrap")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'bwrap: setting up uid map: "
                    "Permission denied' >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        for bwrap, why in ((fake, "setting up uid map: Permission denied"),
                           (os.path.join(self.out, "none"),
                            "bubblewrap is not installed")):
            with self.subTest(bwrap=bwrap):
                r = self.perfgate("HEAD", "HEAD", "--noise-floor", "60%",
                                  env={"PERFGATE_BWRAP": bwrap})
                self.assertEqual(r.code, 0, r.stderr)
                self.assertFalse(r.json["sandbox"]["boxed"])
                self.assertIn(why, r.json["sandbox"]["why_not"])
                self.assertEqual(r.markdown.count("ran outside the box"), 1)
                self.assertEqual(r.stdout.count("ran outside the box"), 1)
                r = self.perfgate("HEAD", "HEAD", "--sandbox", "require",
                                  env={"PERFGATE_BWRAP": bwrap})
                self.assertEqual(r.code, 2, r.stdout)
                self.assertIn("--sandbox require", r.stderr)
                self.assertIn(why, r.stderr)
        r = self.perfgate("HEAD", "HEAD", "--sandbox", "maybe")
        self.assertEqual(r.code, 2)
        self.assertIn("want auto, require or off", r.stderr)


if __name__ == "__main__":
    unittest.main()
