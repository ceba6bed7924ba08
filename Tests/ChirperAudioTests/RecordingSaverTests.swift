import ChirperCore
import ChirperTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import ChirperAudio

/// The MP3 saved: a real recording when ../shared is there, else the demo asset (always in the repository).
private let savedMP3: [UInt8]? = {
    if let name = Fixtures.named("XC5168"), let bytes = try? Fixtures.bytes(name) { return bytes }
    return FileManager.default.contents(atPath: Fixtures.packageRoot + "/assets/demo/audio/demo-01.mp3").map(Array.init)
}()

private let noMP3: Comment = "skipped: neither ../shared/xeno-canto/audio/ nor assets/demo/audio/demo-01.mp3 is present"

/// SHA-256 of a file, by coreutils' sha256sum (an independent implementation).
private func sha256(ofFile path: String) async throws -> String {
    let data = try await Tool.run("/usr/bin/sha256sum", [path], captureOutput: true).output
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}

private func sha256(of bytes: [UInt8]) async throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-sha-\(UUID())").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return try await sha256(ofFile: path)
}

/// Serves `bytes` honouring Range; the first request that reaches one of `cuts` is closed there.
private func droppingServer(_ bytes: [UInt8], cuts: [Int]) async throws -> LoopbackServer {
    let pending = NIOLockedValueBox(cuts.sorted())
    return try await LoopbackServer.start { request in
        let start =
            request.header("range").flatMap { header -> Int? in
                guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
                return Int(header.dropFirst(6).dropLast())
            } ?? 0
        let cut = pending.withLockedValue { cuts -> Int? in
            guard let index = cuts.firstIndex(where: { $0 > start }) else { return nil }
            return cuts.remove(at: index)
        }
        guard let cut else { return .file(bytes, contentType: "audio/mpeg", for: request, chunkSize: 4096) }
        var headers = [("Content-Type", "audio/mpeg")]
        if start > 0 { headers.append(("Content-Range", "bytes \(start)-\(bytes.count - 1)/\(bytes.count)")) }
        return LoopbackResponse(
            status: start > 0 ? 206 : 200, headers: headers,
            chunks: LoopbackResponse.chunked(Array(bytes[start..<cut]), size: 4096),
            ending: .cut(declaredLength: bytes.count - start))
    }
}

private let bunting = Recording(
    id: "254462", genus: "Passerina", species: "amoena", englishName: "Lazuli Bunting",
    recordist: "Jonathan Jongsma", pageURL: "https://xeno-canto.org/254462",
    fileName: "../../evil name.mp3", licenceURL: "https://creativecommons.org/licenses/by-nc-sa/4.0/",
    audio: .playable(.remote("http://127.0.0.1:1/254462/download")))

private func recording(at server: LoopbackServer) -> Recording {
    var recording = bunting
    recording.audio = .playable(.remote(server.baseURL + "/254462/download"))
    return recording
}

private func folder() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("chirper-save-\(UUID())").path
}

/// Byte sources no test expects to be asked for.
private let noSources = ByteSources { location in
    Issue.record("unexpected request for \(location)")
    throw ByteSourceError.noURL
}

private final class Lines: Sendable {
    private let box = NIOLockedValueBox<[SaveProgress]>([])
    var all: [SaveProgress] { box.withLockedValue { $0 } }
    func add(_ progress: SaveProgress) { box.withLockedValue { $0.append(progress) } }
}

