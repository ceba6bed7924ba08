import Foundation
import Testing

/// The C libraries a session may never use (CLazyLibrary.h): loaded when first needed, not at every start.
private let onDemand = [
    "libpulse.so", "libsystemd.so", "libsqlite3.so", "libfftw3f.so", "libsonic.so", "libsyn123.so", "libpng16.so",
    "libedit.so", "libchafa.so", "libglib-2.0.so", "libsoxr.so", "libonnxruntime.so", "libFLAC.so",
]

private func loaded(_ files: Set<String>, _ library: String) -> Bool {
    files.contains { ($0 as NSString).lastPathComponent.hasPrefix(library) }
}

@Suite("C libraries loaded on demand")
struct LazyLibraryTests {
    @Test("a search in a pipe loads none of the on-demand libraries; the first sonogram loads FFTW, and only it")
    func loadedWhenFirstNeeded() async throws {
        // A CHIRPER_LIB… of the caller's would name another file: empty, each library's own name is loaded.
        let ownNames = Dictionary(
            uniqueKeysWithValues: [
                "PULSE", "SYSTEMD", "SQLITE", "FFTW", "SONIC", "SYN123", "PNG", "EDIT", "CHAFA", "SOXR", "ONNXRUNTIME",
                "FLAC",
            ].map {
                ("CHIRPER_LIB\($0)", "")
            })
        let session = try LiveChirper(["--output", "null", "--no-mpris"], environment: ownNames)
        defer { session.signal(SIGKILL) }
        try session.type("search en:trill")
        try await session.waitForLine("list: populated")
        let atStart = try session.mappedFiles()
        #expect(loaded(atStart, "libmpg123.so"), "the decoder is linked: \(atStart.sorted())")
        // Built on FoundationEssentials alone (issue 30): Foundation, CoreFoundation and ICU cost every start.
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!loaded(atStart, library), "\(library) is loaded: \(atStart.sorted())")
        }
        for library in onDemand {
            #expect(!loaded(atStart, library), "\(library) is loaded before it is needed")
        }
        try session.type("sono 1")
        try await session.waitForLine("sono: ")
        let afterSonogram = try session.mappedFiles()
        #expect(loaded(afterSonogram, "libfftw3f.so"))
        for library in onDemand where library != "libfftw3f.so" {
            #expect(!loaded(afterSonogram, library), "\(library) is loaded by a sonogram in a pipe")
        }
    }

    @Test("without FFTW, libsonic or libsyn123, what needs it says so in one line and the session goes on")
    func missingAudioLibraries() async throws {
        let run = try await runChirper(
            ["--output", "null", "--no-mpris"],
            input: [
                "search en:trill", "sono 1", "speed 0.5 keep", "play 1", "wait", "speed 0.5 tape", "play 1", "wait",
                "list",
            ],
            environment: [
                "CHIRPER_LIBFFTW": "/nonexistent/libfftw3f.so.3",
                "CHIRPER_LIBSONIC": "/nonexistent/libsonic.so.0",
                "CHIRPER_LIBSYN123": "/nonexistent/libsyn123.so.0",
            ])
        #expect(run.status == 0)
        #expect(
            run.lines("error: ") == [
                #"error: "sono: cannot draw DEMO-01: cannot load libfftw3f (/nonexistent/libfftw3f.so.3: cannot open shared object file: No such file or directory); install libfftw3-single3""#
            ])
        let failed = run.lines("playback: failed DEMO-01")
        #expect(failed.count == 2, "\(run.stdout)")
        #expect(failed.first?.contains("cannot change the speed: cannot load libsonic (") == true)
        #expect(failed.first?.hasSuffix("; install libsonic0\"") == true)
        #expect(failed.last?.contains("cannot change the speed: cannot load libsyn123 (") == true)
        #expect(failed.last?.hasSuffix("; install libsyn123-0\"") == true)
        #expect(run.lines("list: populated rows=5").count == 2, "the list is still there for `list`")
    }

    @Test("without SQLite the quiz goes on without keeping answers; without libpng a PNG is refused in one line")
    func missingStoreAndPictureLibraries() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-lazy-\(UUID())")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let png = home.appendingPathComponent("sono.png").path
        let run = try await runChirper(
            ["--output", "null", "--no-mpris"],
            input: [
                "quiz en:trill --seed 1", "answer 1", "quiz stop", "search en:trill", "sono 1 --png \(png)", "list",
            ],
            environment: [
                "HOME": home.path,
                "CHIRPER_LIBSQLITE": "/nonexistent/libsqlite3.so.0",
                "CHIRPER_LIBPNG": "/nonexistent/libpng16.so.16",
            ])
        #expect(run.status == 0)
        let errors = run.lines("error: ")
        #expect(errors.count == 2, "\(run.stdout)")
        #expect(errors.first?.contains("cannot open: cannot load libsqlite3 (/nonexistent/libsqlite3.so.0") == true)
        #expect(errors.first?.hasSuffix("install libsqlite3-0; the quiz goes on without keeping answers\"") == true)
        #expect(run.lines("quiz: answer ").count == 1, "the answer is still judged")
        #expect(errors.last?.contains("png: \(png): cannot load libpng (/nonexistent/libpng16.so.16") == true)
        #expect(errors.last?.hasSuffix("; install libpng16-16\"") == true)
        #expect(!FileManager.default.fileExists(atPath: png))
        #expect(run.lines("list: populated rows=5").count == 2, "the list is still there for `list`")
    }
}
