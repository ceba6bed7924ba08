#!/usr/bin/env python3
"""How many frames of a damaged FLAC are lost, by `flac -d -F` and by chirper-play (from disk, and as an
xeno-canto row over HTTP), against the clean file's decoding. Not a figure of `make bench` (no peer to time):
a check of what is played, for BENCH.md. Needs sox and flac.

    python3 scripts/bench/flac-damage.py --binary .build-bench/release/chirper-play --copies 60
"""
import argparse, functools, http.server, json, os, random, subprocess, tempfile, threading

BLOCK = 4096 * 4  # one frame of 4096 stereo 16-bit samples, in bytes


def raw(path):
    return subprocess.run(["sox", "-D", path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-"],
                          capture_output=True, check=True).stdout


def frames(clean, decoded):
    """Per frame: '.' the file's own, '0' silence, 'X' neither; '-' missing."""
    out = []
    for k in range((len(clean) + BLOCK - 1) // BLOCK):
        want, got = clean[k * BLOCK:(k + 1) * BLOCK], decoded[k * BLOCK:(k + 1) * BLOCK]
        out.append("." if want == got else "-" if not got else "0" if got.count(0) == len(got) else "X")
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="chirper-play")
    parser.add_argument("--copies", type=int, default=60)
    parser.add_argument("--seed", type=int, default=53)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary) if os.sep in args.binary else args.binary
    root = os.getcwd()
    work = tempfile.mkdtemp(prefix="chirper-flac-damage-")
    os.chdir(work)
    handler = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=work))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    subprocess.run(["sox", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", "a.wav", "synth", "6",
                    "sine", "200-3000", "sine", "350-3500", "gain", "-3"], check=True)
    subprocess.run(["flac", "-s", "-f", "-o", "a.flac", "a.wav"], check=True)
    clean, intact = raw("a.wav"), open("a.flac", "rb").read()
    rng = random.Random(args.seed)
    # frames lost, copies whose length is kept, copies with a wrong frame, copies with no output, frames said
    totals = {name: [0, 0, 0, 0, 0] for name in ("flac -d -F", "chirper-play, disk", "chirper-play, HTTP")}
    for copy in range(args.copies):
        start, length = rng.randrange(9000, len(intact) - 2000), rng.choice([1, 3, 24, 200, 5000])
        damaged = bytearray(intact)
        for index in range(start, min(len(damaged), start + length)):
            damaged[index] ^= 0x5A
        flac = os.path.join(work, f"d{copy}.flac")
        open(flac, "wb").write(damaged)
        record = {"id": str(900 + copy), "gen": "Tonus", "sp": "fractus", "en": "Broken Sweep", "rec": "R",
                  "cnt": "Spain", "type": "song", "q": "A", "length": "0:06", "url": "//xeno-canto.org/1",
                  "file": f"http://127.0.0.1:{port}/d{copy}.flac", "lic": "//creativecommons.org/licenses/by/4.0/"}
        json.dump({"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [record]},
                  open("api.json", "w"))
        env = dict(os.environ, XENO_CANTO_API_KEY="flac-damage", XDG_CACHE_HOME=f"{work}/cache{copy}",
                   XDG_DATA_HOME=f"{work}/data")
        out = os.path.join(work, "out.wav")
        runs = {
            "flac -d -F": (["flac", "-d", "-s", "-f", "-F", "-o", out, flac], b""),
            "chirper-play, disk": ([binary, "--output", f"wav:{out}", "--no-mpris", flac], b"play 1\nwait\n"),
            "chirper-play, HTTP": ([binary, "--api-url", f"http://127.0.0.1:{port}/api.json", "--output",
                                    f"wav:{out}", "--no-mpris"], b"search tonus\nplay 1\nwait\n"),
        }
        for name, (command, stdin) in runs.items():
            result = subprocess.run(command, input=stdin, capture_output=True, cwd=root, env=env)
            total = totals[name]
            # What the `playback:` lines say (`damaged_frames=N`); flac says no count.
            said = [int(word.split("=")[1]) for word in result.stdout.decode(errors="replace").split()
                    if word.startswith("damaged_frames=")]
            total[4] += max(said, default=0)
            if not os.path.exists(out):
                total[3] += 1
                continue
            decoded = raw(out)
            os.remove(out)
            shape = frames(clean, decoded)
            total[0] += sum(mark != "." for mark in shape)
            total[1] += len(decoded) == len(clean)
            total[2] += "X" in shape
    server.shutdown()
    print(f"{args.copies} damaged copies of a 6 s FLAC ({(len(clean) + BLOCK - 1) // BLOCK} frames)")
    print(f"{'decoder':20s} {'frames lost':>11s} {'frames said':>11s} {'length kept':>11s} {'wrong frames':>12s} "
          f"{'no output':>9s}")
    for name, (lost, kept, wrong, none, said) in totals.items():
        print(f"{name:20s} {lost:11d} {said if name != 'flac -d -F' else '-':>11} {kept:8d}/{args.copies:<2d} "
              f"{wrong:12d} {none:9d}")


if __name__ == "__main__":
    main()
