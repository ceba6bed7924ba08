import Testing

@testable import ChirperCore

@Suite("sono's header")
struct SonogramHeaderTests {
    @Test("a file of one's own with no species named is named once, not as its label and again as its title")
    func ownFileNamedOnce() {
        let presenter = Presenter(style: .terminal(color: false), width: 80, sourceName: "xeno-canto")
        let picture = Sonogram(
            rows: 1, columns: 1, levels: [0], maxFrequency: 12_000, minFrequency: 0, duration: 69.8,
            sampleRate: 48_000)
        #expect(presenter.sonogramHeader(picture, label: "ithaca.wav", title: "ithaca.wav").hasPrefix("ithaca.wav  "))
        #expect(presenter.sonogramHeader(picture, label: "XC1", title: "Dunnock").hasPrefix("XC1 Dunnock  "))
    }
}
