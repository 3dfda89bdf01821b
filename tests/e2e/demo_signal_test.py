#!/usr/bin/python3
"""`scripts/dev demo` (on the binaries already built): a short screen (at most 200 lines) ending in
a summary of the five games while the transcripts go to a log file; and SIGINT or SIGTERM to
the demo's PID stops everything it started (services, PostgreSQL, the game players) within 10 s,
in the middle of the games as well as while it waits with --keep-running.

usage: demo_signal_test.py BUILD_DIR SOURCE_DIR   (ctest)
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

BUILD_DIR, SOURCE_DIR = sys.argv[1], sys.argv[2]


def session_pids(sid):
    out = subprocess.run(["ps", "-eo", "pid=,sid="], capture_output=True, text=True).stdout
    return {int(p) for p, s in (line.split() for line in out.splitlines()) if int(s) == sid}


def pids_with(text):
    """Processes whose command line contains text (the demo's PostgreSQL cluster directory)."""
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if text.encode() in f.read():
                        found.add(int(pid))
            except OSError:
                pass
    return found


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class DemoSignals(unittest.TestCase):
    def run_demo(self, until, sig, after=1.0):
        """Starts the demo, waits for the line `until`, sends sig to the demo's PID; returns
        (screen lines, seconds to stop, demo dir)."""
        demo_dir = tempfile.mkdtemp(prefix="demo-test-")
        self.addCleanup(shutil.rmtree, demo_dir, True)
        env = dict(os.environ, PARLOR_BUILD_DIR=BUILD_DIR, PARLOR_DEMO_DIR=demo_dir)
        demo = subprocess.Popen(["bash", os.path.join(SOURCE_DIR, "scripts", "dev"), "demo",
                                 "--no-build", "--keep-running"], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        lines, seen = [], threading.Event()

        def read():
            for line in demo.stdout:
                lines.append(line.rstrip("\n"))
                if until in line:
                    seen.set()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            self.assertTrue(seen.wait(120), "no %r in:\n%s" % (until, "\n".join(lines[-40:])))
            time.sleep(after)
            with open(os.path.join(demo_dir, "pg", "pg_root")) as f:
                pg_root = f.read().strip()
            started = session_pids(demo.pid) | pids_with(pg_root)
            self.assertGreaterEqual(len(started), 5, "services, PostgreSQL and the demo")
            t0 = time.time()
            demo.send_signal(sig)
            demo.wait(timeout=10)
            seconds = time.time() - t0
        finally:
            if demo.poll() is None:
                os.killpg(demo.pid, signal.SIGKILL)
                demo.wait()
        reader.join(5)
        deadline = time.time() + 2
        while time.time() < deadline and [p for p in started if alive(p)]:
            time.sleep(0.1)
        self.assertEqual([p for p in started if alive(p)], [], "left running")
        self.assertFalse(os.path.exists(pg_root), "PostgreSQL's directory removed")
        self.assertIn("stopped services and PostgreSQL", "\n".join(lines))
        return lines, seconds, demo_dir

    def test_sigint_in_the_middle_of_the_games(self):
        lines, seconds, _ = self.run_demo("play all five games", signal.SIGINT)
        print("SIGINT during the games: stopped in %.1f s" % seconds)
        self.assertLess(seconds, 10)

    def test_sigterm_while_kept_running_after_a_short_screen(self):
        lines, seconds, demo_dir = self.run_demo("running; press Ctrl-C", signal.SIGTERM, 0.5)
        print("SIGTERM while running: stopped in %.1f s; %d lines on screen" % (seconds,
                                                                               len(lines)))
        self.assertLess(seconds, 10)
        self.assertLessEqual(len(lines), 200, "\n".join(lines))
        screen = "\n".join(lines)
        self.assertIn("== summary", screen)
        for title in ("Pico", "Pict", "Picadice doubles", "Pescado", "KA'DICE"):
            self.assertRegex(screen, r"\n  %s\s+(ranked|casual) " % title)
        self.assertRegex(screen, r"[A-Z][a-z]+ [+-]\d+")  # a rating change
        with open(os.path.join(demo_dir, "logs", "games.log")) as f:
            log = f.read()
        self.assertIn("transcript as", log)
        self.assertGreater(log.count("\n"), 200)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
