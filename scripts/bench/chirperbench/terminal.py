"""Programs on a pseudo-terminal of their own (100×30), as a user sees them, with the CPU they used."""

import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time

ROWS, COLUMNS = 30, 100


def on_terminal(bench, commands, done, timeout, answer=None):
    """Runs chirper-play on a pseudo-terminal of its own, typing `commands` ((line, reply awaited) pairs) one by
    one, each after the previous reply, until `done` appears in its output; returns (wall, user, system,
    output), output None when something did not appear in time. `answer` is typed ahead: the terminal's reply
    to the graphics query at start-up."""
    env = dict(bench.chirper_env(), TERM="xterm-256color", LANG="C.UTF-8", HOME=str(bench.work),
               XDG_STATE_HOME=str(bench.work / "state"), XDG_CACHE_HOME=str(bench.work / "cache-pty"))
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(bench.binary, [bench.binary, "--api-url", bench.api, "--output", "pulse", "--cache-size", "0"],
                  env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    if answer:
        os.write(fd, answer)
    began = time.monotonic()
    output = bytearray()

    def read_until(marker, deadline):
        while marker.encode() not in output:
            if time.monotonic() > deadline:
                return False
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    output.extend(os.read(fd, 65536))
                except OSError:
                    return False
        return True

    deadline = began + timeout
    ok = read_until("chirper>", deadline)
    for command, reply in commands:
        os.write(fd, (command + "\r").encode())
        ok = ok and read_until(reply, deadline)
    ok = ok and read_until(done, deadline)
    if not ok:
        (bench.work / "pty-last.txt").write_bytes(bytes(output))
    os.write(fd, b"quit\r")
    while True:
        got, status, usage = os.wait4(pid, os.WNOHANG)
        if got == pid:
            break
        if time.monotonic() > deadline + 10:
            os.kill(pid, signal.SIGKILL)
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                output.extend(os.read(fd, 65536))
            except OSError:
                pass
    os.close(fd)
    wall = time.monotonic() - began
    return wall, usage.ru_utime, usage.ru_stime, output.decode("utf-8", "replace") if ok else None


def on_pty(cmd, env, timeout):
    """Runs `cmd` on a pseudo-terminal of its own to its end; returns (user, system) CPU s, or None when it did
    not end in time."""
    env = dict(env, TERM="xterm-256color", LANG="C.UTF-8")
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(cmd[0], cmd, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    deadline = time.monotonic() + timeout
    while True:
        got, status, usage = os.wait4(pid, os.WNOHANG)
        if got == pid:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            os.close(fd)
            return None
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                pass
    os.close(fd)
    return usage.ru_utime, usage.ru_stime
