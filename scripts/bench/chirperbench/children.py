"""The programs measured, as children: their output line by line with arrival times, a session driven through
its stdin, and what a child costs (wall time, CPU, resident memory)."""

import os
import re
import subprocess
import tempfile
import threading
import time
from pathlib import Path


class Lines:
    """A child's stdout, line by line, each stamped with time.monotonic() as it arrives."""

    def __init__(self, stream):
        self.items = []  # (time, text)
        self.cond = threading.Condition()
        self.ended = False
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for raw in iter(stream.readline, b""):
            stamp = time.monotonic()
            with self.cond:
                self.items.append((stamp, raw.decode(errors="replace").rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.items)

    def wait(self, pattern, start=0, timeout=30.0, count=1):
        """Index and time of the `count`th line matching `pattern` at or after index `start`."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = 0
        index = start
        with self.cond:
            while True:
                while index < len(self.items):
                    if regex.search(self.items[index][1]):
                        seen += 1
                        if seen == count:
                            return index, self.items[index][0]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    tail = "\n  ".join(text for _, text in self.items[-8:])
                    raise TimeoutError(f"no line /{pattern}/ (#{count}) within {timeout} s; last lines:\n  {tail}")
                self.cond.wait(left)

    def text(self, start=0):
        with self.cond:
            return [text for _, text in self.items[start:]]


class Session:
    """A long-running program driven through its stdin (chirper-play in a pipe, or `mpg123 -R`)."""

    def __init__(self, cmd, env, stderr):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env)
        self.out = Lines(self.proc.stdout)

    def send(self, line):
        """Writes one command line; returns the time just before the write."""
        stamp = time.monotonic()
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        return stamp

    def close(self, quit_line=None, timeout=10):
        try:
            if quit_line:
                self.send(quit_line)
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def rss_kib(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    """user+system CPU seconds of a running process so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(cmd, env, stdin=None, stdout=None, timeout=600):
    """Runs `cmd` under GNU time; returns (wall from launch to exit, user s, system s, peak RSS KiB, status,
    stderr)."""
    fd, path = tempfile.mkstemp(prefix="chirper-bench-time.")
    os.close(fd)
    try:
        began = time.monotonic()
        done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", path] + cmd, env=env, stdin=stdin,
                              stdout=stdout if stdout is not None else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
        wall = time.monotonic() - began
        fields = Path(path).read_text().strip().splitlines()[-1].split()
        user, system, peak = float(fields[0]), float(fields[1]), int(fields[2])
        return wall, user, system, peak, done.returncode, done.stderr.decode(errors="replace")
    finally:
        os.unlink(path)


def timed_direct(cmd, env, stdin, stdout, stderr, timeout):
    """Runs `cmd` and reads its rusage with wait4 (no /usr/bin/time in between, so a program that hangs is
    the one killed at `timeout`); returns (wall, user s, system s, peak RSS KiB, status), status None if killed."""
    began = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=stdout, stderr=stderr)
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.monotonic() - began > timeout and not killed:
            proc.kill()
            killed = True
        time.sleep(0.05)
    wall = time.monotonic() - began
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
    return wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, None if killed else proc.returncode
