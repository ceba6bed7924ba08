import ChirperCore

extension FuzzTarget {
    /// What a file of one's own says about itself: the header reader over WAV and FLAC files built from fuzzed
    /// fields (read in ranges of fuzzed sizes, from a file whose size may lie), the GUANO text, and the dates in
    /// field recorders' file names.
    static let fileHeaderTargets: [FuzzTarget] = [
        FuzzTarget(name: "wav-header", summary: "a WAV header (chunks, INFO, GUANO) read in ranges, as from disk") {
            input in
            var reader = FuzzInput(input)
            let seed = reader.byte()
            let lie = reader.byte()
            var file = wavFile(&reader)
            if seed & 4 == 0 { file = Array(file.prefix(64)) + metadataChunks(&reader) + Array(file.dropFirst(64)) }
            if seed & 8 == 0 { file.replaceSubrange(0..<4, with: Array((seed & 16 == 0 ? "RF64" : "RIFF").utf8)) }
            readHeader(file, seed: seed, lie: lie)
        },
        FuzzTarget(name: "flac-header", summary: "a FLAC header (STREAMINFO, SEEKTABLE, comments) read in ranges") {
            input in
            var reader = FuzzInput(input)
            let seed = reader.byte()
            let lie = reader.byte()
            readHeader(flacFile(&reader), seed: seed, lie: lie)
        },
        FuzzTarget(name: "guano", summary: "a GUANO chunk's text, every field read and shown") { input in
            let guano = GUANOMetadata(chunk: input)
            _ = (guano.version, guano.timestamp?.description, guano.position, guano.elevation, guano.length)
            _ = (guano.make, guano.model, guano.speciesManualID, guano.speciesAutoID, guano.sampleRate, guano.note)
            _ = guano.timeExpansion
            var metadata = FileMetadata()
            metadata.guano = guano
            _ = metadata.lines
            _ = GUANOMetadata.parseTimestamp(String(decoding: input, as: UTF8.self))
        },
        FuzzTarget(name: "recorder-name", summary: "a field recorder's file name, for its date") { input in
            _ = FieldRecorderName.recordedTime(fromFileName: String(decoding: input, as: UTF8.self))?.description
        },
    ]

    /// Reads `file`'s header through `AudioFileHeaderReader`, each range read at a fuzzed size (never less than
    /// asked), now and then first from a wrong offset (which must be ignored); `lie` may make the file's size say
    /// more or less than it holds. Then reads everything the header says, as a listing would.
    static func readHeader(_ file: [UInt8], seed: UInt8, lie: UInt8) {
        let size = Int64(file.count) + (lie & 3 == 0 ? Int64(Int8(bitPattern: lie)) : 0)
        var pieces = FuzzPieces(seed: seed)
        var reader = AudioFileHeaderReader(fileSize: size)
        var steps = 0
        while case .need(let offset, let count) = reader.step {
            steps += 1
            precondition(steps < 100_000, "the header reader does not end")
            precondition(offset >= 0 && count >= 0 && offset + Int64(count) <= max(0, size), "asks past the end")
            let start = Int(min(offset, Int64(file.count)))
            let piece = pieces.next() ?? 1
            if piece & 7 == 0, start > 0, offset <= Int64(file.count) {
                let before = reader.step
                reader.feed(Array(file[(start - 1)..<min(file.count, start + count)]), at: offset - 1)
                precondition(reader.step == before || start + count <= file.count, "progress from the wrong bytes")
            }
            let bytes = Array(file[start..<min(file.count, start + max(count, piece))])
            if case .need(offset, count) = reader.feed(bytes, at: offset), bytes.count < count { break }
        }
        if case .header(let header) = reader.step {
            _ = (header.duration, header.isTruncated, header.encoding?.description, header.metadata.lines)
            _ = (header.metadata.comment, header.metadata.artist, header.metadata.device)
            precondition(header.audio.offset + header.audio.length <= max(size, header.audio.offset), "audio past end")
        }
        if case .problem(let problem) = reader.step { _ = problem.userMessage }
        _ = AudioFileHeaderReader.read(file)
    }

