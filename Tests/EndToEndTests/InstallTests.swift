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
        // The quiz is told once, in its own section; the pipe protocol's parts are headed as troff headings,
        // not as markdown.
        #expect(page.components(separatedBy: "Spaced").count == 2, "the quiz's text is in the manual more than once")
        let headings = page.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        #expect(headings.isEmpty, "markdown headings in the manual: \(headings)")
        #expect(page.contains("\n   JSON lines\n"), "no JSON lines heading")
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

@Suite("The README's two commands")
struct ReadmePackagesTests {
    /// The words of `make`'s variable `name` (continued over backslashed lines).
    private func makeList(_ makefile: String, _ name: String) -> Set<String> {
        var words: [String] = []
        var reading = false
        for line in makefile.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(name + " :=") {
                reading = true
                words += line.dropFirst(name.count + 3).split(separator: " ").map(String.init)
            } else if reading {
                words += line.split(whereSeparator: \.isWhitespace).map(String.init)
            } else {
                continue
            }
            if !line.hasSuffix("\\") { break }
        }
        return Set(words.filter { $0 != "\\" && !$0.hasPrefix("$(") })
    }

    @Test("the packages the README names for make run and make test are the ones the Makefile installs")
    func packageLists() throws {
        let root = ChirperBinary.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        // The two lists in backticks after "Both install missing Debian packages".
        let paragraph = try #require(readme.components(separatedBy: "Both install missing Debian packages").last)
        let quoted = paragraph.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let lists = quoted.filter { $0.contains("-dev") || $0.contains("pulseaudio") }.prefix(2)
            .map { Set($0.split(whereSeparator: \.isWhitespace).map(String.init)) }
        try #require(lists.count == 2)
        let run = makeList(makefile, "RUN_PACKAGES")
        #expect(lists[0] == run, "make run: README \(lists[0].symmetricDifference(run).sorted()) differ")
        // TEST_PACKAGES starts with $(RUN_PACKAGES).
        let test = makeList(makefile, "TEST_PACKAGES").union(run)
        #expect(
            lists[0].union(lists[1]) == test,
            "make test: \(lists[0].union(lists[1]).symmetricDifference(test).sorted()) differ")
    }
}
