#!/usr/bin/env python3
"""Loopback HTTP server for `make bench`: generated MP3s and a fake xeno-canto v3 API.

    GET /NAME/ID/download          the file NAME.mp3 from --audio-dir, with Range (bytes=N- / N-M) support:
                                   xeno-canto's download URL (`…/<id>/download`), which chirper-play's
                                   play cache keys by ID, as it does for users
    GET /audio/NAME.mp3            the same file
    GET /api/3/recordings?query=…&page=P&per_page=N
                                   a v3-shaped page of N recordings; every `file` points at
                                   /NAME/ID/download on this server, NAME being the first word of the
                                   query that names a file in --audio-dir (`en:tone60` -> tone60.mp3), each
                                   row its own ID (see `recording_id`): a row not played before is not in
                                   the cache

Listens on 127.0.0.1 with an ephemeral port and prints `port=N` on stdout once it is ready. Stdlib only.
Every API request is logged to stderr with the time spent building the reply (to separate server cost
from client cost in the list figures), and every audio request with its first byte (`audio NAME from=N`).
"""

import argparse
import json
import os
import re
import sys
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

RECORD_TEMPLATE = {
    "gen": "Synthetica",
    "sp": "benchmarkii",
    "ssp": "",
    "grp": "birds",
    "rec": "chirper-play bench",
    "cnt": "Loopback",
    "loc": "127.0.0.1, Loopback",
    "lat": "0.0",
    "lon": "0.0",
    "alt": "0",
    "type": "song",
    "sex": "uncertain",
    "stage": "adult",
    "method": "synthesised",
    "sono": {"small": None, "med": None, "large": None, "full": None},
    "osci": {"small": None, "med": None, "large": None},
    "lic": "//creativecommons.org/publicdomain/zero/1.0/",
    "q": "A",
    "time": "06:00",
    "date": "2025-01-01",
    "uploaded": "2025-01-02",
    "also": [],
    "rmk": "Synthesised by scripts/bench; not a real animal.",
    "animal-seen": "no",
    "playback-used": "no",
    "temp": "",
    "regnr": "",
    "auto": "no",
    "dvc": "sox",
    "mic": "lame",
    "smp": "48000",
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    server_version = "chirper-bench/1"

    def log_message(self, format, *args):  # quiet: the bench reads stderr only for API timings
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        download = re.fullmatch(r"/([A-Za-z0-9_-]+)/\d+/download", url.path)
        if download:
            self.serve_audio(download.group(1) + ".mp3")
        elif url.path.startswith("/audio/"):
            self.serve_audio(url.path[len("/audio/"):])
        elif url.path == "/api/3/recordings":
            self.serve_api(parse_qs(url.query))
        else:
            self.send_bytes(404, "text/plain", b"not found\n")

    def send_bytes(self, status, content_type, body, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def serve_audio(self, name):
        if "/" in name or name.startswith("."):
            return self.send_bytes(404, "text/plain", b"no such file\n")
        path = os.path.join(self.server.audio_dir, name)
        try:
            size = os.path.getsize(path)
        except OSError:
            return self.send_bytes(404, "text/plain", b"no such file\n")
        start, end, status = 0, size - 1, 200
        headers = [("Accept-Ranges", "bytes")]
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", "").strip())
        if match:
            start = int(match.group(1))
            if start >= size:
                return self.send_bytes(416, "text/plain", b"", [("Content-Range", f"bytes */{size}")])
            if match.group(2):
                end = min(int(match.group(2)), size - 1)
            status = 206
            headers.append(("Content-Range", f"bytes {start}-{end}/{size}"))
        # The bench counts these lines: a seek beyond what arrived makes a request, one inside it does not.
        print(f"audio {name} from={start} status={status}", file=sys.stderr, flush=True)
        self.send_response(status)
        self.send_header("Content-Type", "audio/mpeg")
        self.send_header("Content-Length", str(end - start + 1))
        for header in headers:
            self.send_header(*header)
        self.end_headers()
        try:
            with open(path, "rb") as f:
                f.seek(start)
                left = end - start + 1
                while left > 0:
                    chunk = f.read(min(64 * 1024, left))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    left -= len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def serve_api(self, query):
        began = time.perf_counter()
        text = query.get("query", [""])[0]
        page = max(1, int(query.get("page", ["1"])[0] or 1))
        per_page = min(500, max(1, int(query.get("per_page", ["50"])[0] or 50)))
        audio = None
        for word in re.findall(r"[A-Za-z0-9_-]+", text):
            if os.path.exists(os.path.join(self.server.audio_dir, word + ".mp3")):
                audio = word + ".mp3"
                break
        if audio is None:
            return self.send_bytes(200, "application/json", json.dumps({
                "numRecordings": "0", "numSpecies": "0", "page": 1, "numPages": 0, "recordings": []
            }).encode())
        pages = self.server.pages
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        length = self.server.lengths.get(audio, "0:10")
        recordings = []
        if page <= pages:
            for index in range(per_page):
                number = (page - 1) * per_page + index + 1
                rid = recording_id(audio[:-4], number)
                record = {"id": rid}
                record.update(RECORD_TEMPLATE)
                record["en"] = f"Bench {audio[:-4]} {number}"
                record["url"] = f"//xeno-canto.org/{rid}"
                record["file"] = f"{base}/{audio[:-4]}/{rid}/download"
                record["file-name"] = f"XC{rid}-{audio}"
                record["length"] = length
                recordings.append(record)
        body = json.dumps({
            "numRecordings": str(pages * per_page),
            "numSpecies": "1",
            "page": page,
            "numPages": pages,
            "recordings": recordings,
        }).encode()
        built = time.perf_counter() - began
        self.send_bytes(200, "application/json", body)
        print(f"api page={page} per_page={per_page} bytes={len(body)} build_ms={built * 1000:.2f}",
              file=sys.stderr, flush=True)


def recording_id(name, number):
    """The xeno-canto-like id of row `number` of the recordings of file `name`: 9, three digits from the
    name, six from the row. Rows of one file differ (a row not played before is not in the cache), and
    files differ from each other."""
    return f"9{zlib.crc32(name.encode()) % 1000:03d}{number:06d}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--audio-dir", required=True)
    parser.add_argument("--pages", type=int, default=1000, help="numPages the API announces")
    parser.add_argument("--lengths", default="{}", help='JSON {"name.mp3": "m:ss"} for the length field')
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.audio_dir = os.path.abspath(args.audio_dir)
    server.pages = args.pages
    server.lengths = json.loads(args.lengths)
    print(f"port={server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
