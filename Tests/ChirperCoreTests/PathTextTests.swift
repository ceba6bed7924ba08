import Foundation
import Testing

@testable import ChirperCore

@Suite("Path text without NSString")
struct PathTextTests {
    @Test(
        "folder(of:) is NSString's deletingLastPathComponent",
        arguments: ["/a/b/c", "/a/b/c/", "/a", "/", "a/b", "//a//b//", "/a/b/../c", "/home/u/.local/share/x.sqlite"])
    func folderAsFoundation(_ path: String) {
        #expect(PathText.folder(of: path) == (path as NSString).deletingLastPathComponent)
    }

    @Test("the folder of a bare name or of nothing is empty (where swift-corelibs-foundation stops the program)")
    func bareName() {
        #expect(PathText.folder(of: "history") == "")
        #expect(PathText.folder(of: "") == "")
    }

    @Test(
        "removingExtension(_:) is NSString's deletingPathExtension for the cache's file names",
        arguments: ["XC1.mp3", "XC123456.wav", ".hidden", "plain", "a.b.c", "dir.x/file", "index.json"])
    func extensionAsFoundation(_ name: String) {
        #expect(PathText.removingExtension(name) == (name as NSString).deletingPathExtension)
    }
}
