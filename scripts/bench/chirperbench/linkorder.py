"""Whether the link order file still names the program's functions: lld skips a name that is gone without a
word (`--no-warn-symbol-ordering`), so a file written for older code slowly stops laying out what runs."""

import subprocess

# Past this share of its own functions gone from the binary, the file is stale.
STALE_SHARE = 0.1


def own_functions(names):
    """The names a link of chirper-play can place: Swift's (the program's and its static libraries'). The
    file also names the shared libraries' C functions valgrind saw run (libc, libpulse, FFTW), which are never
    in the binary, so they do not count."""
    return {name for name in names if name.startswith("$s")}


def staleness(order_names, binary_names):
    """(gone, named): of the file's own functions, how many the binary no longer defines, and how many it
    names."""
    named = own_functions(order_names)
    return len(named - set(binary_names)), len(named)


def verdict(gone, named):
    """None when the file is fresh enough, otherwise the one line that says what to do."""
    if named == 0:
        return "the link order file names none of chirper-play's functions: run `make link-order`"
    if gone > STALE_SHARE * named:
        return (f"the link order file is stale: {gone} of the {named} functions it names are no longer in "
                f"chirper-play ({100 * gone / named:.0f} %, more than {100 * STALE_SHARE:.0f} %): "
                f"run `make link-order`")
    return None


def binary_names(path):
    """The symbols `path` defines (nm)."""
    out = subprocess.run(["nm", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    return [fields[-1] for fields in (line.split() for line in out.splitlines()) if len(fields) >= 2]


def read_order(path):
    with open(path, encoding="utf-8") as file:
        return [line.strip() for line in file if line.strip()]
