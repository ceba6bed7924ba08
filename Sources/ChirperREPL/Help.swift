import FoundationEssentials
import ChirperCore

/// The `help` text.
enum Help {
    /// More than the summary, for the commands that take times, factors or modes.
    static let details: [String: [String]] = [
        "seek": [
            "  times: m:ss or h:mm:ss (seconds may have a fraction, 1:05.5), plain seconds (65), or +N / -N seconds",
            "  from the position heard. Inside what has arrived no request is made; beyond it the file is fetched",
            "  from the right byte (a server that ignores Range is read from the start, and the status says so).",
            "  Works while buffering, paused or reconnecting. Examples: seek 1:05, seek +10, seek -5",
        ],
        "loop": [
            "  loop ann k repeats annotation box k of the playing recording (info lists a recording's boxes).",
            "  loop a b jumps to a and repeats a-b without a gap until loop off (times as in seek); loop off plays on",
            "  past b. Seeking outside the loop ends it. Example: loop 0:12 0:15.5",
        ],
        "speed": [
            "  0.1 to 2.0 times the recording's speed, for this and later recordings. tape (the default): the pitch",
            "  moves with the speed (0.5 is an octave lower; 0.1 is bat time expansion). keep: the pitch is kept",
            "  (time-stretch, libsonic). Positions stay in the recording's own time. Examples: speed 0.5, speed 0.25 keep",
            "  speed alone says the speed in force (and the volume).",
        ],
        "open": [
            "  open PATH... lists your own files (WAV, MP3; FLAC once its decoder is in) and the audio files in",
            "  folders and every folder below, page by page: name, length, when recorded (from the file name, GUANO",
            "  or the file's last change), kHz, channels, place and device. A file that cannot be read is one line.",
            "  Quote a path with spaces: open \"~/field recordings\". chirper-play PATH... does the same at start.",
        ],
        "identify": [
            "  BirdNET 2.4 (make model; CC BY-NC-SA 4.0) hears 3 s segments. Species not expected where and when",
            "  the recording was made (its row's place and date, or GUANO; BirdNET's location model) are dimmed and",
            "  left out of the summary: --all keeps them, --species-list FILE judges by your list (one",
            "  Scientific name_Common name a line). identify save FILE writes a Raven selection table.",
            "  identify on [--min-confidence C] shows, while a recording plays, who sings in the 3 s segment",
            "  playing, in a row above the status line (Dunnock 0.92 · Eurasian Wren 0.41, most confident first;",
            "  listening… until that segment is heard). BirdNET hears the audio the player already decoded, on",
            "  the recording's 3 s grid (also after a seek); identify off stops it. In a pipe: identify: live lines.",
        ],
        "filter": [
            "  filter narrows the files opened last (search stays xeno-canto): words match the path, and year:",
            "  month: len: smp: dvc: rec: rmk: loc: nr: as in search. Examples: filter 2025, filter len:>60 dvc:moth",
        ],
        "play": [
            "  play n plays one row. play 3-7, play 2,5,9 or play all queue the playable rows and play them in order;",
            "  next and prev move in the queue, autoplay off stops after each row, a new search clears the queue.",
        ],
        "save": [
            "  save n, save 3-7 or save all downloads the original audio (MP3 or WAV as served) into DIR (default",
            "  $XDG_DATA_HOME/chirper-play/recordings) as XC<id>.mp3|wav with XC<id>.json (licence, recordist, page,",
            "  fetch time) beside it. It writes XC<id>.part first and resumes it after a drop, or in a later save;",
            "  an existing file is left as it is. One request a second. Ctrl-C stops it. Example: save 1-3 ~/birds",
        ],
        "cite": [
            "  The form xeno-canto asks for: recordist, XC number, page URL, licence; with a warning when the",
            "  licence forbids commercial use or derivatives.",
        ],
        "also": [
            "  Searches the first (or k-th) background species heard in row n, e.g. also 3, also 3 2."
        ],
        "volume": ["  0 to 100, linear in amplitude: volume 50 halves it (-6 dB). Kept for later recordings."],
        "sono": [
            "  sono n draws row n's sonogram across the terminal: time left to right, frequency up the side, loud",
            "  is dark; 0-12 kHz, where birds sing (max: the whole band). Zoom with a band in kHz (lo-hi, or a top)",
            "  and a window in recording time (a-b, times as seek takes them): sono 1 2-9 0:12-0:15.",
            "  With no row it draws what plays (the loop's section while a loop is set). The FFT follows the",
            "  window: about one column per frame, from 512 points (11.6 ms at 44.1 kHz, Raven's default) to 2048",
            "  (46 ms), Hann window, 75 % overlap when zoomed in, 50 % over a long view. Grey levels run from the",
            "  picture's 20th to its 99.9th percentile dB; --contrast fixed (at launch, or after sono for one",
            "  picture) maps -90 to -10 dB. Where the terminal speaks kitty graphics or sixel, sono draws real pixels (see",
            "  graphics). --png FILE also writes the picture as a PNG with its axes. sono on [lines] [lo-hi] shows",
            "  a live strip above the status line (default 8 lines, 0-12 kHz; real pixels where sono draws them).",
            "  In a pipe: sono: lines (see the README). Ctrl-C stops a sonogram being drawn. After identify, sono",
            "  of that recording shows what was heard: in pixels a box over each segment (0-15 kHz, BirdNET's band)",
            "  labelled with the species and confidence; in half-blocks a line per species under the time axis,",
            "  ━ over the segments it was heard in, and a legend (heard: A Dunnock 0.99, …).",
        ],
        "measure": [
            "  measure n a-b [lo-hi] measures a time section and band of row n (times as seek takes them, the band",
            "  in kHz); measure alone measures the selection (select n a-b [lo-hi], or the loop of what plays).",
            "  Raven's robust measurements from the spectrogram inside the band (energy = squared magnitude): peak",
            "  frequency and time, centre frequency, frequency 5/25/75/95 %, BW 90 % and 50 %, time 5/95 %, dur",
            "  90 %, average entropy, and the peak-frequency contour's slope and inflections over the 90 %",
            "  duration. Analysis: Hann window of 512 samples at 44.1 kHz (11.6 ms; the nearest power of two at",
            "  other rates), 50 % overlap: bins 86 Hz apart, frames 5.8 ms apart at 44.1 kHz; every figure is",
            "  exact to that resolution. Each measurement is a row of the session's table: measure list shows it,",
            "  measure save FILE writes it as a Raven selection table (tab-separated, Raven's column names).",
            "  measure detections fills it from the last identify: one row a species, measured over the segment",
            "  it was heard in most surely, 0-15 kHz, named by the species (an Annotation column in the file).",
        ],
        "compare": [
            "  compare a b [c d] stacks two to four sections: rows (3: the recording from its start, up to 30 s) or",
            "  measured selections (s1 is row 1 of measure list). One time scale (each from its own start), one",
            "  frequency axis (the widest band asked) and one dB scale (the lowest floor to the highest ceiling),",
            "  then the measurements side by side with B-A. Ctrl-C stops it.",
        ],
        "ab": [
            "  ab a b [gap] plays two sections in turn, A, B, A, B ..., each once to its end, with a gap between",
            "  (default 0.5 s), at the current speed, until stop: rows (3: from the start, up to 30 s) or",
            "  measured selections (s1). The status line says which side is heard. It needs a sound server.",
            "  A selection with a band plays only that band (a Butterworth band-pass, 24 dB an octave).",
        ],
        "quiz": [
            "  quiz <query> builds a deck from a search (up to 4 pages, paced as every request), quiz saved or quiz",
            "  cached from what is on disk (no network). A card is a species and a sound type (song, call, other);",
            "  restricted rows are left out. A question plays a recording (20 s of a long one) under the name",
            "  quiz-N: nothing names it until the answer (the status line shows quiz-N and the time heard).",
            "  Answer with a choice's number or a name (English or scientific, typos forgiven); replay, skip,",
            "  slow (speed 0.5 keep), loop and sono work meanwhile. After the answer: next (or Enter) asks the",
            "  next question, replay plays the answered recording again under its name.",
            "  Choices: the same genus first, then the family (a fam: deck), then what you confuse it with.",
            "  Flags: --mode choice|typed|sono (sono: which of three unnamed sonograms, over the same span, is",
            "  the sound?), --choices 2-8, --questions N (20), --seed N (reproducible), --auto (the next",
            "  question at once after each answer).",
            "  Scheduling: FSRS-4.5 (missed cards come back within the session and 10 min later; right ones",
            "  after days, then further apart). Progress is kept in $XDG_DATA_HOME/chirper-play/quiz.sqlite.",
            "  quiz stats shows accuracy per species, the most confused pairs and what is due; quiz export",
            "  F.csv writes every card's recordings (audio, recordist, licence). Ctrl-C or quiz stop ends it.",
        ],
        "graphics": [
            "  graphics says how sono draws now; graphics kitty|sixel|blocks chooses, graphics auto goes back to",
            "  what the terminal answered at start-up (a kitty graphics query and its device attributes).",
        ],
    ]