@Suite("Field kit: save")
struct RecordingSaverTests {
    @Test(
        "a save dropped half-way resumes with Range and gives a file whose SHA-256 is the source's",
        .enabled(if: savedMP3 != nil, noMP3))
    func droppedAndResumed() async throws {
        let bytes = try #require(savedMP3)
        let server = try await droppingServer(bytes, cuts: [bytes.count / 2])
        let directory = folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let paced = NIOLockedValueBox(0)
        let saver = RecordingSaver(
            sources: .live(), pace: { paced.withLockedValue { $0 += 1 } }, now: { Date(timeIntervalSince1970: 0) })
        let lines = Lines()
        let outcome = await saver.save(recording(at: server), into: directory) { lines.add($0) }
        let requests = server.requests
        await server.shutdown()

        let final = directory + "/XC254462.mp3"
        #expect(outcome == .saved(label: "XC254462", file: final, bytes: Int64(bytes.count)))
        #expect(try await sha256(ofFile: final) == (try await sha256(of: bytes)))
        #expect(!FileManager.default.fileExists(atPath: directory + "/XC254462.part"))
        // The second request asks for the bytes from where the first stopped arriving (at or before the cut).
        #expect(requests.count == 2)
        #expect(requests.first?.header("range") == nil)
        let resumedAt = requests.last?.header("range").flatMap { Int($0.dropFirst(6).dropLast()) } ?? 0
        #expect(resumedAt > 0 && resumedAt <= bytes.count / 2)
        #expect(paced.withLockedValue { $0 } == 2, "every request waited for its turn")
        #expect(lines.all.first == .fetching(label: "XC254462", offset: 0, attempt: 1))
        #expect(lines.all.contains(.fetching(label: "XC254462", offset: Int64(resumedAt), attempt: 2)))
        let percents = lines.all.compactMap { line -> Int? in
            if case .received(_, let percent) = line { return percent }
            return nil
        }
        #expect(percents == [25, 50, 75], "every quarter once, in order")

        // The sidecar: valid JSON with the licence, recordist, page and fetch time; the name is the id's.
        let sidecar = try Data(contentsOf: URL(fileURLWithPath: directory + "/XC254462.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: sidecar) as? [String: Any])
        #expect(object["lic"] as? String == "https://creativecommons.org/licenses/by-nc-sa/4.0/")
        #expect(object["licence"] as? String == "CC BY-NC-SA 4.0")
        #expect(object["rec"] as? String == "Jonathan Jongsma")
        #expect(object["url"] as? String == "https://xeno-canto.org/254462")
        #expect(object["fetched"] as? String == "1970-01-01T00:00:00Z")
        #expect(object["file"] as? String == "XC254462.mp3")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "XC254462.json", "XC254462.mp3",
            ])
    }

    @Test(
        "a save that runs out of attempts keeps only the .part; the next save resumes it to the same bytes",
        .enabled(if: savedMP3 != nil, noMP3))
    func resumedInALaterSave() async throws {
        let bytes = try #require(savedMP3)
        let server = try await droppingServer(bytes, cuts: [bytes.count / 3, bytes.count / 2])
        let directory = folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let once = RecordingSaver(sources: .live(), attempts: 1)
        let first = await once.save(recording(at: server), into: directory) { _ in }
        guard case .failed(_, let reason) = first else {
            Issue.record("expected a failure, got \(first)")
            return
        }
        #expect(reason.contains("save again to resume"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["XC254462.part"])
        let second = await RecordingSaver(sources: .live()).save(recording(at: server), into: directory) { _ in }
        await server.shutdown()
        #expect(second == .saved(label: "XC254462", file: directory + "/XC254462.mp3", bytes: Int64(bytes.count)))
        #expect(try await sha256(ofFile: directory + "/XC254462.mp3") == (try await sha256(of: bytes)))
    }

    @Test("an existing file is left alone and nothing is fetched")
    func existingFile() async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: directory + "/XC254462.mp3"))
        let outcome = await RecordingSaver(sources: noSources).save(bunting, into: directory) { _ in
            Issue.record("no progress expected")
        }
        #expect(outcome == .exists(label: "XC254462", file: directory + "/XC254462.mp3"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/XC254462.mp3")) == Data("mine".utf8))
    }

    @Test(
        "a folder under a file, a file as the folder and a restricted recording each give one line; nothing is fetched")
    func refusals() async throws {
        let file = folder()
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data().write(to: URL(fileURLWithPath: file))
        let saver = RecordingSaver(sources: noSources)
        #expect(
            await saver.save(bunting, into: file + "/sub/deeper") { _ in }
                == .failed(
                    label: "XC254462",
                    reason:
                        "cannot create the folder \(file)/sub/deeper: \(file) is a file; save to another (save <n> DIR)"
                ))
        #expect(
            await saver.save(bunting, into: file) { _ in }
                == .failed(
                    label: "XC254462", reason: "\(file) is a file, not a folder; save to a folder (save <n> DIR)"))
        var hidden = bunting
        hidden.audio = .restricted
        #expect(
            await saver.save(hidden, into: folder()) { _ in }
                == .failed(label: "XC254462", reason: "restricted: its audio is not offered"))
    }

    @Test("a full disk leaves neither the final name nor the part behind", .enabled(if: savedMP3 != nil, noMP3))
    func fullDisk() async throws {
        let bytes = try #require(savedMP3)
        let directory = folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The part is /dev/full: every write fails with ENOSPC.
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/XC254462.part", withDestinationPath: "/dev/full")
        let outcome = try await LoopbackServer.with(handler: { request in
            LoopbackResponse.file(bytes, contentType: "audio/mpeg", for: request)
        }) { server in
            await RecordingSaver(sources: .live()).save(recording(at: server), into: directory) { _ in }
        }
        guard case .failed(_, let reason) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(reason.hasPrefix("the disk is full"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
