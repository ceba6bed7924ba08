import Foundation
import Testing
import ChirperSystem

@Suite("Text files written whole or not at all")
struct WholeFileWriteTests {
    @Test("writeNew writes a new file, and leaves one already there as it is; no hidden part stays behind")
    func writeNew() throws {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-whole-\(UUID())")
        try FileManager.default.createDirectory(at: top, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: top) }
        let path = top.appendingPathComponent("table.txt").path
        #expect(FileIO.writeNew("first\n", to: path) == nil)
        #expect(FileIO.writeNew("second\n", to: path) == .exists)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "first\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: top.path) == ["table.txt"])
        let missing = top.appendingPathComponent("no/such/folder.txt").path
        guard case .failed(let reason) = FileIO.writeNew("x", to: missing) else {
            Issue.record("a file in a missing folder was written")
            return
        }
        #expect(reason == "no such file or directory")
    }

    @Test("writeWhole replaces a file in one step: the old text or the new, never a mix; no hidden part stays")
    func writeWhole() throws {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-whole-\(UUID())")
        try FileManager.default.createDirectory(at: top, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: top) }
        let path = top.appendingPathComponent("t.txt").path
        #expect(FileIO.writeWhole("old text that is longer\n", to: path) == nil)
        #expect(FileIO.writeWhole("new\n", to: path) == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: top.path) == ["t.txt"])
        #expect(FileIO.hiddenName(beside: "/a/b.txt").hasPrefix("/a/.b.txt.part-"))
    }
}
