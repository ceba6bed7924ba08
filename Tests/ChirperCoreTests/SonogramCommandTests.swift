import ChirperCore
import Testing

@Suite("sono command")
struct SonogramCommandTests {
    @Test("sono <n>, sono <n> <max-kHz>, sono on and sono off parse to their requests")
    func accepted() throws {
        #expect(try SonogramRequest.parse("3") == .draw(row: 3, maxKHz: nil))
        #expect(try SonogramRequest.parse("#3  12.5") == .draw(row: 3, maxKHz: 12.5))
        #expect(try SonogramRequest.parse("3 8kHz") == .draw(row: 3, maxKHz: 8))
        #expect(try SonogramRequest.parse("ON") == .strip(on: true))
        #expect(try SonogramRequest.parse("off") == .strip(on: false))
    }

    @Test(
        "Bad input gets one line with the usage",
        arguments: ["", "0", "x", "3 0", "3 -1", "3 nan", "3 inf", "3 2000", "3 4 5", "on now"])
    func refused(_ text: String) {
        #expect(throws: CommandError.self) { try SonogramRequest.parse(text) }
        do {
            _ = try SonogramRequest.parse(text)
        } catch {
            #expect(error.description.contains("usage: sono <n> [max-kHz] | sono on | sono off"))
            #expect(!error.description.contains("\n"))
        }
    }
}
