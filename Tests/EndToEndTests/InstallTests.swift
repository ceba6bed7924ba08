import ChirperCore
import ChirperTestSupport
import Foundation
import Testing

/// Quotes `text` for `sh -c`.
private func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

@Suite(
    "make install and make uninstall",
    .enabled(if: ChirperBinary.exists, "the chirper-play binary is not built"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "skipped: man is not installed (man-db)")
)
struct InstallTests {
    @Test("install puts the binary, a manual page, completions and the demo under PREFIX; uninstall leaves it empty")
    func installAndUninstall() async throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-prefix-\(UUID())").path
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let root = ChirperBinary.packageRoot.path
        let make = "cd \(quoted(root)) && make --no-print-directory"

        let install = try await Tool.run(
            "/bin/sh",
            ["-c", "\(make) install PREFIX=\(quoted(prefix)) INSTALL_BINARY=\(quoted(ChirperBinary.path)) 2>&1"],
            captureOutput: true)
        #expect(install.status == 0, "\(String(decoding: install.output, as: UTF8.self))")

        let version = try await Tool.run(prefix + "/bin/chirper-play", ["--version"], captureOutput: true)
        #expect(String(decoding: version.output, as: UTF8.self) == ChirperVersion.current + "\n")

        // The manual page reads, with the commands, the pipe protocol and the quiz in it.
        let manual = try await Tool.run(
            "/bin/sh", ["-c", "MANWIDTH=100 man -l \(quoted(prefix + "/share/man/man1/chirper-play.1")) 2>&1"],
            captureOutput: true)
        let page = String(decoding: manual.output, as: UTF8.self)
        #expect(manual.status == 0, "\(page)")
        for section in ["OPTIONS", "COMMANDS", "PIPE PROTOCOL", "THE QUIZ", "ENVIRONMENT"] {
            #expect(page.contains("\n\(section)\n"), "no \(section) section")
        }
        #expect(page.contains("quiz <deck>") && page.contains("playback: buffering XC254462"))
        #expect(
            !page.contains("warning:"), "troff warned: \(page.split(separator: "\n").filter { $0.contains("warning") })"
        )

        // Completions that their shells parse.
        let bash = try await Tool.run(
            "/bin/bash", ["-n", prefix + "/share/bash-completion/completions/chirper-play"], captureOutput: true)
        #expect(bash.status == 0)
        for file in ["/share/zsh/site-functions/_chirper-play", "/share/fish/vendor_completions.d/chirper-play.fish"] {
            let text = (try? String(contentsOfFile: prefix + file, encoding: .utf8)) ?? ""
            #expect(text.contains("graphics"), "\(file) does not complete the flags")
        }

        // The installed program finds its demo catalog from any folder, by its path and by its name on PATH (where
        // argv[0] is only "chirper-play").
        for command in [quoted(prefix + "/bin/chirper-play"), "PATH=\(quoted(prefix + "/bin")):\"$PATH\" chirper-play"]
        {
            let demo = try await Tool.run(
                "/bin/sh",
                [
                    "-c",
                    "cd / && echo 'search grp:birds' | env -u XENO_CANTO_API_KEY \(command) --output null 2>&1",
                ],
                captureOutput: true)
            let output = String(decoding: demo.output, as: UTF8.self)
            #expect(output.contains("list: paging rows="), "\(command): \(output)")
        }

        let uninstall = try await Tool.run(
            "/bin/sh", ["-c", "\(make) uninstall PREFIX=\(quoted(prefix)) 2>&1"], captureOutput: true)
        #expect(uninstall.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: prefix) == [], "uninstall left files behind")
    }
}
