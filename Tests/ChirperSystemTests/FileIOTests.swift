import ChirperCore
import Foundation
import Testing
import ChirperSystem

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Plain file calls: making folders")
struct FileIOTests {
    @Test("the missing folders above are made; folders already there are no error; a file in the way is named")
    func makeFolders() throws {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("chirper-fileio-\(UUID())")
        defer { try? FileManager.default.removeItem(at: top) }
        let deep = top.appendingPathComponent("a/b/c").path
        #expect(FileIO.makeFolders(atPath: deep) == nil)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: deep, isDirectory: &isFolder) && isFolder.boolValue)
        #expect(FileIO.makeFolders(atPath: deep) == nil, "already there")
        let file = top.appendingPathComponent("file")
        try Data([1]).write(to: file)
        #expect(FileIO.makeFolders(atPath: file.path) == ENOTDIR)
        #expect(FileIO.makeFolders(atPath: file.appendingPathComponent("below").path) == ENOTDIR)
        #expect(FileIO.fileInTheWay(of: file.path) == file.path)
        #expect(FileIO.fileInTheWay(of: file.appendingPathComponent("below/deeper").path) == file.path)
        #expect(FileIO.fileInTheWay(of: deep + "/d/e") == nil, "only folders, and parts not made yet")
    }
}
