import ChirperCore

#if canImport(Glibc)
    import Glibc
#endif

/// One fuzzing input: the first byte picks the target, the rest is its input. Every target must return
/// normally for every input; a crash, a trap or a sanitizer report is a finding.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let selector = bytes.first else { return }
    let input = UnsafeBufferPointer(rebasing: bytes.dropFirst())
    let text = String(decoding: input, as: UTF8.self)
    switch selector % 4 {
    case 0:
        // The page decoder, and everything shown from what it decodes.
        if let page = try? PageDecoder.decode(input) {
            let presenter = Presenter(style: .terminal(color: true), width: 80, sourceName: "fuzz")
            _ = presenter.rows(page.recordings, from: 0)
            for (index, recording) in page.recordings.prefix(4).enumerated() {
                _ = presenter.info(recording, row: index + 1)
                _ = Presenter(style: .script, sourceName: "fuzz").attribution(recording)
            }
        }
        _ = PageDecoder.errorMessage(input)
    case 1:
        _ = try? CommandParser.parse(text)
        _ = Completion.candidates(lineBeforeCursor: text)
    case 2:
        if let query = try? SearchQuery.parse(text) { _ = query.text }
    default:
        _ = TerminalText.sanitize(text)
        _ = PageDecoder.availability(ofFile: text)
    }
}

#if CHIRPER_FUZZ
    /// The function libFuzzer calls with each input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        fuzzOne(UnsafeBufferPointer(start: data, count: size))
        return 0
    }

    /// libFuzzer's driver. SwiftPM may name this executable's entry point `chirper_fuzz_main` and alias
    /// `main` to it; this entry point hands over to libFuzzer then, as libFuzzer's own `main` would.
    @_silgen_name("LLVMFuzzerRunDriver")
    func llvmFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    @_cdecl("chirper_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return llvmFuzzerRunDriver(&count, &arguments, fuzzerTestOneInput)
    }
#else
    /// Without libFuzzer: replays the files named on the command line (a corpus, or a crash to reproduce).
    @main
    enum FuzzReplay {
        static func main() {
            var count = 0
            for path in CommandLine.arguments.dropFirst() {
                guard let file = fopen(path, "rb") else {
                    print("cannot open \(path)")
                    exit(2)
                }
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let read = fread(&buffer, 1, buffer.count, file)
                    if read <= 0 { break }
                    bytes += buffer[0..<read]
                }
                fclose(file)
                bytes.withUnsafeBufferPointer(fuzzOne)
                count += 1
            }
            print("replayed \(count) inputs without a crash")
        }
    }
#endif