    /// `LIST`/`INFO` and `guan` chunks of fuzzed entries and sizes.
    static func metadataChunks(_ reader: inout FuzzInput) -> [UInt8] {
        var info: [UInt8] = Array("INFO".utf8)
        for _ in 0..<reader.int(in: 0...4) {
            let text = reader.take(reader.int(in: 0...40))
            info += Array(reader.pick(["ICMT", "IART", "INAM", "ICRD", "ISFT"]).utf8) + le(text.count, 4) + text
            if text.count % 2 == 1 { info.append(0) }
        }
        let guano = Array("GUANO|Version: 1.0\nTimestamp: ".utf8) + reader.take(reader.int(in: 0...80))
        var chunks: [UInt8] = []
        for (id, body) in [("LIST", info), ("guan", guano)] {
            let stated = reader.byte() & 7 == 0 ? reader.integer(bytes: 4) : body.count
            chunks += Array(id.utf8) + le(stated, 4) + body + (body.count % 2 == 1 ? [0] : [])
        }
        return chunks
    }

    /// A FLAC file: `fLaC`, a STREAMINFO of fuzzed fields, blocks of fuzzed types and sizes (a SEEKTABLE, a
    /// VORBIS_COMMENT whose counts and lengths may lie), the last flag set or not, then frame bytes.
    static func flacFile(_ reader: inout FuzzInput) -> [UInt8] {
        var file: [UInt8] = reader.byte() & 15 == 0 ? Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 2] + [0, 0] : []
        file += Array("fLaC".utf8)
        var blocks: [(type: Int, body: [UInt8])] = []
        if reader.byte() & 7 != 0 {
            let rate = reader.pick([44100, 48000, 384_000, 0, 500_000, reader.integer(bytes: 3)])
            let channels = reader.int(in: 0...7)
            let bits = reader.int(in: 0...31)
            let total = reader.integer(bytes: 5)
            var info = [UInt8](repeating: 0, count: 10)
            info += [
                UInt8(truncatingIfNeeded: rate >> 12), UInt8(truncatingIfNeeded: rate >> 4),
                UInt8(truncatingIfNeeded: rate << 4) | UInt8(channels << 1) | UInt8(bits >> 4),
                UInt8(truncatingIfNeeded: bits << 4) | UInt8(truncatingIfNeeded: total >> 32),
            ]
            info +=
                (0..<4).map { UInt8(truncatingIfNeeded: total >> (8 * (3 - $0))) } + [UInt8](repeating: 0, count: 16)
            blocks.append((0, Array(info.prefix(reader.byte() & 7 == 0 ? reader.int(in: 0...34) : 34))))
        }
        for _ in 0..<reader.int(in: 0...4) {
            switch reader.pick([3, 4, 1, 6, 127, reader.int(in: 0...127)]) {
            case 4:
                var body = le(reader.int(in: 0...20), 4) + reader.take(reader.int(in: 0...20))
                let count = reader.int(in: 0...5)
                body += le(reader.byte() & 7 == 0 ? reader.integer(bytes: 4) : count, 4)
                for _ in 0..<count {
                    let entry = reader.take(reader.int(in: 0...30))
                    body += le(reader.byte() & 7 == 0 ? reader.integer(bytes: 4) : entry.count, 4) + entry
                }
                blocks.append((4, body))
            case let type:
                blocks.append((type, reader.take(reader.int(in: 0...60))))
            }
        }
        let lastFlag = reader.byte() & 7 != 0
        for (index, block) in blocks.enumerated() {
            let last = lastFlag && index == blocks.count - 1
            let length = reader.byte() & 15 == 0 ? reader.integer(bytes: 3) : block.body.count
            file +=
                [UInt8(block.type) | (last ? 0x80 : 0)]
                + (0..<3).map { UInt8(truncatingIfNeeded: length >> (8 * (2 - $0))) }
            file += block.body
        }
        return file + reader.rest()
    }

    static func le(_ value: Int, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