    /// The help for `topic` (nil: every command), each line wrapped to `columns` with a hanging indent under
    /// its description; nil `columns` (a pipe) leaves lines whole, one per entry.
    static func lines(topic: String?, columns: Int?) -> [String] {
        let usageWidth = CommandParser.commands.map(\.usage.count).max() ?? 0
        // A command's description wraps under itself; if that leaves too little room, under the usage.
        let summaryIndent = 2 + usageWidth + 2
        let hanging = (columns ?? .max) - summaryIndent >= 30 ? summaryIndent : 6
        return lines(topic: topic, usageWidth: usageWidth).flatMap { line in
            guard let columns else { return [line] }
            let isCommand = topic == nil && line.hasPrefix("  ")
            return TerminalLayout.wrap(line, columns: columns, indent: isCommand ? hanging : 4)
        }
    }

    private static func lines(topic: String?, usageWidth width: Int) -> [String] {
        guard let topic else {
            return ["Commands:"]
                + CommandParser.commands.map { command in
                    let aliases = command.aliases.isEmpty ? "" : " (also \(command.aliases.joined(separator: ", ")))"
                    return "  " + command.usage.padded(toLength: width) + "  "
                        + command.summary + aliases
                }
                + [
                    "Search words look up English names; tags narrow it down: search wren cnt:spain q:A",
                    "help tags lists the search tags; Ctrl-C stops playback; Ctrl-D or quit leaves.",
                ]
        }
        if topic == "tags" {
            return [
                "Search tags (xeno-canto API v3; quote values with spaces: cnt:\"united kingdom\"):",
                "  en: English name      gen: genus          sp: species or \"genus species\"   ssp: subspecies",
                "  fam: family           grp: birds, grasshoppers, bats, frogs, \"land mammals\", soundscape",
                "  cnt: country          loc: locality       area: africa america asia australia europe",
                "  rec: recordist        type: song, call, \"alarm call\", \"flight call\" …",
                "  q: quality A-E, q:\">C\" (A, B)   len: seconds, len:\"<30\", len:10-20   since: days or a date",
                "  year: month: sex: stage: method: seen: playback: also: rmk: nr: lic: smp: box: lat: lon:",
                "Words without a tag search English names: search common blackbird",
            ]
        }
        if let command = CommandParser.commands.first(where: { $0.name == topic || $0.aliases.contains(topic) }) {
            return ["\(command.usage): \(command.summary)"] + (details[command.name] ?? [])
        }
        return ["no help for '\(TerminalText.sanitize(String(topic.prefix(30))))'; help lists the commands"]
    }
}
