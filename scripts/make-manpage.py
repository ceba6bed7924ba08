#!/usr/bin/env python3
"""Writes chirper-play's manual page (troff, man(7)) on stdout, from the program itself and the README, so that
it is as true as they are:

    scripts/make-manpage.py BINARY README.md > chirper-play.1

The options come from `BINARY --help` (LaunchHelp), the commands and their details from the REPL's
`help` (run in a pipe on the demo catalog), and the pipe protocol and the quiz from the README's sections.
"""

import os
import re
import subprocess
import sys


def escape(text):
    """Text for a troff line: backslashes doubled, a leading dot or quote kept from being a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def run(binary, arguments, stdin=""):
    environment = dict(os.environ, XENO_CANTO_API_KEY="", NO_COLOR="1")
    result = subprocess.run([binary] + arguments + ["--output", "null"] if stdin else [binary] + arguments,
                            input=stdin, capture_output=True, text=True, env=environment, timeout=60)
    return result.stdout


def readme_section(readme, title, leave_out=()):
    """The lines of the README section `title` (up to the next heading of its level or above), without the
    subsections named in `leave_out` (the manual gives those a section of their own)."""
    lines = readme.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("#").strip() == title)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    body = []
    skipping = None
    for line in lines[start + 1:]:
        depth = len(line) - len(line.lstrip("#")) if line.startswith("#") else 0
        if depth and depth <= level:
            break
        if skipping is not None and depth and depth <= skipping:
            skipping = None
        if depth and line.lstrip("#").strip() in leave_out:
            skipping = depth
        if skipping is None:
            body.append(line)
    return body


def markdown(lines):
    """README markdown as troff: paragraphs, code blocks as literal text, backticks and emphasis dropped."""
    out = []
    literal = False
    for line in lines:
        if line.startswith("```"):
            out.append(".fi" if literal else ".nf")
            literal = not literal
            continue
        if literal:
            out.append(escape(line))
            continue
        if not line.strip():
            out.append(".PP")
            continue
        if line.startswith("#"):
            # A subsection's heading, as troff's subheading (not its markdown).
            out.append(".SS " + escape(line.lstrip("#").strip()))
            continue
        text = re.sub(r"\*\*(.+?)\*\*", r"\1", line.replace("`", ""))
        text = re.sub(r"\[(.+?)\]\((.+?)\)", r"\1 (\2)", text)
        out.append(escape(text.strip()))
    return out


def main():
    binary, readme_path = sys.argv[1], sys.argv[2]
    readme = open(readme_path, encoding="utf-8").read()
    version = run(binary, ["--version"]).strip() or "unknown"
    help_text = run(binary, ["--help"]).splitlines()
    options = help_text[help_text.index("OPTIONS:") + 1:] if "OPTIONS:" in help_text else []
    commands = run(binary, [], stdin="help\n").splitlines()
    names = [line.split()[0] for line in commands if line.startswith("  ") and line.split()]
    # Every command's help from one session: each answer starts with the command's usage line.
    answers = run(binary, [], stdin="".join(f"help {name}\n" for name in names)).splitlines()
    details = {}
    for name in names:
        start = next((i for i, line in enumerate(answers) if line.startswith(name + " ") or line == name
                      or line.startswith(name + ":")), None)
        if start is None:
            details[name] = []
            continue
        end = start + 1
        while end < len(answers) and answers[end].startswith("  "):
            end += 1
        details[name] = answers[start + 1:end]

    out = [
        f'.TH CHIRPER\\-PLAY 1 "" "chirper-play {escape(version)}" "User Commands"',
        ".SH NAME",
        "chirper\\-play \\- search xeno\\-canto's bird and wildlife recordings and listen to them in a terminal",
        ".SH SYNOPSIS",
        ".B chirper\\-play",
        "[\\fIoptions\\fR] [\\fIPATH\\fR ...]",
        ".SH DESCRIPTION",
    ]
    out += markdown(readme_section(readme, "chirper-play")[:8])
    out += [".SH OPTIONS"]
    for line in options:
        match = re.match(r"^  (\S.*?)\s{2,}(.*)$", line)
        if match:
            out += [".TP", escape(match.group(1)), escape(match.group(2))]
        elif line.strip():
            out.append(escape(line.strip()))
    out += [".SH YOUR OWN RECORDINGS"] + markdown(readme_section(readme, "Your own recordings"))
    out += [".SH COMMANDS", "Typed at the prompt, or read one per line from standard input in a pipe."]
    for line in commands[1:]:
        match = re.match(r"^  (\S.*?)\s{2,}(.*)$", line)
        if not match:
            if line.strip():
                out += [".PP", escape(line.strip())]
            continue
        out += [".TP", "\\fB" + escape(match.group(1)) + "\\fR", escape(match.group(2))]
        name = match.group(1).split()[0]
        if details.get(name):
            out.append(".br")
        for detail in details.get(name, []):
            out.append(escape(detail.strip()))
    quiz = "Learning the sounds: the quiz"
    out += [".SH PIPE PROTOCOL"] + markdown(readme_section(readme, "In a pipe: the script format", (quiz,)))
    out += [".SH THE QUIZ"] + markdown(readme_section(readme, quiz))
    out += [
        ".SH ENVIRONMENT",
        ".TP", "XENO_CANTO_API_KEY", "The xeno\\-canto API key (https://xeno\\-canto.org/account).",
        ".TP", "XDG_CACHE_HOME, XDG_DATA_HOME, XDG_STATE_HOME",
        "Where the play cache, the saved recordings and the quiz store, and the history are kept.",
        ".TP", "NO_COLOR", "No colours.",
        ".TP", "SSL_CERT_FILE, SSL_CERT_DIR",
        "The certificate authorities trusted instead of the system's.",
        ".TP", "https_proxy, HTTPS_PROXY, http_proxy, all_proxy, ALL_PROXY",
        "The HTTP proxy (http://[USER:PASSWORD@]HOST[:PORT]) for https URLs, for http URLs (lowercase only), "
        "and for either; the lowercase name wins. Requests go through it in CONNECT tunnels.",
        ".TP", "no_proxy, NO_PROXY",
        "The hosts reached directly: names (and the names under them), addresses, networks, * for all.",
        ".SH SEE ALSO",
        "mpg123(1), playerctl(1)",
    ]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
