import ChirperFuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

/// The target `CHIRPER_FUZZ_TARGET` names (`make fuzz` runs each in turn).
let target: FuzzTarget = {
    let name = getenv("CHIRPER_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let found = FuzzTarget.named(name) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: " ")
        print("set CHIRPER_FUZZ_TARGET to one of: \(names)")
        exit(2)
    }
    return found
}()

#if CHIRPER_FUZZ
    /// The function libFuzzer calls with each input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        target.run(UnsafeBufferPointer(start: data, count: size))
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
        _ = target
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
                target(bytes)
                count += 1
            }
            print("\(target.name): replayed \(count) inputs without a crash")
        }
    }
#endif
